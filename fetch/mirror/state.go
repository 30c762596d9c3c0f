package mirror

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// The state lives in one bbolt file, DIR/.gofer/state.db. bbolt was chosen
// over a JSON manifest or journal because the mirror looks records up one
// path at a time and walks them in key order for Options.Delete: a B+tree on disk
// answers both without holding the whole manifest in memory, so a tree of a
// million files costs no more heap than a tree of ten. Its exclusive file
// lock also keeps two mirrors from writing one DIR at once, and every commit
// is atomic, so a kill at any moment leaves either the old or the new
// record, never half of one.
//
// The file is opened with NoSync: a killed process loses nothing (its pages
// are already in the kernel), and the state is synced once at the end. After
// a power loss the worst case is a record that is missing, which only makes
// the next run fetch that file again.

var (
	bucketFiles    = []byte("files")    // local path -> record
	bucketListings = []byte("listings") // listing key -> listingRecord
	bucketTemps    = []byte("temps")    // temp name -> local path, for partial files
	bucketMeta     = []byte("meta")
	keyRun         = []byte("run")
)

// record is what the mirror knows about one local path.
type record struct {
	URL  string `json:"url"`
	Kind string `json:"kind"` // kindFile, kindLink, kindMenu
	// Size, Modified and SHA256 describe the local file as last written.
	Size     int64     `json:"size"`
	Modified time.Time `json:"modified,omitzero"`
	// ModPrec is how far Modified is known when less than to the second
	// (a LIST time the server gave no MDTM for); a later listing that
	// knows the time to the second refines it (keep).
	ModPrec string `json:"modified_precision,omitempty"`
	SHA256  string `json:"sha256,omitempty"`
	// ListSize and ListModified are what the listing said, compared as
	// they are on the next run (a listing's own precision, not the body's).
	ListSize     int64     `json:"list_size"`
	ListModified time.Time `json:"list_modified,omitzero"`
	ListPrec     string    `json:"list_precision,omitempty"`
	Target       string    `json:"target,omitempty"`
	// Created marks a link the mirror made (SymlinksKeep), Target
	// being what it points to: only such a link is replaced or removed.
	Created bool `json:"created,omitempty"`
	HTML    bool `json:"html,omitempty"`
	// Partial marks a file whose bytes so far wait in .gofer/tmp/Tmp; only
	// such a file is ever resumed.
	Partial bool `json:"partial,omitempty"`
	// ServerHash is the server's own checksum of the file as written,
	// "ALG:HEX" (schemes.ServerHash), when the server gave one and it matched.
	ServerHash string `json:"server_hash,omitempty"`
	Tmp        string `json:"tmp,omitempty"`
	// Run is the generation that last saw the path; From the listing that named it.
	Run  uint64 `json:"run"`
	From string `json:"from"`
}

const (
	kindFile = "file"
	kindLink = "link"
	kindMenu = "menu" // a gophermap or its readable index
)

// listingRecord is what the mirror knows about one directory, menu or page.
type listingRecord struct {
	URL  string `json:"url"`
	Path string `json:"path"`
	From string `json:"from"`
	// Seen is the generation whose parent named it, Listed the one that
	// read it to its end: only a listing read to its end proves a file gone.
	Seen   uint64 `json:"seen"`
	Listed uint64 `json:"listed"`
	// Modified is the directory's time as its parent's listing gave it
	// (Precision: how far it is known), set on the directory at the end.
	Modified  time.Time `json:"modified,omitzero"`
	Precision string    `json:"precision,omitempty"`
}

type storeOp struct {
	bucket []byte
	key    []byte
	val    []byte // nil deletes
	done   chan struct{}
}

// store is the state database with one writer goroutine, so that workers
// never wait for a commit and many records share one transaction.
type store struct {
	db *bolt.DB
	ro bool
	// overlay holds a dry run's writes in memory, so that the run sees
	// its own records (for Options.Delete) without touching the file.
	overlay map[string][]byte
	ovMu    sync.Mutex
	ops     chan storeOp
	wg      sync.WaitGroup
	errM    sync.Mutex
	err     error
	// fi is the state file, whose mapping the writer releases after every
	// releaseAfter bytes of pages it commits (releaseMapped); releasedAt is
	// bbolt's count of page bytes written at the last release.
	fi         os.FileInfo
	releasedAt int64
}

