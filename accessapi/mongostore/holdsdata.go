package mongostore

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/appaccess/appaccess/accessapi/access"
)

// HoldsData implements access.DataHolder: a collection an import needs
// empty, the seller keys or the administrators (whose TOTP secrets are
// sealed with the file key) has a document.
func (s *Store) HoldsData(ctx context.Context) (bool, error) {
	for _, coll := range append([]string{collAdmins, collSellerKeys}, importedColls...) {
		var raw bson.Raw
		err := s.c(coll).FindOne(ctx, bson.D{}).Decode(&raw)
		if isNotFound(mapErr(err)) {
			continue
		}
		if err != nil {
			return false, fmt.Errorf("checking %s: %w", coll, err)
		}
		return true, nil
	}
	return false, nil
}

var _ access.DataHolder = (*Store)(nil)
