// Package atomicfile writes a file whole or not at all: through a
// temporary file beside it, flushed, synced and renamed over the name, so
// that a reader (or a run killed meanwhile) sees the old file or the new
// one, never a part of it.
package atomicfile

import (
	"bufio"
	"os"
	"path/filepath"
)

// Write writes the file at path with the bytes fill writes, mode perm.
// On any error the temporary file is removed and path is left as it was.
func Write(path string, perm os.FileMode, fill func(*bufio.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-")
	if err != nil {
		return err
	}
	tmp := f.Name()
	w := bufio.NewWriterSize(f, 64<<10)
	err = fill(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Chmod(perm)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
