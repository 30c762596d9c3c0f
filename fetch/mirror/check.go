package mirror

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Kinds of Difference.
const (
	DiffChanged = "changed" // the bytes differ from those the mirror wrote
	DiffMissing = "missing" // the state records it, DIR lacks it
	DiffAdded   = "added"   // DIR holds it, the state does not record it
)

// Difference is one local path whose content is not what the mirror's
// state records.
type Difference struct {
	Change string `json:"change"` // DiffChanged, DiffMissing, DiffAdded
	Path   string `json:"path"`   // relative to DIR, slash-separated
	// Detail says what differs for a changed path: the sizes or the sha256s.
	Detail string `json:"detail,omitempty"`
}

// CheckSummary counts what Check read and found.
type CheckSummary struct {
	Dir     string `json:"dir"`
	Files   int64  `json:"files"` // recorded files read and hashed
	Bytes   int64  `json:"bytes"`
	Links   int64  `json:"links"` // recorded symlinks looked at
	Changed int64  `json:"changed"`
	Missing int64  `json:"missing"`
	Added   int64  `json:"added"`
	// Remote says the server was asked too (CheckRemote): Listings
	// directories listed, RemoteFiles recorded files compared, ByHash of
	// them by the server's checksum (per algorithm), ByListing by size
	// and time for want of one; RemoteChanged, Gone and New count what
	// differs there.
	Remote        bool             `json:"remote,omitempty"`
	Listings      int64            `json:"listings"`
	RemoteFiles   int64            `json:"remote_files"`
	ByHash        map[string]int64 `json:"by_hash,omitempty"`
	ByListing     int64            `json:"by_listing"`
	RemoteChanged int64            `json:"remote_changed"`
	Gone          int64            `json:"gone"`
	New           int64            `json:"new"`
}

// Differs reports whether Check (or CheckRemote) found any difference.
func (s CheckSummary) Differs() bool {
	return s.Changed+s.Missing+s.Added+s.RemoteChanged+s.Gone+s.New > 0
}

// Check re-reads the mirror in dir against its state, without the
// network: every file the state records complete is hashed again (sha256,
// streamed) and compared, every symlink the mirror made is read again, and
// every file in DIR the state does not record is reported as added. The
// state directory (and in a bag the tag files beside data/) is not part of
// the tree. report receives each difference, the state's paths first (in
// their order), then the added ones (in the order of a walk of DIR). The
// error is for a DIR that holds no readable state, or a walk that ends
// early (ctx).
func Check(ctx context.Context, dir string, report func(Difference)) (CheckSummary, error) {
	c := &checker{sum: CheckSummary{Dir: dir}, report: report}
	root, st, err := openCheckState(dir)
	if err != nil {
		return c.sum, err
	}
	defer root.Close()
	defer st.close()
	c.root, c.st = root, st
	if err := c.recorded(ctx); err != nil {
		return c.sum, err
	}
	return c.sum, c.added(ctx, dir)
}

// openCheckState opens DIR and its state, read-only.
func openCheckState(dir string) (*os.Root, *store, error) {
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, nil, err
	}
	if err := stateDirOK(root); err != nil {
		root.Close()
		return nil, nil, fmt.Errorf("%s holds no mirror state: %w", dir, err)
	}
	db := filepath.Join(dir, stateDir, "state.db")
	if fi, err := root.Lstat(stateDir + "/state.db"); err != nil || !fi.Mode().IsRegular() {
		root.Close()
		return nil, nil, fmt.Errorf("%s holds no mirror state (%s)", dir, db)
	}
	st, err := openStore(db, true)
	if err != nil {
		root.Close()
		return nil, nil, fmt.Errorf("mirror state: %w", err)
	}
	return root, st, nil
}

// checker is one Check of a mirror's tree against its state.
type checker struct {
	root   *os.Root
	st     *store
	sum    CheckSummary
	report func(Difference)
}

// diff counts and reports one difference.
func (c *checker) diff(d Difference) {
	switch d.Change {
	case DiffChanged:
		c.sum.Changed++
	case DiffMissing:
		c.sum.Missing++
	case DiffAdded:
		c.sum.Added++
	}
	c.report(d)
}