// releaseAfter is how many bytes of pages the writer commits between two
// releases of the state file's mapping: the resident set holds about this
// much of the file (and what reads touch meanwhile), however large the
// file grows. Pages, not records: a commit rewrites whole pages (a leaf
// and the branches above it) for a few records, and the next reads touch
// those new pages.
const releaseAfter = 4 << 20

// openStore opens (creating unless readOnly) the state file at path.
func openStore(path string, readOnly bool) (*store, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, NoSync: true, ReadOnly: readOnly})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("another gofer mirror is using %s", path)
	}
	if err != nil {
		return nil, err
	}
	fi, err := os.Stat(path)
	if err != nil {
		db.Close()
		return nil, err
	}
	s := &store{db: db, ro: readOnly, fi: fi}
	if !readOnly {
		err = db.Update(func(tx *bolt.Tx) error {
			for _, b := range [][]byte{bucketFiles, bucketListings, bucketTemps, bucketMeta} {
				if _, err := tx.CreateBucketIfNotExists(b); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			db.Close()
			return nil, err
		}
		s.ops = make(chan storeOp, 4096)
		s.wg.Add(1)
		go s.writer()
	}
	return s, nil
}

// beginRun returns the new generation number.
func (s *store) beginRun() (uint64, error) {
	var run uint64
	if s == nil {
		return 1, nil
	}
	if s.ro {
		err := s.db.View(func(tx *bolt.Tx) error {
			if b := tx.Bucket(bucketMeta); b != nil {
				if v := b.Get(keyRun); len(v) == 8 {
					run = binary.BigEndian.Uint64(v)
				}
			}
			return nil
		})
		return run + 1, err
	}
	err := s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta)
		if v := b.Get(keyRun); len(v) == 8 {
			run = binary.BigEndian.Uint64(v)
		}
		run++
		return b.Put(keyRun, binary.BigEndian.AppendUint64(nil, run))
	})
	return run, err
}

