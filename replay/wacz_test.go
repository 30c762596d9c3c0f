package replay

import (
	"archive/zip"
	"bytes"
	bin "encoding/binary"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// A WACZ may store a zstd-compressed WARC file (as gofer warc pack stores
// one it is given), its dictionary in its first frame as the warc-zstd
// convention has it: replay reads its records where the ZIP stores them,
// the dictionary from the start of that WARC file, not of the WACZ.
func TestWACZZstdWithDictionary(t *testing.T) {
	body := "a zstd record in a WACZ\n"
	rec := "WARC/1.1\r\nWARC-Type: resource\r\nWARC-Record-ID: <urn:uuid:zstd-in-wacz>\r\nWARC-Date: 2026-01-02T03:04:05Z\r\n" +
		"WARC-Target-URI: gopher://example.org/0/z\r\nContent-Type: text/plain\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body + "\r\n\r\n"
	// A raw-content dictionary: its magic-less bytes prime the window.
	dict := bytes.Repeat([]byte("WARC/1.1\r\nWARC-Type: resource\r\n"), 8)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1), zstd.WithEncoderDictRaw(1, dict))
	if err != nil {
		t.Fatal(err)
	}
	var warc bytes.Buffer
	var h [8]byte
	bin.LittleEndian.PutUint32(h[:], 0x184D2A5D)
	bin.LittleEndian.PutUint32(h[4:], uint32(len(dict)))
	warc.Write(h[:])
	warc.Write(dict)
	warc.Write(enc.EncodeAll([]byte(rec), nil))

	var z bytes.Buffer
	zw := zip.NewWriter(&z)
	for _, f := range []struct{ name, data string }{{"datapackage.json", "{}"}, {"archive/one.warc.zst", warc.String()}} {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(f.data))
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "z.wacz")
	if err := os.WriteFile(path, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	a := open(t, Options{}, path)
	p, err := a.Lookup("gopher://example.org/0/z", "resource")
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	got, err := io.ReadAll(p)
	if err != nil || string(got) != body {
		t.Errorf("payload %q, %v; want %q", got, err, body)
	}
}
