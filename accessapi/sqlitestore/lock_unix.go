//go:build unix

package sqlitestore

import (
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
)

// lockFolder takes an exclusive lock on the lock file for the life of the
// process (the kernel drops it when the process dies).
func lockFolder(path string) (io.Closer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("in use by another process (lock file %s)", path)
		}
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return f, nil
}
