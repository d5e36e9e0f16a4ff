package sqlitestore

import (
	"context"
	"fmt"
	"strings"

	"github.com/appaccess/appaccess/accessapi/access"
)

// holdsDataTables are the tables of a store that holds data: those an
// import needs empty, and the administrators (whose TOTP secrets are
// sealed with the file key).
var holdsDataTables = append([]string{"admins"}, dataTables...)

// HoldsData implements access.DataHolder.
func (s *Store) HoldsData(ctx context.Context) (bool, error) {
	var exists []string
	for _, t := range holdsDataTables {
		exists = append(exists, "EXISTS (SELECT 1 FROM "+t+")")
	}
	var holds bool
	if err := s.read.QueryRowContext(ctx, `SELECT `+strings.Join(exists, " OR ")).Scan(&holds); err != nil {
		return false, fmt.Errorf("checking whether the database holds data: %w", err)
	}
	return holds, nil
}

var _ access.DataHolder = (*Store)(nil)