// recorded re-reads every file and link the state records.
func (c *checker) recorded(ctx context.Context) error {
	buf := make([]byte, 256<<10)
	err := c.st.scanFiles(func(p string, rec record) {
		if ctx.Err() != nil || rec.Partial {
			return
		}
		if rec.Kind == kindLink {
			if rec.Created {
				c.link(p, rec)
			}
			return
		}
		c.sum.Files++
		n, got, err := hashLocal(c.root, p, buf)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			c.diff(Difference{Change: DiffMissing, Path: p})
		case err != nil:
			c.diff(Difference{Change: DiffChanged, Path: p, Detail: err.Error()})
		case n != rec.Size:
			c.sum.Bytes += n
			c.diff(Difference{Change: DiffChanged, Path: p, Detail: fmt.Sprintf("%d bytes, the mirror wrote %d", n, rec.Size)})
		case rec.SHA256 != "" && got != rec.SHA256:
			c.sum.Bytes += n
			c.diff(Difference{Change: DiffChanged, Path: p, Detail: fmt.Sprintf("sha256 %s, the mirror wrote %s", got, rec.SHA256)})
		default:
			c.sum.Bytes += n
		}
	})
	if err != nil {
		return fmt.Errorf("mirror state: %w", err)
	}
	return ctx.Err()
}

// link checks a link the mirror made: still there, and still to its
// target.
func (c *checker) link(p string, rec record) {
	c.sum.Links++
	fi, err := c.root.Lstat(p)
	if err != nil {
		c.diff(Difference{Change: DiffMissing, Path: p})
		return
	}
	target, err := c.root.Readlink(p)
	if fi.Mode()&fs.ModeSymlink == 0 || err != nil || target != rec.Target {
		c.diff(Difference{Change: DiffChanged, Path: p, Detail: fmt.Sprintf("not the link to %q the mirror made", rec.Target)})
	}
}

// added walks DIR for files the state does not record (gofer's state and
// a bag's tag files aside). filepath.WalkDir, which follows no symlink,
// rather than a walk of root.FS(): io/fs refuses names that are not
// UTF-8, as a remote name in Latin-1 is.
func (c *checker) added(ctx context.Context, dir string) error {
	bag := isBag(c.st)
	return filepath.WalkDir(dir, func(fp string, de fs.DirEntry, err error) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		p, rerr := filepath.Rel(dir, fp)
		if rerr != nil {
			return rerr
		}
		p = filepath.ToSlash(p)
		if err != nil {
			if p == "." {
				return err
			}
			c.diff(Difference{Change: DiffChanged, Path: p, Detail: err.Error()})
			return nil
		}
		if p == "." {
			return nil
		}
		top := !strings.Contains(p, "/")
		if top && p == stateDir {
			return fs.SkipDir
		}
		if de.IsDir() || top && bag && bagTagFile(p) {
			return nil
		}
		if _, ok := c.st.getFile(p); !ok {
			c.diff(Difference{Change: DiffAdded, Path: p})
		}
		return nil
	})
}

// hashLocal streams the file at p through sha256: its size and hex digest.
func hashLocal(root *os.Root, p string, buf []byte) (int64, string, error) {
	fi, err := root.Lstat(p)
	if err != nil {
		return 0, "", err
	}
	if !fi.Mode().IsRegular() {
		return 0, "", fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	f, err := root.Open(p)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	h := sha256.New()
	// A plain Reader: *os.File's WriteTo would allocate a buffer per file.
	n, err := io.CopyBuffer(h, struct{ io.Reader }{f}, buf)
	return n, hex.EncodeToString(h.Sum(nil)), err
}

// isBag reports whether the state says the mirror is kept as a bag.
func isBag(st *store) bool {
	v, _ := getJSON[bool](st, bucketMeta, keyBag)
	return v
}

// keyBag marks a state whose mirror is kept as a BagIt bag.
var keyBag = "bagit"

// bagTagFile reports whether a top-level name is one of a bag's tag files
// (bagit.txt, bag-info.txt, fetch.txt, manifests, their temporary files).
func bagTagFile(name string) bool {
	switch {
	case name == "bagit.txt", name == "bag-info.txt", name == "fetch.txt":
		return true
	case strings.HasPrefix(name, "manifest-"), strings.HasPrefix(name, "tagmanifest-"):
		return strings.HasSuffix(name, ".txt")
	case strings.HasPrefix(name, ".") && strings.Contains(name, ".txt.tmp-"):
		return true
	}
	return false
}
