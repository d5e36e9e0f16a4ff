package adminapi

import (
	"net/http"
	"strconv"

	"github.com/appaccess/appaccess/accessapi/access"
	"github.com/appaccess/appaccess/accessapi/httpx"
	"github.com/appaccess/appaccess/accessapi/wire"
)

// writePage answers a listing in the one page shape of every list route:
// the items, each formatted by view, and the cursor of the next page (""
// at the end, or for a listing that is not paged).
func writePage[S any, T wire.Listable](w http.ResponseWriter, items []S, next string, view func(*S) T) error {
	out := make([]T, len(items))
	for i := range items {
		out[i] = view(&items[i])
	}
	page := wire.Page[T]{Items: out}
	if next != "" {
		page.Next = &next
	}
	httpx.WriteJSON(w, http.StatusOK, page)
	return nil
}

// pageQuery is the paging of a listing: ?limit= (1 to 1000, default 100)
// and ?after=, the cursor of the previous page.
type pageQuery struct {
	after string
	limit int
}

func pageQueryOf(r *http.Request) (pageQuery, error) {
	q := r.URL.Query()
	p := pageQuery{after: q.Get("after"), limit: 100}
	if s := q.Get("limit"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 || n > access.MaxPageSize {
			return p, access.Invalid(access.FieldError{Field: "limit", Message: "must be 1 to 1000"})
		}
		p.limit = n
	}
	return p, nil
}
