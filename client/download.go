package client

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// sha256ETag is the ETag of a file: its SHA-256 in hex, quoted.
var sha256ETag = regexp.MustCompile(`^"([0-9a-f]{64})"$`)

// Download fetches the file fileID into path and returns its size. The
// bytes received so far wait in path+".part" (with the file's ETag in
// path+".part.etag"), so a download that was cut resumes where it stopped:
// only the rest is requested (Range, with If-Range so that a file changed
// meanwhile starts over). Once every byte is in, their SHA-256 is checked
// against the file's (the ETag of the last answer, which a verifying
// client has checked with the answer's signature, along with its range)
// before the file is renamed to path; a mismatch removes the partial file
// and is ErrChecksumMismatch. The bytes of a cut answer are kept unverified
// for the resume, but never become the file unless they hash to a signed
// ETag. The download is bounded by ctx only, not by the client's timeout.
func (c *Client) Download(ctx context.Context, auth Auth, fileID, path string) (int64, error) {
	part, tagPath := path+".part", path+".part.etag"
	f, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, fmt.Errorf("client: download: %w", err)
	}
	defer f.Close()
	offset, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return 0, fmt.Errorf("client: download: %w", err)
	}
	etag := ""
	if b, err := os.ReadFile(tagPath); err == nil {
		etag = strings.TrimSpace(string(b))
	}
	if etag == "" {
		offset = 0 // bytes of an unknown version cannot be resumed
	}
	res, err := c.fetchFrom(ctx, auth, fileID, offset, etag)
	if errors.Is(err, ErrRangeNotSatisfiable) && offset > 0 {
		offset = 0 // the partial file is as long as the file, or longer: start over
		res, err = c.fetchFrom(ctx, auth, fileID, 0, "")
	}
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusPartialContent {
		offset = 0 // the whole file: the version changed, or no range was asked
	} else if start, ok := rangeStart(res.Header.Get("Content-Range")); !ok || start != offset {
		return 0, fmt.Errorf("client: download: the answer's range %q does not start at %d: %w", res.Header.Get("Content-Range"), offset, ErrUnknownProblem)
	}
	etag = res.Header.Get("ETag")
	m := sha256ETag.FindStringSubmatch(etag)
	if m == nil {
		return 0, fmt.Errorf("client: download: the answer's ETag %q is not a SHA-256: %w", etag, ErrUnknownProblem)
	}
	if err := os.WriteFile(tagPath, []byte(etag+"\n"), 0o644); err != nil {
		return 0, fmt.Errorf("client: download: %w", err)
	}
	if err := f.Truncate(offset); err != nil {
		return 0, fmt.Errorf("client: download: %w", err)
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return 0, fmt.Errorf("client: download: %w", err)
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		if errors.Is(err, ErrBadSignature) {
			// The bytes are not the ones the server signed: drop them.
			_ = f.Close()
			_ = os.Remove(part)
			_ = os.Remove(tagPath)
			return 0, fmt.Errorf("client: download of %s: %w", fileID, err)
		}
		// What arrived stays in the partial file for the next call.
		if ctxErr := ctx.Err(); ctxErr != nil {
			err = ctxErr
		}
		return 0, fmt.Errorf("client: download cut, call again to resume: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("client: download: %w", err)
	}
	h := sha256.New()
	size, err := io.Copy(h, f)
	if err != nil {
		return 0, fmt.Errorf("client: download: %w", err)
	}
	if hex.EncodeToString(h.Sum(nil)) != m[1] {
		_ = f.Close()
		_ = os.Remove(part)
		_ = os.Remove(tagPath)
		return 0, fmt.Errorf("client: download of %s: %w", fileID, ErrChecksumMismatch)
	}
	if err := f.Close(); err != nil {
		return 0, fmt.Errorf("client: download: %w", err)
	}
	if err := os.Rename(part, path); err != nil {
		return 0, fmt.Errorf("client: download: %w", err)
	}
	_ = os.Remove(tagPath)
	return size, nil
}

// rangeStart is the first byte of a Content-Range "bytes S-E/T".
func rangeStart(contentRange string) (int64, bool) {
	spec, ok := strings.CutPrefix(contentRange, "bytes ")
	if !ok {
		return 0, false
	}
	first, _, ok := strings.Cut(spec, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(first, 10, 64)
	return n, err == nil && n >= 0
}

// fetchFrom asks for the file from offset on; etag makes the range
// conditional on the version the partial bytes came from.
func (c *Client) fetchFrom(ctx context.Context, auth Auth, fileID string, offset int64, etag string) (*http.Response, error) {
	h := http.Header{}
	if offset > 0 {
		h.Set("Range", "bytes="+strconv.FormatInt(offset, 10)+"-")
		h.Set("If-Range", etag)
	}
	return c.do(ctx, request{method: "GET", path: "/files/" + url.PathEscape(fileID), auth: auth, header: h, stream: true}, nil)
}
