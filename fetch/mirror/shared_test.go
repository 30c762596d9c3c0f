package mirror

import (
	"reflect"
	"testing"
	"time"
)

// TestEncodeJobKeepsBytes: a job crosses a shared crawl with its names'
// bytes intact, Latin-1 included, which plain JSON would replace.
func TestEncodeJobKeepsBytes(t *testing.T) {
	j := job{Op: opFile, URL: "ftp://h/names/caf%E9.txt", Path: "names/caf\xe9-latin1.txt", From: "d:names",
		Name: "caf\xe9-latin1.txt", Sel: "/x/\xfc", Size: 12, Mod: time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC), Depth: 2}
	got, err := decodeJob(encodeJob(j))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, j) {
		t.Errorf("decoded %+v, want %+v", got, j)
	}
	plain := job{Op: opList, URL: "gopher://h/1/", Path: "utf8-é"}
	if b := encodeJob(plain); string(b) == "" || containsRaw(b) {
		t.Errorf("a UTF-8 job carries raw bytes: %s", b)
	}
}

func containsRaw(b []byte) bool {
	for i := 0; i+5 < len(b); i++ {
		if string(b[i:i+5]) == `"raw"` {
			return true
		}
	}
	return false
}
