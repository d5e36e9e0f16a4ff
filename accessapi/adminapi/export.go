package adminapi

import (
	"net/http"
	"os"
	"path/filepath"
	"time"

	"go.uber.org/zap"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// export serves GET /export: the whole store as JSON Lines, streamed. An
// error after the first byte cannot become a problem: the stream stops
// without its end record, which an import refuses.
func (h *Handler) export(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	w.Header().Set("Content-Type", wire.ExportMediaType)
	w.Header().Set("Content-Disposition", `attachment; filename="app-access-`+time.Now().UTC().Format("20060102-150405")+`.jsonl"`)
	w.Header().Set("Cache-Control", "no-store")
	cw := &countingWriter{w: w}
	_, err := svc.Export(r.Context(), cw, nil)
	if err != nil && cw.n > 0 {
		h.logger.Error("export stopped", zap.Error(err))
		return nil
	}
	if err != nil {
		return access.ImportRefusal(err)
	}
	return nil
}

// countingWriter counts what passed through it.
type countingWriter struct {
	w http.ResponseWriter
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// importStore serves POST /import: an export, read into an empty store.
func (h *Handler) importStore(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	stats, err := svc.Import(r.Context(), r.Body)
	if err != nil {
		refusal := access.ImportRefusal(err)
		if _, ok := refusal.(*access.Error); ok {
			h.logger.Warn("import refused", zap.Error(err))
		}
		return refusal
	}
	out := wire.ImportSummary{Records: map[string]int64{}}
	for t, n := range stats {
		out.Records[string(t)] = n
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// backup serves POST /backup: a copy of the embedded database written on
// the server's machine.
func backup(w http.ResponseWriter, r *http.Request, svc *access.Service) error {
	var b wire.BackupRequest
	if err := httpx.DecodeStrictJSON(w, r, &b, maxBodyBytes); err != nil {
		return err
	}
	if b.Path != "" && !filepath.IsAbs(b.Path) {
		return access.Invalid(access.FieldError{Field: "path", Message: "must be an absolute path on the server's machine"})
	}
	if err := svc.Backup(r.Context(), b.Path); err != nil {
		return err
	}
	out := wire.Backup{Path: b.Path}
	if fi, err := os.Stat(b.Path); err == nil {
		out.Bytes = fi.Size()
	}
	httpx.WriteJSON(w, http.StatusCreated, out)
	return nil
}
