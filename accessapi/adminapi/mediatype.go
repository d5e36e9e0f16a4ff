package adminapi

import (
	"bufio"
	"mime"
	"net/http"
	"path/filepath"
	"strings"
)

// sniffLen is how many leading bytes http.DetectContentType reads.
const sniffLen = 512

// mediaType chooses an uploaded file's media type: the explicit one (the
// mime_type query parameter, else the request's Content-Type), else the
// one the name's extension implies, else the one the first bytes imply.
// A form or an empty Content-Type is not a choice: curl --data-binary sends
// application/x-www-form-urlencoded unless told otherwise.
func mediaType(query, contentType, name string, body *bufio.Reader) string {
	if query != "" {
		return query
	}
	if t, _, err := mime.ParseMediaType(contentType); err == nil && !isFormType(t) {
		return contentType
	}
	if t := mime.TypeByExtension(filepath.Ext(name)); t != "" {
		return t
	}
	head, _ := body.Peek(sniffLen) // a short or failing body sniffs what it has
	return http.DetectContentType(head)
}

func isFormType(t string) bool {
	return t == "application/x-www-form-urlencoded" || strings.HasPrefix(t, "multipart/")
}
