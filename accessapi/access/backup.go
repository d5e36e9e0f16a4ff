package access

import (
	"context"
	"errors"
)

// Backuper is a store that copies itself, consistently and while it
// serves, to a new file on the server's machine (the embedded SQLite
// store).
type Backuper interface {
	// Backup writes a copy of the store to path, which must not exist,
	// with mode 0600. The file appears only once it is complete.
	Backup(ctx context.Context, path string) error
}

// ErrBackupExists refuses a backup over an existing file.
var ErrBackupExists = errors.New("the backup file exists")

// Backup copies the store to path on the server's machine. A store that
// cannot (MongoDB) is refused with a pointer to its own tools.
func (s *Service) Backup(ctx context.Context, path string) error {
	b, ok := optionalStore[Backuper](s.store)
	if !ok {
		return Refusal(CodeConflict, "This server keeps its data in MongoDB: back it up with mongodump (or the snapshots of the "+
			"replica set's provider). caddy app-access backup copies the embedded SQLite database only.")
	}
	if path == "" {
		return Invalid(FieldError{Field: "path", Message: "must name the new backup file"})
	}
	err := b.Backup(ctx, path)
	if errors.Is(err, ErrBackupExists) {
		return Refusal(CodeConflict, "The backup file exists already: choose a new name (a backup never overwrites a file).")
	}
	if err != nil {
		return wrapStore(err, "backing up")
	}
	s.emit(ctx, Event{Kind: EventStoreBackedUp, Target: path})
	return nil
}
