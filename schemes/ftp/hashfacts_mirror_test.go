package ftp_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/ftp"
)

// A mirror proves each file by the hash its MLSD facts carry, with no
// command to ask for one (the server offers HASH and XSHA256 too, and
// neither is sent): a file whose bytes match is kept and counted
// verified by SHA-256; one whose fact disowns its bytes is fetched again
// (Options.Retries times), then fails as the server's refusal (exit 5)
// and is not kept.
func TestMirrorProvesByMLSDHashFacts(t *testing.T) {
	srv := ftp.NewFakeServerFacts(t, true, " HASH SHA-256*\r\n XSHA256\r\n")
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	srv.AddFile("/good.txt", "good bytes\n")
	srv.AddFile("/bad.txt", "bytes the fact disowns\n")
	srv.AddListing("MLSD", "/",
		"type=file;size=11;modify=20240102030405;x.sha256="+sum("good bytes\n")+"; good.txt\r\n"+
			"type=file;size=23;modify=20240102030405;x.sha256="+sum("other bytes\n")+"; bad.txt\r\n")
	dir := t.TempDir()
	c := fetch.NewClient(fetch.Options{Warn: func(string) {}})
	defer c.Close()
	url := "ftp://127.0.0.1:" + strconv.Itoa(srv.Port()) + "/"
	s, err := mirror.Run(context.Background(), c, url, dir, mirror.Options{Jobs: 1, Retries: 2})
	if err != nil {
		t.Fatal(err)
	}
	if s.Verified != 1 || s.VerifyAlgorithms["SHA-256"] != 1 || s.Unverified != 0 {
		t.Errorf("verified %d %v, unverified %d; want 1 by SHA-256", s.Verified, s.VerifyAlgorithms, s.Unverified)
	}
	if s.RetriesByKind["verify"] != 2 || s.Failed != 1 || len(s.Failures) != 1 || !errors.Is(s.Failures[0].Err, schemes.ErrRefused) ||
		!strings.Contains(s.Failures[0].Error, "not kept") {
		t.Errorf("retries %v, failures %+v; want bad.txt tried 3 times, then refused", s.RetriesByKind, s.Failures)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "good.txt")); err != nil || string(b) != "good bytes\n" {
		t.Errorf("good.txt: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.txt")); err == nil {
		t.Error("bad.txt kept, though its hash fact disowns its bytes")
	}
	retrs := 0
	for _, l := range srv.Sent() {
		verb, _, _ := strings.Cut(strings.TrimSpace(l), " ")
		switch strings.ToUpper(verb) {
		case "HASH", "XSHA256", "XSHA1", "XMD5", "XCRC", "MD5":
			t.Errorf("sent %q: the MLSD facts held the hashes", strings.TrimSpace(l))
		case "OPTS":
			if strings.Contains(strings.ToUpper(l), "HASH") {
				t.Errorf("sent %q", strings.TrimSpace(l))
			}
		case "RETR":
			retrs++
		}
	}
	if retrs != 4 {
		t.Errorf("%d RETRs, want 4 (good.txt once, bad.txt three times)", retrs)
	}
}
