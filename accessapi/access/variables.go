package access

import (
	"context"
	"errors"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Variable limits.
const (
	MaxVariableNameLength  = 128
	MaxVariableValueLength = 32 << 10
)

// SetVariable creates or replaces an application's variable.
func (s *Service) SetVariable(ctx context.Context, appID, name, value string) (*Variable, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	var fields []FieldError
	if name == "" || len(name) > MaxVariableNameLength || !utf8.ValidString(name) {
		fields = append(fields, FieldError{"name", "must be 1 to 128 bytes of UTF-8"})
	} else if !validVariableName(name) {
		fields = append(fields, FieldError{"name", `must not be "." or "..", nor hold a control character, "/", "\\", "?" or "#"`})
	}
	if len(value) > MaxVariableValueLength || !utf8.ValidString(value) {
		fields = append(fields, FieldError{"value", "must be at most 32 KiB of UTF-8"})
	}
	if len(fields) > 0 {
		return nil, Invalid(fields...)
	}
	v := &Variable{AppID: appID, Name: name, Value: value}
	err := s.commit(ctx, func(ctx context.Context) error { return wrapStore(s.store.PutVariable(ctx, v), "setting variable") },
		Event{Kind: EventContentChanged, AppID: appID, Target: name, Change: ContentVariableSet})
	if err != nil {
		return nil, err
	}
	return v, nil
}

// validVariableName refuses the names that would change the meaning of a
// URL path they are put in (a dashboard or script that builds one from a
// name), and control characters.
func validVariableName(name string) bool {
	if name == "." || name == ".." {
		return false
	}
	for _, r := range name {
		if unicode.IsControl(r) || strings.ContainsRune(`/\?#`, r) {
			return false
		}
	}
	return true
}

// Variables lists an application's variables.
func (s *Service) Variables(ctx context.Context, appID string) ([]Variable, error) {
	if _, err := s.App(ctx, appID); err != nil {
		return nil, err
	}
	vs, err := s.store.Variables(ctx, appID)
	return vs, wrapStore(err, "listing variables")
}

// DeleteVariable removes an application's variable.
func (s *Service) DeleteVariable(ctx context.Context, appID, name string) error {
	if _, err := s.App(ctx, appID); err != nil {
		return err
	}
	return s.commit(ctx, func(ctx context.Context) error {
		err := s.store.DeleteVariable(ctx, appID, name)
		if errors.Is(err, ErrNotFound) {
			return notFound("variable")
		}
		return wrapStore(err, "deleting variable")
	}, Event{Kind: EventContentChanged, AppID: appID, Target: name, Change: ContentVariableDeleted})
}