func (s *store) writer() {
	defer s.wg.Done()
	for op := range s.ops {
		batch := []storeOp{op}
	drain:
		for len(batch) < 8192 {
			select {
			case more, ok := <-s.ops:
				if !ok {
					break drain
				}
				batch = append(batch, more)
			default:
				break drain
			}
		}
		err := s.db.Update(func(tx *bolt.Tx) error {
			for _, op := range batch {
				if op.bucket == nil {
					continue
				}
				b := tx.Bucket(op.bucket)
				var err error
				if op.val == nil {
					err = b.Delete(op.key)
				} else {
					err = b.Put(op.key, op.val)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		stats := s.db.Stats()
		if alloc := stats.TxStats.GetPageAlloc(); err == nil && alloc-s.releasedAt >= releaseAfter {
			s.releasedAt = alloc
			// The read transaction holds bbolt's mapping in place (a
			// commit that grows the file remaps it). A release that fails
			// costs memory only, never the state: it is not an error.
			s.db.View(func(*bolt.Tx) error {
				releaseMapped(s.fi)
				return nil
			})
		}
		if err != nil {
			s.errM.Lock()
			if s.err == nil {
				s.err = err
			}
			s.errM.Unlock()
		}
		for _, op := range batch {
			if op.done != nil {
				close(op.done)
			}
		}
	}
}

func (s *store) write(bucket []byte, key string, v any) {
	if s == nil {
		return
	}
	var val []byte
	if v != nil {
		var err error
		if val, err = json.Marshal(v); err != nil {
			panic(err) // records are plain structs: cannot fail
		}
	}
	if s.ro {
		s.ovMu.Lock()
		if s.overlay == nil {
			s.overlay = map[string][]byte{}
		}
		if val == nil {
			val = []byte{} // deleted
		}
		s.overlay[string(bucket)+"\x00"+key] = val
		s.ovMu.Unlock()
		return
	}
	s.ops <- storeOp{bucket: bucket, key: []byte(key), val: val}
}

// dirKey is the listing key of the directory (or Gopher menu) at path.
func dirKey(path string) string { return "d:" + path }

func (s *store) putFile(path string, r record)          { s.write(bucketFiles, path, r) }
func (s *store) delFile(path string)                    { s.write(bucketFiles, path, nil) }
func (s *store) putListing(key string, r listingRecord) { s.write(bucketListings, key, r) }
func (s *store) delListing(key string)                  { s.write(bucketListings, key, nil) }
func (s *store) putTemp(name, path string)              { s.write(bucketTemps, name, path) }
func (s *store) delTemp(name string)                    { s.write(bucketTemps, name, nil) }
func (s *store) getListing(key string) (listingRecord, bool) {
	return getJSON[listingRecord](s, bucketListings, key)
}
func (s *store) getFile(path string) (record, bool) { return getJSON[record](s, bucketFiles, path) }

// flush waits until every write queued so far is committed.
func (s *store) flush() error {
	if s == nil {
		return nil
	}
	if !s.ro {
		done := make(chan struct{})
		s.ops <- storeOp{done: done}
		<-done
	}
	s.errM.Lock()
	defer s.errM.Unlock()
	return s.err
}

func getJSON[T any](s *store, bucket []byte, key string) (T, bool) {
	var v T
	if s == nil {
		return v, false
	}
	if s.ro {
		s.ovMu.Lock()
		raw, ok := s.overlay[string(bucket)+"\x00"+key]
		s.ovMu.Unlock()
		if ok {
			return v, len(raw) > 0 && json.Unmarshal(raw, &v) == nil
		}
	}
	found := false
	s.db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucket)
		if b == nil {
			return nil
		}
		if raw := b.Get([]byte(key)); raw != nil {
			found = json.Unmarshal(raw, &v) == nil
		}
		return nil
	})
	return v, found
}

// scanFiles calls fn for every file record in key order, in chunks so that
// fn may queue writes (which the open read transaction would otherwise
// hold up) and so that memory stays bounded.
func (s *store) scanFiles(fn func(path string, r record)) error {
	return scan(s, bucketFiles, fn)
}

func (s *store) scanTemps(fn func(name, path string)) error {
	return scan(s, bucketTemps, fn)
}

// scanChunk is how many records scan reads in one transaction.
const scanChunk = 256

func scan[T any](s *store, bucket []byte, fn func(key string, v T)) error {
	if s == nil {
		return nil
	}
	var after []byte
	for {
		type kv struct {
			k string
			v T
		}
		var chunk []kv
		err := s.db.View(func(tx *bolt.Tx) error {
			b := tx.Bucket(bucket)
			if b == nil {
				return nil
			}
			c := b.Cursor()
			k, v := c.First()
			if after != nil {
				k, v = c.Seek(after)
				if k != nil && bytes.Equal(k, after) {
					k, v = c.Next()
				}
			}
			for ; k != nil && len(chunk) < scanChunk; k, v = c.Next() {
				var val T
				if json.Unmarshal(v, &val) == nil {
					chunk = append(chunk, kv{string(k), val})
				}
			}
			// A walk reads pages all over the file (and the kernel maps
			// their neighbours with each): release them chunk by chunk,
			// while this transaction holds the mapping in place.
			if s.fi != nil {
				releaseMapped(s.fi)
			}
			return nil
		})
		if err != nil || len(chunk) == 0 {
			return err
		}
		after = []byte(chunk[len(chunk)-1].k)
		for _, e := range chunk {
			fn(e.k, e.v)
		}
	}
}

// close commits what is queued, syncs the file once and closes it.
func (s *store) close() error {
	if s == nil {
		return nil
	}
	var err error
	if !s.ro {
		close(s.ops)
		s.wg.Wait()
		err = s.err
		if e := s.db.Sync(); err == nil {
			err = e
		}
	}
	if e := s.db.Close(); err == nil {
		err = e
	}
	return err
}

// stateDirOK refuses a state directory that is not a plain directory (a
// symlink planted there would take the state, and the temp files, out of DIR).
func stateDirOK(root *os.Root) error {
	fi, err := root.Lstat(stateDir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("%s is not a directory", stateDir)
	}
	return nil
}
