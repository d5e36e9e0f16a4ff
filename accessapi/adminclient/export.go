package adminclient

import (
	"context"
	"fmt"
	"io"
	"net/http"

	"github.com/appaccess/appaccess/accessapi/wire"
)

// Export calls GET /export and copies the stream (JSON Lines) to w; it
// returns the bytes copied. A stream cut short lacks its end record, which
// Import refuses.
func (c *Client) Export(ctx context.Context, w io.Writer) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/export", nil)
	if err != nil {
		return 0, fmt.Errorf("making the GET /export request: %w", err)
	}
	if c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	req.Header.Set("Accept", wire.ExportMediaType)
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, &ConnectError{Address: c.address, Err: err}
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return 0, problemOf(res)
	}
	n, err := io.Copy(w, res.Body)
	if err != nil {
		return n, fmt.Errorf("reading the export: %w", err)
	}
	return n, nil
}

// Import calls POST /import, streaming an export from r into the server's
// empty store.
func (c *Client) Import(ctx context.Context, r io.Reader) (*wire.ImportSummary, error) {
	var out wire.ImportSummary
	return &out, c.call(ctx, http.MethodPost, "/import", nil, r, wire.ExportMediaType, &out)
}

// Backup calls POST /backup: the server copies its embedded database to
// path, a new file on its machine.
func (c *Client) Backup(ctx context.Context, path string) (*wire.Backup, error) {
	var out wire.Backup
	return &out, c.send(ctx, http.MethodPost, "/backup", wire.BackupRequest{Path: path}, &out)
}
