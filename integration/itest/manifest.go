package itest

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// ManifestPath is the sample archive's sha256 manifest, in sha256sum format
// with paths relative to ArchiveDir. It lives outside the archive so that a
// mirror of the archive can be compared with it file for file.
func ManifestPath() string { return filepath.Join(StateDir(), "archive.sha256") }

// CertPath is the harness's self-signed certificate, used by vsftpd (both
// instances) and nginx. It is its own CA: pass it as the CA file.
func CertPath() string { return filepath.Join(StateDir(), "tls", "cert.pem") }

// LogDir holds every server's log (vsftpd.log with each FTP command,
// nginx-access.log, ...); integration/LAYOUT.md names them.
func LogDir() string { return filepath.Join(StateDir(), "log") }

// ScratchDir is a world-writable directory served as
// ftp://127.0.0.21/scratch/ and http://127.0.0.80/scratch/. A test that
// needs a tree it may change creates its own subdirectory here; the
// archive itself is shared by every test and must not be changed.
func ScratchDir() string { return filepath.Join(StateDir(), "scratch") }

// Manifest reads ManifestPath: relative path (bytes as on disk, not
// necessarily UTF-8) to lower-case hex sha256.
func Manifest(t testing.TB) map[string]string {
	t.Helper()
	m, err := ReadManifest(ManifestPath())
	if err != nil {
		t.Fatalf("reading the archive manifest (run integration/up): %v", err)
	}
	return m
}

// ReadManifest reads a sha256sum file ("HEX  PATH" lines) into a map of
// path to hex digest; an empty one is an error.
func ReadManifest(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 || name == "" {
			return nil, fmt.Errorf("%s:%d: not a sha256sum line", path, n)
		}
		m[name] = sum
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(m) == 0 {
		return nil, fmt.Errorf("%s: empty manifest", path)
	}
	return m, nil
}

// DiffTree compares the regular files under dir with the manifest and
// returns one line per difference (missing, extra, or different content),
// sorted; none means dir holds exactly the archive's files. Directories
// named in skip (relative to dir, e.g. ".gofer") are not compared.
// Symlinks and other non-regular files count as extra.
func DiffTree(t testing.TB, dir string, skip ...string) []string {
	t.Helper()
	return diffTree(t, dir, Manifest(t), skip)
}

// DiffSubtree is DiffTree for a mirror of one archive directory: dir is
// compared with the manifest's files under prefix (e.g. "tree/d00/"),
// named relative to it.
func DiffSubtree(t testing.TB, dir, prefix string, skip ...string) []string {
	t.Helper()
	want := map[string]string{}
	for p, sum := range Manifest(t) {
		if rel, ok := strings.CutPrefix(p, prefix); ok {
			want[rel] = sum
		}
	}
	if len(want) == 0 {
		t.Fatalf("DiffSubtree: no archive file under %q", prefix)
	}
	return diffTree(t, dir, want, skip)
}

func diffTree(t testing.TB, dir string, want map[string]string, skip []string) []string {
	t.Helper()
	skipped := map[string]bool{}
	for _, s := range skip {
		skipped[filepath.ToSlash(filepath.Clean(s))] = true
	}
	var diffs []string
	seen := map[string]bool{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		if rel == "." {
			return nil
		}
		if skipped[rel] {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			return nil
		}
		seen[rel] = true
		sum, ok := want[rel]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("extra: %q", rel))
			return nil
		}
		if !d.Type().IsRegular() {
			diffs = append(diffs, fmt.Sprintf("not a regular file: %q", rel))
			return nil
		}
		got, err := FileSHA256(p)
		if err != nil {
			return err
		}
		if got != sum {
			diffs = append(diffs, fmt.Sprintf("content differs: %q", rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walking %s: %v", dir, err)
	}
	for rel := range want {
		if !seen[rel] {
			diffs = append(diffs, fmt.Sprintf("missing: %q", rel))
		}
	}
	sort.Strings(diffs)
	return diffs
}

// FileSHA256 is the hex sha256 of the file at path.
func FileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

var bigMu sync.Mutex

// BigFile returns the path and hex sha256 of a file of exactly size bytes
// of deterministic pseudo-random content, served as
// ftp://127.0.0.21/big/SIZE.bin and http://127.0.0.80/big/SIZE.bin (SIZE in
// decimal). It is made once per size and kept under StateDir()/big; test
// binaries running in parallel share it (a file lock keeps one writer).
func BigFile(t testing.TB, size int64) (path, sha256hex string) {
	t.Helper()
	if size < 0 {
		t.Fatalf("BigFile: negative size %d", size)
	}
	path, sum, err := bigFile(size)
	if err != nil {
		t.Fatalf("BigFile(%d): %v", size, err)
	}
	return path, sum
}

func bigFile(size int64) (string, string, error) {
	bigMu.Lock()
	defer bigMu.Unlock()
	dir := filepath.Join(StateDir(), "big")
	sumDir := filepath.Join(StateDir(), "etc", "big")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(sumDir, 0o755); err != nil {
		return "", "", err
	}
	name := strconv.FormatInt(size, 10)
	path := filepath.Join(dir, name+".bin")
	sumPath := filepath.Join(sumDir, name+".sha256")

	lock, err := os.OpenFile(filepath.Join(sumDir, "lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", "", err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)

	if fi, err := os.Stat(path); err == nil && fi.Size() == size {
		if b, err := os.ReadFile(sumPath); err == nil && len(strings.TrimSpace(string(b))) == 64 {
			return path, strings.TrimSpace(string(b)), nil
		}
	}
	sum, err := writeBig(path, size)
	if err != nil {
		return "", "", err
	}
	if err := os.WriteFile(sumPath, []byte(sum+"\n"), 0o644); err != nil {
		return "", "", err
	}
	return path, sum, nil
}

// writeBig writes size bytes of a splitmix64 stream seeded by size, under
// a temporary name renamed into place when complete.
func writeBig(path string, size int64) (string, error) {
	tmp := path + ".part"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	w := io.MultiWriter(f, h)
	state := uint64(size) ^ 0x676f666572
	buf := make([]byte, 1<<20)
	for left := size; left > 0; {
		for i := 0; i+8 <= len(buf); i += 8 {
			state += 0x9e3779b97f4a7c15
			z := state
			z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
			z = (z ^ (z >> 27)) * 0x94d049bb133111eb
			binary.LittleEndian.PutUint64(buf[i:], z^(z>>31))
		}
		n := int64(len(buf))
		if left < n {
			n = left
		}
		if _, err := w.Write(buf[:n]); err != nil {
			f.Close()
			os.Remove(tmp)
			return "", err
		}
		left -= n
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", err
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", errors.Join(err, os.Remove(tmp))
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
