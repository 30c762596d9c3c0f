package mirror

import (
	"context"
	"crypto/md5"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

func serverSHA256(b []byte) schemes.ServerHash {
	s := sha256.Sum256(b)
	return schemes.ServerHash{Alg: "SHA-256", Hex: hex.EncodeToString(s[:])}
}

// TestVerifyProves: every file the server hashes is proven, counted per
// algorithm, and the state keeps the server's checksum.
func TestVerifyProves(t *testing.T) {
	m := sampleFTP()
	m.hash = func(path string, data []byte, _ int) schemes.ServerHash {
		if path == "README" {
			s := md5.Sum(data)
			return schemes.ServerHash{Alg: "MD5", Hex: hex.EncodeToString(s[:])}
		}
		if path == "pub/a.txt" {
			return schemes.ServerHash{} // no hash for this one
		}
		return serverSHA256(data)
	}
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Jobs: 2})
	if err != nil || sum.Failed != 0 {
		t.Fatalf("%v %+v", err, sum.Failures)
	}
	if sum.Verified != 7 || sum.VerifyAlgorithms["SHA-256"] != 6 || sum.VerifyAlgorithms["MD5"] != 1 || sum.Unverified != 1 {
		t.Errorf("verified %d %v, unverified %d", sum.Verified, sum.VerifyAlgorithms, sum.Unverified)
	}
	st, err := openStore(filepath.Join(dir, stateDir, "state.db"), true)
	if err != nil {
		t.Fatal(err)
	}
	defer st.close()
	rec, _ := st.getFile("pub/b.bin")
	if want := "SHA-256:" + serverSHA256([]byte("\x00\x01\x02binary")).Hex; rec.ServerHash != want {
		t.Errorf("state's server hash %q, want %q", rec.ServerHash, want)
	}
}

// TestVerifyCorruptedInFlight: bytes the server's checksum disowns are
// fetched again; a file whose bytes never match is not kept, fails as
// refused, and the next run fetches it again.
func TestVerifyCorruptedInFlight(t *testing.T) {
	m := newMemFTP()
	m.file("once", "corrupted once")
	m.file("always", "corrupted always")
	m.file("fine", "fine")
	m.hash = func(path string, data []byte, n int) schemes.ServerHash {
		if (path == "once" && n == 1) || path == "always" {
			return serverSHA256([]byte("other bytes")) // what the relay's flipped bit looks like from here
		}
		return serverSHA256(data)
	}
	dir := t.TempDir()
	opts := Options{Jobs: 1, Retries: 2, RetryWait: time.Millisecond}
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.New != 2 || sum.Failed != 1 || sum.Verified != 2 || sum.RetriesByKind["verify"] != 1+2 {
		t.Errorf("summary %+v", sum)
	}
	if len(sum.Failures) != 1 || !errors.Is(sum.Failures[0].Err, schemes.ErrRefused) || !strings.Contains(sum.Failures[0].Error, "in each of 3 transfers: not kept") {
		t.Errorf("failures %+v", sum.Failures)
	}
	if m.bodyCount("always") != 3 || m.bodyCount("once") != 2 {
		t.Errorf("bodies: always %d, once %d", m.bodyCount("always"), m.bodyCount("once"))
	}
	if _, err := os.Lstat(filepath.Join(dir, "always")); err == nil {
		t.Error("a file whose bytes never matched was kept")
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "once")); string(b) != "corrupted once" {
		t.Errorf("once: %q", b)
	}
	if n := tempFiles(t, dir); len(n) != 0 {
		t.Errorf("temp files left: %q", n)
	}
	// Mended, the next run fetches it again.
	m.hash = func(_ string, data []byte, _ int) schemes.ServerHash { return serverSHA256(data) }
	sum, err = Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, opts)
	if err != nil || sum.New != 1 || sum.Failed != 0 || sum.Unchanged != 2 {
		t.Errorf("next run: %v %+v", err, sum)
	}
}

// TestVerifyAlwaysAndNever: always fails each file without a checksum
// (refused, not kept); never asks for none.
func TestVerifyAlwaysAndNever(t *testing.T) {
	m := newMemFTP()
	m.file("f", "f")
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Verify: VerifyAlways})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || !errors.Is(sum.Failures[0].Err, schemes.ErrRefused) || !strings.Contains(sum.Failures[0].Error, "no checksum") {
		t.Errorf("always without hashes: %+v", sum.Failures)
	}
	if _, err := os.Lstat(filepath.Join(dir, "f")); err == nil {
		t.Error("an unproven file was kept")
	}
	asked := m.hashAsked
	sum, err = Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", t.TempDir(), Options{Verify: VerifyNever})
	if err != nil || sum.Failed != 0 || sum.Unverified != 0 || m.hashAsked != asked {
		t.Errorf("never: %v %+v, hash asked %d times", err, sum, m.hashAsked-asked)
	}
	if _, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", t.TempDir(), Options{Verify: "sometimes"}); !errors.Is(err, schemes.ErrUsage) {
		t.Errorf("verify sometimes: %v", err)
	}
}
