package httpx

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/appaccess/appaccess/accessapi/access"
)

// typeErrors names every field of the JSON object body whose value does
// not fit its Go field in t (a struct, or a pointer to one), in the order
// of t's fields and with encoding/json's dotted names. encoding/json
// reports only the first such field: a client that sent several wrong
// would learn of them one request at a time.
func typeErrors(body []byte, t reflect.Type) []access.FieldError {
	return appendTypeErrors(nil, body, t, "")
}

func appendTypeErrors(out []access.FieldError, raw []byte, t reflect.Type, name string) []access.FieldError {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		err := json.Unmarshal(raw, reflect.New(t).Interface())
		if typeErr := (*json.UnmarshalTypeError)(nil); errors.As(err, &typeErr) {
			return append(out, access.FieldError{Field: name, Message: "must be " + jsonKind(typeErr.Type.Kind().String())})
		}
		return out
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		if string(raw) == "null" {
			return out
		}
		return append(out, access.FieldError{Field: name, Message: "must be an object"})
	}
	for _, f := range jsonFields(t) {
		value, ok := memberOf(members, f.name)
		if !ok {
			continue
		}
		full := f.name
		if name != "" {
			full = name + "." + f.name
		}
		out = appendTypeErrors(out, value, f.typ, full)
	}
	return out
}

// jsonField is a field of a struct as encoding/json names it.
type jsonField struct {
	name string
	typ  reflect.Type
}

// jsonFields are t's fields that encoding/json decodes, with the fields of
// embedded structs in their place.
func jsonFields(t reflect.Type) []jsonField {
	var out []jsonField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if f.Anonymous && name == "" && ft.Kind() == reflect.Struct {
			out = append(out, jsonFields(ft)...)
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, jsonField{name: name, typ: f.Type})
	}
	return out
}

// memberOf is the value of the member named name as encoding/json finds
// it: the exact key, else one equal under Unicode's simple case folding.
func memberOf(members map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	if v, ok := members[name]; ok {
		return v, true
	}
	folded := foldKey(name)
	for k, v := range members {
		if foldKey(k) == folded {
			return v, true
		}
	}
	return nil, false
}
