package httpx

import "time"

// RFC3339 formats t in UTC with a Z, at millisecond precision at most.
func RFC3339(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.999Z07:00") }

// OptionalRFC3339 formats t with RFC3339; nil stays nil (JSON null).
func OptionalRFC3339(t *time.Time) *string {
	if t == nil {
		return nil
	}
	s := RFC3339(*t)
	return &s
}
