package access

// StoreWrapper is a Store that decorates another one (with metrics, say).
// The optional storage interfaces (Backuper, Exporter, Importer) are looked
// up through it, on the store it wraps.
type StoreWrapper interface {
	Unwrap() Store
}

// optionalStore returns s, or a store s wraps, as a T.
func optionalStore[T any](s Store) (T, bool) {
	for {
		if t, ok := s.(T); ok {
			return t, true
		}
		w, ok := s.(StoreWrapper)
		if !ok {
			var zero T
			return zero, false
		}
		s = w.Unwrap()
	}
}
