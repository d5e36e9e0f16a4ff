package clientapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
)

// downloadFile serves GET /files/{file}: it streams a file to a user
// allowed to read the application context, with its media type, length,
// an ETag (its SHA-256) and support for a single byte range. The bytes are
// application content, not user data: they may be kept privately and
// revalidated (private, no-cache); every JSON answer is no-store.
func (h *Handler) downloadFile(ctx context.Context, w http.ResponseWriter, r *http.Request, app *access.App) error {
	if _, err := h.svc().Authenticate(ctx, app, HeaderCredentials(r), true); err != nil {
		return err
	}
	f, err := h.svc().FileOf(ctx, app.ID, r.PathValue("file"))
	if err != nil {
		return err
	}
	etag := `"` + f.SHA256 + `"`
	hdr := w.Header()
	hdr.Set("ETag", etag)
	hdr.Set("Accept-Ranges", "bytes")
	if match := r.Header.Get("If-None-Match"); match != "" && (match == etag || match == "*") {
		hdr.Set("Cache-Control", "private, no-cache")
		w.WriteHeader(http.StatusNotModified)
		return nil
	}

	start, length, status := int64(0), f.Size, http.StatusOK
	if rng := r.Header.Get("Range"); rng != "" && (r.Header.Get("If-Range") == "" || r.Header.Get("If-Range") == etag) {
		s, e, ok := parseRange(rng, f.Size)
		if !ok {
			hdr.Set("Content-Range", fmt.Sprintf("bytes */%d", f.Size))
			return access.Refusal(httpx.CodeRangeNotSatisfiable,
				fmt.Sprintf("The range selects no byte of this file; it has %d bytes. Send one range: bytes=first-last.", f.Size))
		}
		start, length, status = s, e-s+1, http.StatusPartialContent
		hdr.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", s, e, f.Size))
	}
	// The file is opened before any header of the answer is set, so a
	// failure to open it (a wrong file key) is a clean problem answer.
	var rc io.ReadCloser
	if r.Method != http.MethodHead {
		var err error
		if rc, err = h.svc().OpenFile(ctx, f, start); err != nil {
			for _, k := range []string{"Content-Range", "ETag", "Accept-Ranges"} {
				hdr.Del(k)
			}
			return err
		}
		defer rc.Close()
	}
	hdr.Set("Cache-Control", "private, no-cache")
	hdr.Set("Content-Type", f.MimeType)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", f.Name))
	hdr.Set("Content-Length", strconv.FormatInt(length, 10))
	if rc == nil {
		w.WriteHeader(status) // no body: a signing writer signs the empty one
		return nil
	}
	// A signed answer is signed over the bytes sent: the stored digest of a
	// whole file, or a first pass over the range (memory stays bounded).
	err = writeHeaderSigned(w, status, func() ([]byte, error) {
		if start == 0 && length == f.Size {
			return hex.DecodeString(f.SHA256)
		}
		return h.rangeDigest(ctx, f, start, length)
	})
	if err != nil {
		for _, k := range []string{"Content-Range", "ETag", "Accept-Ranges", "Cache-Control", "Content-Type", "Content-Disposition", "Content-Length"} {
			hdr.Del(k)
		}
		return err
	}
	if _, err := io.CopyN(w, rc, length); err != nil {
		// The status is sent; all that is left is to log and cut the body.
		h.logger.Warn("file download interrupted")
	}
	return nil
}

// rangeDigest is the SHA-256 of length bytes of f from start.
func (h *Handler) rangeDigest(ctx context.Context, f *access.File, start, length int64) ([]byte, error) {
	rc, err := h.svc().OpenFile(ctx, f, start)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	d := sha256.New()
	if _, err := io.CopyN(d, rc, length); err != nil {
		return nil, fmt.Errorf("hashing the range of file %s: %w", f.ID, err)
	}
	return d.Sum(nil), nil
}

// parseRange parses a single "bytes=" range against a file of size bytes,
// returning its first and last byte.
func parseRange(header string, size int64) (int64, int64, bool) {
	spec, ok := strings.CutPrefix(header, "bytes=")
	if !ok || strings.Contains(spec, ",") {
		return 0, 0, false
	}
	first, last, ok := strings.Cut(strings.TrimSpace(spec), "-")
	if !ok {
		return 0, 0, false
	}
	if first == "" { // suffix: the last N bytes
		n, err := strconv.ParseInt(last, 10, 64)
		if err != nil || n <= 0 || size == 0 {
			return 0, 0, false
		}
		return max(size-n, 0), size - 1, true
	}
	s, err := strconv.ParseInt(first, 10, 64)
	if err != nil || s < 0 || s >= size {
		return 0, 0, false
	}
	e := size - 1
	if last != "" {
		if e, err = strconv.ParseInt(last, 10, 64); err != nil || e < s {
			return 0, 0, false
		}
		e = min(e, size-1)
	}
	return s, e, true
}
