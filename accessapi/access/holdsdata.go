package access

import "context"

// DataHolder is a store that tells whether it holds anything an operator
// made or a client sent (an application, a user, an administrator, a
// seller key, ...), as opposed to a fresh store. The server creates a new
// file key only for a store that holds nothing: in any other store the
// encrypted files, signing keys, webhook secrets and TOTP secrets are
// sealed with a key that a new one cannot open.
type DataHolder interface {
	// HoldsData reports whether the store holds any record beyond the
	// transient ones (change feed, event journal, throttling counters).
	HoldsData(ctx context.Context) (bool, error)
}
