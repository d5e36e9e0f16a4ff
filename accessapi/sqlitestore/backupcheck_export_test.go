package sqlitestore

// SetAfterCopy sets the hook a backup calls with its copy before checking
// it, until the returned function restores it.
func SetAfterCopy(f func(tmp string)) (restore func()) {
	afterCopy = f
	return func() { afterCopy = nil }
}
