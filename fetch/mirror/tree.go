package mirror

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// Every local write goes through e.root, an os.Root on DIR: a name or a
// symlink already in DIR that points elsewhere cannot carry a write out.
// On top of that the mirror never writes through a symlink at all: one met
// on the way to a file is replaced by a real directory, and one it makes
// (SymlinksKeep) is renamed into place, replacing a link, not its target.

// tmpName is the temporary name of a local path, derived from the path so
// that the next run finds a partial file again.
func tmpName(path string) string {
	sum := sha256.Sum256([]byte(path))
	return "p-" + hex.EncodeToString(sum[:16])
}

func (e *engine) tmpPath(name string) string { return e.tmpDir + "/" + name }

// cleanTemps removes every temporary file the state does not mark as a
// partial file to resume, so no leftover of a killed run survives this one.
func (e *engine) cleanTemps() {
	keep := map[string]bool{}
	e.st.scanTemps(func(name, path string) {
		if rec, ok := e.st.getFile(path); ok && rec.Partial && rec.Tmp == name {
			keep[name] = true
		} else {
			e.st.delTemp(name)
		}
	})
	d, err := e.root.Open(e.tmpDir)
	if err != nil {
		return
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(256)
		for _, n := range names {
			if !keep[n] {
				e.root.Remove(e.tmpPath(n))
			}
		}
		if err != nil {
			return
		}
	}
}

// ensureDir makes the local path dir a real directory, component by
// component, replacing a symlink or a stale file met on the way.
func (e *engine) ensureDir(dir string) error {
	if dir == "" {
		return nil
	}
	e.mu.Lock()
	_, done := e.dirs[dir]
	e.mu.Unlock()
	if done {
		return nil
	}
	p := ""
	for seg := range strings.SplitSeq(dir, "/") {
		p = join(p, seg)
		fi, err := e.root.Lstat(p)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return err
		case fi.IsDir():
			continue
		case fi.Mode()&fs.ModeSymlink != 0:
			// Never written through, whether it came from elsewhere or
			// is a link this mirror made (the remote made it a directory).
			if err := e.root.Remove(p); err != nil {
				return err
			}
			if rec, ok := e.st.getFile(p); ok && rec.Kind == kindLink {
				e.st.delFile(p)
			}
		default:
			// A file where a directory must go: replace it only if it is a
			// file an earlier run wrote (the remote turned it into a directory).
			if rec, ok := e.st.getFile(p); ok && rec.Run != e.run {
				if err := e.root.Remove(p); err != nil {
					return err
				}
				e.st.delFile(p)
			} else {
				return fmt.Errorf("local path %q is a file, but a directory must go there", p)
			}
		}
		if err := e.root.Mkdir(p, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	e.mu.Lock()
	e.dirs[dir] = struct{}{}
	e.mu.Unlock()
	return nil
}

// install moves a complete temporary file into place and gives it the
// remote modification time; existed reports that it replaced something.
func (e *engine) install(tmp, path string, mod time.Time) (existed bool, err error) {
	if err := e.ensureDir(parent(path)); err != nil {
		return false, err
	}
	fi, err := e.root.Lstat(path)
	if err == nil && fi.IsDir() {
		return true, fmt.Errorf("local path %q is a directory", path)
	}
	existed = err == nil
	// rename(2) replaces a symlink at path itself, never its target.
	if err := e.root.Rename(e.tmpPath(tmp), path); err != nil {
		return existed, err
	}
	if !mod.IsZero() {
		e.root.Chtimes(path, mod, mod)
	}
	return existed, nil
}

// localOK reports whether path is a regular file of size bytes.
func (e *engine) localOK(path string, size int64) bool {
	if e.root == nil {
		return false
	}
	fi, err := e.root.Lstat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Size() == size
}

// held reports whether the mirror holds the file at path that rec
// records complete: a local copy of its size, or with StateOnly the
// record alone (but for an HTML page, whose links come from its bytes).
func (e *engine) held(path string, rec record) bool {
	if e.opts.StateOnly {
		return !rec.HTML
	}
	return e.localOK(path, rec.Size)
}

func (e *engine) exists(path string) bool {
	if e.root == nil {
		return false
	}
	_, err := e.root.Lstat(path)
	return err == nil
}

// counter adds the bytes written through it to the mirror's byte count,
// and to the item's (t may be nil).
type counter struct {
	e *engine
	t *itemTrack
}

func (c counter) Write(p []byte) (int, error) {
	c.e.bytes.Add(int64(len(p)))
	c.t.add(int64(len(p)))
	return len(p), nil
}

// receive writes resp's body into the temporary file tmp, appending to the
// offset bytes already there when the server resumed at offset, and returns
// the file's size and sha256.
//
// extra, when not nil, hashes the same bytes (the whole file, the prefix
// of a resumed one included), for a server's checksum to be compared with.
func (e *engine) receive(resp *fetch.Response, tmp string, offset int64, count bool, t *itemTrack, extra hash.Hash) (int64, string, error) {
	h := hash.Hash(sha256.New())
	if extra != nil {
		h = &twoHashes{h, extra}
	}
	flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	have := int64(0)
	if offset > 0 && resp.Offset == offset {
		if err := hashPrefix(e.root, e.tmpPath(tmp), offset, h); err != nil {
			return 0, "", err
		}
		flag, have = os.O_WRONLY, offset
	}
	// Through the temp directory's own root: one openat, not one per component.
	f, err := e.tmp.OpenFile(tmp, flag, 0o644)
	if err != nil {
		return 0, "", err
	}
	if have > 0 {
		if err := f.Truncate(have); err != nil {
			f.Close()
			return 0, "", err
		}
		if _, err := f.Seek(have, io.SeekStart); err != nil {
			f.Close()
			return 0, "", err
		}
	}
	var w io.Writer = io.MultiWriter(f, h)
	if count {
		w = io.MultiWriter(f, h, counter{e, t})
	}
	n, err := io.Copy(w, resp.Body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil && !errors.Is(err, schemes.ErrInterrupted) {
		err = schemes.Errorf(schemes.ErrInterrupted, "transfer broke off after %d bytes: %w", have+n, err)
	}
	if t, ok := h.(*twoHashes); ok {
		h = t.Hash
	}
	return have + n, hex.EncodeToString(h.Sum(nil)), err
}

// twoHashes writes to both hashes; its Sum is the first's.
type twoHashes struct {
	hash.Hash
	second hash.Hash
}

func (t *twoHashes) Write(p []byte) (int, error) {
	t.second.Write(p)
	return t.Hash.Write(p)
}

func hashPrefix(root *os.Root, name string, n int64, h hash.Hash) error {
	f, err := root.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	got, err := io.Copy(h, io.LimitReader(f, n))
	if err == nil && got != n {
		err = fmt.Errorf("partial file %s is shorter than recorded", name)
	}
	return err
}
