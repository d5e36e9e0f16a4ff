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

// BackupFolderError refuses a backup into a folder the server cannot
// write a file into: one that does not exist, is not a folder, or denies
// the server.
type BackupFolderError struct {
	// Dir is the folder, absolute, on the server's machine.
	Dir string
	// Reason says what is wrong with it ("does not exist").
	Reason string
}

func (e *BackupFolderError) Error() string {
	return "the backup folder " + e.Dir + " " + e.Reason
}

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
	var folder *BackupFolderError
	if errors.As(err, &folder) {
		return Invalid(FieldError{Field: "path", Message: "the folder " + folder.Dir + " " + folder.Reason +
			" on the server's machine; create it (or choose another) first"})
	}
	if errors.Is(err, ErrBackupExists) {
		return Refusal(CodeConflict, "The backup file exists already: choose a new name (a backup never overwrites a file).")
	}
	if err != nil {
		return wrapStore(err, "backing up")
	}
	s.emit(ctx, Event{Kind: EventStoreBackedUp, Target: path})
	return nil
}
