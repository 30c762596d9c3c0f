package warc

import (
	"bytes"
	"encoding/binary"
	"os"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// zstdFile is a warc-zstd file of the records, each group a frame,
// compressed with dict (when not nil) stored first in a skippable frame,
// itself compressed when packed.
func zstdFile(t *testing.T, dict []byte, packed bool, groups ...string) string {
	t.Helper()
	var out bytes.Buffer
	opts := []zstd.EOption{zstd.WithEncoderConcurrency(1)}
	if dict != nil {
		stored := dict
		if packed {
			e, _ := zstd.NewWriter(nil)
			stored = e.EncodeAll(dict, nil)
		}
		var h [8]byte
		binary.LittleEndian.PutUint32(h[:], 0x184D2A5D)
		binary.LittleEndian.PutUint32(h[4:], uint32(len(stored)))
		out.Write(h[:])
		out.Write(stored)
		opts = append(opts, zstd.WithEncoderDict(dict))
	}
	enc, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range groups {
		out.Write(enc.EncodeAll([]byte(g), nil))
	}
	return out.String()
}

// TestReaderZstd reads WARCs compressed with zstd: a frame per record,
// with and without a dictionary (raw and itself compressed), and frames
// of many records; every record listed, and read back from its index
// entry as replay reads it.
func TestReaderZstd(t *testing.T) {
	var samples [][]byte
	for i := range 64 {
		samples = append(samples, []byte(strings.Repeat(three[i%3], 1+i%4)))
	}
	dict, err := zstd.BuildDict(zstd.BuildDictOptions{ID: 7, Contents: samples, History: []byte(three[1] + three[2])})
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"per record":        zstdFile(t, nil, false, three...),
		"one frame":         zstdFile(t, nil, false, three[0]+three[1]+three[2]),
		"dictionary":        zstdFile(t, dict, false, three...),
		"packed dictionary": zstdFile(t, dict, true, three[0], three[1]+three[2]),
	}
	for name, data := range cases {
		path := writeFile(t, "z.warc.zst", data)
		entries, payloads, problems, err := walkAll(t, path)
		if err != nil || len(problems) > 0 {
			t.Fatalf("%s: %v %q", name, err, problems)
		}
		if len(entries) != 3 || payloads[1] != "one" || payloads[2] != "two" || entries[1].URI != "gopher://example.org/0/one" {
			t.Fatalf("%s: %+v %q", name, entries, payloads)
		}
		var idx []IndexEntry
		if err := ScanFile(path, func(_ string, e IndexEntry) { idx = append(idx, e) }, func(e error) { t.Error(e) }); err != nil || len(idx) != 2 {
			t.Fatalf("%s: %v %+v", name, err, idx)
		}
		f, _ := os.Open(path)
		for i, e := range idx {
			rec, _, err := OpenRecord(f, e.Offset, e.Length, e.Inner)
			if err != nil {
				t.Fatalf("%s: %+v: %v", name, e, err)
			}
			if rec.TargetURI() != entries[i+1].URI {
				t.Errorf("%s: %+v read %s", name, e, rec.TargetURI())
			}
		}
		f.Close()
	}
	// A damaged frame is one problem; the frames after it are read.
	data := zstdFile(t, nil, false, three...)
	first := len(zstdFile(t, nil, false, three[0]))
	b := []byte(data)
	b[first+10] ^= 0xff
	_, payloads, problems, err := walkAll(t, writeFile(t, "bad.warc.zst", string(b)))
	if err != nil || len(problems) != 1 || payloads[len(payloads)-1] != "two" {
		t.Errorf("damaged frame: %v %q %q", err, problems, payloads)
	}
}
