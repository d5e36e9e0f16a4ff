package wire

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Listable is an item of a listing; ListName is the JSON name of the list.
type Listable interface {
	ListName() string
}

// Page is one page of a listing, the one shape every list route answers:
// the items under the list's name and the cursor of the next page, null at
// the end (and always null for the listings that are not paged), as in
// {"licenses": [...], "next": "…"}.
type Page[T Listable] struct {
	Items []T
	// Next is passed as ?after= for the next page.
	Next *string
}

// MarshalJSON writes {"<list name>": [...], "next": …}; no items is [].
func (p Page[T]) MarshalJSON() ([]byte, error) {
	var zero T
	items := p.Items
	if items == nil {
		items = []T{}
	}
	name, err := json.Marshal(zero.ListName())
	if err != nil {
		return nil, err
	}
	list, err := json.Marshal(items)
	if err != nil {
		return nil, err
	}
	next, err := json.Marshal(p.Next)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	b.WriteByte('{')
	b.Write(name)
	b.WriteByte(':')
	b.Write(list)
	b.WriteString(`,"next":`)
	b.Write(next)
	b.WriteByte('}')
	return b.Bytes(), nil
}

// UnmarshalJSON reads what MarshalJSON writes.
func (p *Page[T]) UnmarshalJSON(data []byte) error {
	var zero T
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return err
	}
	list, ok := fields[zero.ListName()]
	if !ok {
		return fmt.Errorf("page has no %q list", zero.ListName())
	}
	*p = Page[T]{}
	if err := json.Unmarshal(list, &p.Items); err != nil {
		return fmt.Errorf("page list %q: %w", zero.ListName(), err)
	}
	if next, ok := fields["next"]; ok {
		if err := json.Unmarshal(next, &p.Next); err != nil {
			return fmt.Errorf("page cursor: %w", err)
		}
	}
	return nil
}
