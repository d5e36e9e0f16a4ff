package adminclient

import (
	"context"
	"net/http"

	"github.com/appaccess/appaccess/accessapi/wire"
)

// RotateSigningKey calls POST /apps/{app}/signing_keys: a new active key.
func (c *Client) RotateSigningKey(ctx context.Context, appID string) (*wire.SigningKey, error) {
	var out wire.SigningKey
	return &out, c.send(ctx, http.MethodPost, "/apps/"+seg(appID)+"/signing_keys", nil, &out)
}

// RetireSigningKey calls DELETE /apps/{app}/signing_keys/{kid}.
func (c *Client) RetireSigningKey(ctx context.Context, appID, keyID string) error {
	return c.del(ctx, "/apps/"+seg(appID)+"/signing_keys/"+seg(keyID))
}
