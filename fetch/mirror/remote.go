package mirror

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// Kinds of Difference that CheckRemote finds on the server.
const (
	DiffRemoteChanged = "remote-changed" // the server's file is not the one the mirror wrote
	DiffGone          = "gone"           // the state records it, the server no longer lists it
	DiffNew           = "new"            // the server lists it, the state does not record it
)

// CheckRemote is Check, and then a comparison of the state with the
// server the mirror was made from, read-only on both sides: every
// directory the state records as listed is listed again (its URL is the
// state's), each file the server lists is compared with the record of
// its local path, by the server's own checksum where it offers one (the
// strongest: schemes.Request.ListHashes, asked for in pipelined batches
// per directory, or an MLSD hash fact), by the size and time its listing
// shows where it offers none, and each Difference says which; a recorded
// file the server no longer lists is DiffGone (every file of a directory
// it no longer lists too), a file or directory it lists that the state
// does not record DiffNew (a directory as one line, "PATH/", not walked).
//
// A checksum of another algorithm than the one the mirror kept is
// compared with the local file hashed in that algorithm, when Check found
// the file intact; otherwise the listing's size and time decide. What the
// mirror left out on purpose (a filter, a link it did not make) is
// reported new: the state does not keep why. The error is Check's, or a
// listing that could not be read (its kind kept for errors.Is), which
// ends the comparison.
func CheckRemote(ctx context.Context, c *fetch.Client, dir string, report func(Difference)) (CheckSummary, error) {
	localDiffs := map[string]bool{}
	sum, err := Check(ctx, dir, func(d Difference) {
		localDiffs[d.Path] = true
		report(d)
	})
	if err != nil {
		return sum, err
	}
	sum.Remote = true
	st, err := openStore(filepath.Join(dir, stateDir, "state.db"), true)
	if err != nil {
		return sum, fmt.Errorf("mirror state: %w", err)
	}
	defer st.close()
	root, err := os.OpenRoot(dir)
	if err != nil {
		return sum, err
	}
	defer root.Close()
	rc := &remoteCheck{ctx: ctx, c: c, st: st, root: root, sum: &sum, report: report, changed: localDiffs,
		buf: make([]byte, 256<<10)}
	// Key order: a directory comes before what lies in it, so a directory
	// found gone is known before its own listing record is reached. scan
	// calls back outside its transaction, a chunk at a time.
	var walkErr error
	dirs := 0
	err = scan(st, bucketListings, func(key string, lr listingRecord) {
		if walkErr != nil || !strings.HasPrefix(key, "d:") || lr.Listed == 0 || lr.URL == "" {
			return
		}
		dirs++
		if rc.goneDir(lr.Path) {
			return
		}
		if walkErr = ctx.Err(); walkErr == nil {
			walkErr = rc.dir(lr)
		}
	})
	switch {
	case err != nil:
		return sum, fmt.Errorf("mirror state: %w", err)
	case walkErr != nil:
		return sum, walkErr
	case dirs == 0:
		return sum, fmt.Errorf("remote check: the state of %s records no directory listing to compare (it reads FTP and file trees): %w", dir, schemes.ErrUsage)
	}
	return sum, nil
}

// remoteCheck is one CheckRemote's walk.
type remoteCheck struct {
	ctx     context.Context
	c       *fetch.Client
	st      *store
	root    *os.Root
	sum     *CheckSummary
	report  func(Difference)
	changed map[string]bool // local paths Check found changed or missing
	gone    []string        // directories the server no longer lists
	buf     []byte
}

func (rc *remoteCheck) diff(d Difference) {
	switch d.Change {
	case DiffRemoteChanged:
		rc.sum.RemoteChanged++
	case DiffGone:
		rc.sum.Gone++
	case DiffNew:
		rc.sum.New++
	}
	rc.report(d)
}

// goneDir reports whether p lies in a directory the server no longer lists.
func (rc *remoteCheck) goneDir(p string) bool {
	for _, g := range rc.gone {
		if p == g || strings.HasPrefix(p, g+"/") {
			return true
		}
	}
	return false
}

