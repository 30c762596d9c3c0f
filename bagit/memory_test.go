package bagit

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// zeros is an io.Reader of n zero bytes.
type zeros struct{ n int64 }

func (z *zeros) Read(p []byte) (int, error) {
	if z.n <= 0 {
		return 0, io.EOF
	}
	p = p[:min(int64(len(p)), z.n)]
	clear(p)
	z.n -= int64(len(p))
	return len(p), nil
}

// TestValidateStreams: validating a 64 MiB payload file allocates a small
// fraction of it: files are streamed through the hashes, not read whole.
func TestValidateStreams(t *testing.T) {
	const size = 64 << 20
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	f, err := os.Create(filepath.Join(dir, "data", "big"))
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.New()
	if _, err := io.Copy(io.MultiWriter(f, h), &zeros{size}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	WriteDeclaration(dir)
	sum := hex.EncodeToString(h.Sum(nil))
	WriteManifest(dir, "sha256", func(yield func(string, string) bool) { yield("data/big", sum) })
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	st, err := Validate(dir, func(p Problem) { t.Errorf("problem: %s", p) })
	runtime.ReadMemStats(&after)
	if err != nil || st.Bytes != size {
		t.Fatalf("%v %+v", err, st)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("validating a %d-byte file allocated %d bytes", size, alloc)
	}
}

// BenchmarkValidate validates a bag of 2000 small files with sha256 and
// md5 manifests: the time and the bytes allocated per bag.
func BenchmarkValidate(b *testing.B) {
	dir := b.TempDir()
	os.MkdirAll(filepath.Join(dir, "data"), 0o755)
	type ent struct{ p, s256, m5 string }
	var ents []ent
	for i := range 2000 {
		p := fmt.Sprintf("data/f%04d", i)
		body := []byte(fmt.Sprintf("file %d\n", i))
		os.WriteFile(filepath.Join(dir, p), body, 0o644)
		ents = append(ents, ent{p, sumHex("sha256", string(body)), sumHex("md5", string(body))})
	}
	WriteDeclaration(dir)
	WriteManifest(dir, "sha256", func(yield func(string, string) bool) {
		for _, e := range ents {
			yield(e.p, e.s256)
		}
	})
	WriteManifest(dir, "md5", func(yield func(string, string) bool) {
		for _, e := range ents {
			yield(e.p, e.m5)
		}
	})
	b.ReportAllocs()
	for b.Loop() {
		if st, _ := Validate(dir, func(p Problem) { b.Fatal(p) }); st.Files != 2000 {
			b.Fatal(st)
		}
	}
}
