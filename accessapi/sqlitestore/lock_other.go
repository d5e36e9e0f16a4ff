//go:build !unix

package sqlitestore

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// lockFolder creates the lock file exclusively; a file left by a process
// that died must be removed by hand (the error says which).
func lockFolder(path string) (io.Closer, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, os.ErrExist) {
		return nil, fmt.Errorf("in use by another process (or left locked by one that died: remove %s)", path)
	}
	if err != nil {
		return nil, err
	}
	return removeOnClose{f}, nil
}

type removeOnClose struct{ *os.File }

func (r removeOnClose) Close() error {
	return errors.Join(r.File.Close(), os.Remove(r.Name()))
}