// dir lists one recorded directory and compares what it holds.
func (rc *remoteCheck) dir(lr listingRecord) error {
	resp, err := rc.c.Do(rc.ctx, &fetch.Request{URL: lr.URL, Call: schemes.Call{ListHashes: true}})
	if err != nil {
		return fmt.Errorf("listing %s: %w", lr.URL, err)
	}
	defer resp.Close()
	if resp.Kind != schemes.KindListing || resp.Listing == nil {
		return schemes.Errorf(schemes.ErrRefused, "%s is no longer a directory", lr.URL)
	}
	rc.sum.Listings++
	listed := map[string]string{} // name -> entry type
	// Versions (VMS "NAME;N") the state does not record as such: the
	// mirror kept the highest of each name under the plain name.
	highest := map[string]schemes.Entry{}
	for {
		ent, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("listing %s: %w", lr.URL, err)
		}
		if ent.Type == schemes.TypeUnparsed || ent.Name == "." || ent.Name == ".." {
			continue
		}
		name := ent.Name
		if ent.Version > 0 && ent.Type != schemes.TypeDir {
			versioned := name + ";" + strconv.Itoa(ent.Version)
			if p, err := child(lr.Path, versioned); err == nil {
				if rec, ok := rc.st.getFile(p); ok {
					listed[versioned] = ent.Type
					rc.entry(p, ent, rec, true)
					continue
				}
			}
			if h, seen := highest[name]; !seen || ent.Version > h.Version {
				highest[name] = ent
			}
			continue
		}
		rc.named(lr.Path, name, ent, listed)
	}
	for _, name := range slices.Sorted(maps.Keys(highest)) {
		rc.named(lr.Path, name, highest[name], listed)
	}
	return rc.vanished(lr.Path, listed)
}

// named compares the entry ent, listed under name in directory d, with
// the state's record of it.
func (rc *remoteCheck) named(d, name string, ent schemes.Entry, listed map[string]string) {
	p, err := child(d, name)
	if err != nil {
		return // a name the mirror refused: never recorded
	}
	listed[name] = ent.Type
	rec, ok := rc.st.getFile(p)
	rc.entry(p, ent, rec, ok)
}

// entry compares the entry ent at local path p with its record rec (ok:
// the state has one).
func (rc *remoteCheck) entry(p string, ent schemes.Entry, rec record, ok bool) {
	switch {
	case ent.Type == schemes.TypeDir:
		if _, known := rc.st.getListing(dirKey(p)); !known {
			rc.diff(Difference{Change: DiffNew, Path: p + "/", Detail: "a directory"})
		}
	case ent.Type == schemes.TypeLink:
		if ok && rec.Kind == kindLink && ent.Target != "" && ent.Target != rec.Target {
			rc.diff(Difference{Change: DiffRemoteChanged, Path: p, Detail: fmt.Sprintf("a link to %q, the mirror made one to %q", ent.Target, rec.Target)})
		}
	case ent.Type == schemes.TypeOther:
	case !ok:
		rc.diff(Difference{Change: DiffNew, Path: p})
	case rec.Kind == kindFile && !rec.Partial:
		rc.file(p, ent, rec)
	}
}

// vanished reports the recorded files in directory d (and below) that its
// listing no longer names.
func (rc *remoteCheck) vanished(d string, listed map[string]string) error {
	prefix := ""
	if d != "" {
		prefix = d + "/"
	}
	var goneDirs []string
	err := scanPrefix(rc.st, bucketFiles, prefix, func(p string, rec record) {
		if rec.Partial {
			return
		}
		rest := p[len(prefix):]
		first, below, nested := strings.Cut(rest, "/")
		typ, ok := listed[first]
		switch {
		case ok && !nested:
			return
		case ok && typ == schemes.TypeDir:
			return // its own listing compares it
		case nested && below != "" && (len(goneDirs) == 0 || goneDirs[len(goneDirs)-1] != prefix+first):
			goneDirs = append(goneDirs, prefix+first)
		}
		rc.diff(Difference{Change: DiffGone, Path: p})
	})
	rc.gone = append(rc.gone, goneDirs...)
	return err
}

