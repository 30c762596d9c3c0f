package ftp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestMLSDHashFacts: a hash among a file's MLSD facts is read into the
// entry, the strongest when there are several; a fact in no hash's form
// leaves the hash unknown and the entry read.
func TestMLSDHashFacts(t *testing.T) {
	const s256 = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
	const m5 = "098f6bcd4621d373cade4e832627b4f6"
	for _, tc := range []struct {
		line string
		want schemes.ServerHash
	}{
		{"type=file;size=4;x.sha256=" + strings.ToUpper(s256) + "; f", schemes.ServerHash{Alg: "SHA-256", Hex: s256}},
		{"type=file;size=4;x.md5=" + m5 + ";x.sha256=" + s256 + "; f", schemes.ServerHash{Alg: "SHA-256", Hex: s256}},
		{"type=file;x.sha256=" + s256 + ";x.md5=" + m5 + "; f", schemes.ServerHash{Alg: "SHA-256", Hex: s256}},
		{"type=file;x.md5=" + m5 + "; f", schemes.ServerHash{Alg: "MD5", Hex: m5}},
		{"type=file;hash=SHA-256:" + s256 + "; f", schemes.ServerHash{Alg: "SHA-256", Hex: s256}},
		{"type=file;X.Hash=md5:" + m5 + "; f", schemes.ServerHash{Alg: "MD5", Hex: m5}},
		{"type=file;x.crc32=abcdef1; f", schemes.ServerHash{Alg: "CRC32", Hex: "0abcdef1"}},
		{"type=file;x.sha256=" + m5 + "; f", schemes.ServerHash{}},       // too short for SHA-256
		{"type=file;hash=WHIRLPOOL:" + m5 + "; f", schemes.ServerHash{}}, // no algorithm gofer computes
		{"type=file;x.md5=not-hex-not-hex-not-hex-not-hex-; f", schemes.ServerHash{}},
	} {
		e, ok := mlsdEntry(tc.line, "")
		if !ok || e.Type != schemes.TypeFile || e.Name != "f" {
			t.Errorf("%q: %+v %v", tc.line, e, ok)
			continue
		}
		if e.Hash != tc.want {
			t.Errorf("%q: hash %+v, want %+v", tc.line, e.Hash, tc.want)
		}
	}
}

// listHashes lists /d with ListHashes and returns each entry's
// "name ALG:HEX" and the lines the server received.
func listHashes(t *testing.T, fake *fakeFTP) (map[string]string, []string) {
	t.Helper()
	f := newFetcher()
	req := newReq(ftpURL(fake.port(), 0, "d", ""))
	req.ListHashes = true
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got[e.Name] = e.Type
		if e.Hash.Alg != "" {
			got[e.Name] += " " + e.Hash.Alg + ":" + e.Hash.Hex
		}
	}
	resp.Close()
	fake.endWith(f)
	var sent []string
	for _, l := range fake.sent() {
		sent = append(sent, strings.TrimSuffix(l, "\r\n"))
	}
	return got, sent
}

func sha256Hex(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// TestListingHashes: ListHashes gives each file of a LIST listing the
// server's hash, asked once the listing ended, in one pipelined write;
// directories are not asked, and a name with a space takes no X-command.
func TestListingHashes(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) {
		f.moreFeats = " XSHA256\r\n XMD5\r\n"
		f.answer = func(verb, arg string) (string, bool) {
			if verb != "XSHA256" {
				return "", false
			}
			return "250 " + sha256Hex(arg), true
		}
	})
	fake.dirs["/d"] = true
	fake.listings["LIST /d"] = "-rw-r--r-- 1 0 0 13 Dec 20 1994 f\r\n" +
		"drwxr-xr-x 2 0 0 4096 Dec 20 1994 sub\r\n" +
		"-rw-r--r-- 1 0 0 10 Dec 20 1994 g\r\n" +
		"-rw-r--r-- 1 0 0 10 Dec 20 1994 a b\r\n"
	got, sent := listHashes(t, fake)
	want := map[string]string{"f": "file SHA-256:" + sha256Hex("f"), "g": "file SHA-256:" + sha256Hex("g"), "sub": "dir", "a b": "file"}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s: %q, want %q", n, got[n], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("entries %q", got)
	}
	var asked []string
	for _, l := range sent {
		if strings.HasPrefix(l, "XSHA256 ") || strings.HasPrefix(l, "XMD5 ") {
			asked = append(asked, l)
		}
	}
	if strings.Join(asked, "|") != "XSHA256 f|XSHA256 g" {
		t.Errorf("hash commands %q", asked)
	}
	batched := false
	for _, b := range fake.sentBatches() {
		if b == "XSHA256 f\r\nXSHA256 g\r\n" {
			batched = true
		}
	}
	if !batched {
		t.Errorf("the hash commands did not go out in one write: %q", fake.sentBatches())
	}
}

// TestListingHashFactsAskNothing: an MLSD listing whose facts carry the
// hashes needs no command; without ListHashes nothing is asked at all.
func TestListingHashFactsAskNothing(t *testing.T) {
	for _, ask := range []bool{true, false} {
		fake := newFakeWith(t, func(f *fakeFTP) {
			f.mlst = true
			f.moreFeats = " HASH SHA-256*\r\n"
		})
		fake.dirs["/d"] = true
		fake.listings["MLSD /d"] = "type=file;size=1;x.sha256=" + sha256Hex("f") + "; f\r\ntype=file;size=1; g\r\n"
		f := newFetcher()
		req := newReq(ftpURL(fake.port(), 0, "d", ""))
		req.ListHashes = ask
		resp, err := f.Fetch(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		hashes := map[string]string{}
		for {
			e, err := resp.Listing.Next()
			if err != nil {
				break
			}
			hashes[e.Name] = e.Hash.Hex
		}
		resp.Close()
		fake.endWith(f)
		if hashes["f"] != sha256Hex("f") {
			t.Errorf("ListHashes %v: f's hash from its fact: %q", ask, hashes["f"])
		}
		var asked []string
		for _, l := range fake.sent() {
			if strings.HasPrefix(l, "HASH ") {
				asked = append(asked, strings.TrimSpace(l))
			}
		}
		want := ""
		if ask {
			want = "HASH g" // the file without a fact
		}
		if strings.Join(asked, "|") != want {
			t.Errorf("ListHashes %v: sent %q, want %q", ask, asked, want)
		}
	}
}