// file compares one listed file with its record.
func (rc *remoteCheck) file(p string, ent schemes.Entry, rec record) {
	rc.sum.RemoteFiles++
	if ent.Hash.Alg != "" {
		kept := rc.keptHash(p, rec, ent.Hash.Alg)
		if kept != "" {
			rc.count(ent.Hash.Alg)
			if kept != ent.Hash.Hex {
				rc.diff(Difference{Change: DiffRemoteChanged, Path: p,
					Detail: fmt.Sprintf("the server's %s %s, the mirror's %s", ent.Hash.Alg, ent.Hash.Hex, kept)})
			}
			return
		}
	}
	rc.sum.ByListing++
	why := "by size and time: the server gave no checksum of it"
	if ent.Hash.Alg != "" {
		why = "by size and time: the local copy changed, so the server's " + ent.Hash.Alg + " has nothing to be compared with"
	}
	switch {
	case ent.Size >= 0 && rec.ListSize >= 0 && ent.Size != rec.ListSize:
		rc.diff(Difference{Change: DiffRemoteChanged, Path: p,
			Detail: fmt.Sprintf("%d bytes, the mirror's listing %d (%s)", ent.Size, rec.ListSize, why)})
	case !ent.Modified.IsZero() && !rec.ListModified.IsZero() &&
		!sameListTime(ent.Modified, ent.Precision, rec.ListModified, rec.ListPrec):
		rc.diff(Difference{Change: DiffRemoteChanged, Path: p,
			Detail: fmt.Sprintf("modified %s, the mirror's listing %s (%s)", listedTime(ent.Modified, ent.Precision), listedTime(rec.ListModified, rec.ListPrec), why)})
	}
}

func (rc *remoteCheck) count(alg string) {
	if rc.sum.ByHash == nil {
		rc.sum.ByHash = map[string]int64{}
	}
	rc.sum.ByHash[alg]++
}

// keptHash is the hex digest in alg of the file the mirror wrote at p: the
// server's own as the state keeps it, the state's sha256, or the local
// file hashed in alg when Check found it intact; "" when none can be had.
func (rc *remoteCheck) keptHash(p string, rec record, alg string) string {
	if a, h, ok := strings.Cut(rec.ServerHash, ":"); ok && a == alg {
		return h
	}
	if alg == "SHA-256" && rec.SHA256 != "" {
		return rec.SHA256
	}
	if _, bad := rc.changed[p]; bad {
		return ""
	}
	h := newHash(alg)
	if h == nil {
		return ""
	}
	f, err := rc.root.Open(p)
	if err != nil {
		return ""
	}
	defer f.Close()
	local := newHash("SHA-256")
	if _, err := io.CopyBuffer(io.MultiWriter(h, local), struct{ io.Reader }{f}, rc.buf); err != nil {
		return ""
	}
	if rec.SHA256 != "" && hex.EncodeToString(local.Sum(nil)) != rec.SHA256 {
		return "" // changed since Check read it
	}
	return hex.EncodeToString(h.Sum(nil))
}

// listedTime writes a listing's time as far as it is known.
func listedTime(t time.Time, prec string) string {
	switch prec {
	case schemes.PrecisionDay, schemes.PrecisionAmbiguous:
		return t.Format("2006-01-02")
	case schemes.PrecisionMinute:
		return t.Format("2006-01-02 15:04")
	}
	return t.Format("2006-01-02 15:04:05")
}

// scanPrefix calls fn for every record of bucket whose key begins with
// prefix, in key order, reading chunks of scanChunk records in one
// transaction each, as scan does.
func scanPrefix[T any](s *store, bucket []byte, prefix string, fn func(key string, v T)) error {
	after := []byte(prefix)
	first := true
	for {
		type kv struct {
			k string
			v T
		}
		var chunk []kv
		done := false
		err := s.db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			if b == nil {
				done = true
				return nil
			}
			c := b.Cursor()
			k, v := c.Seek(after)
			if !first && k != nil && bytes.Equal(k, after) {
				k, v = c.Next()
			}
			for ; k != nil && len(chunk) < scanChunk; k, v = c.Next() {
				if !bytes.HasPrefix(k, []byte(prefix)) {
					done = true
					break
				}
				var val T
				if json.Unmarshal(v, &val) == nil {
					chunk = append(chunk, kv{string(k), val})
				}
			}
			if k == nil {
				done = true
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range chunk {
			fn(e.k, e.v)
		}
		if done || len(chunk) == 0 {
			return nil
		}
		after, first = []byte(chunk[len(chunk)-1].k), false
	}
}
