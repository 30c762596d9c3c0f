package ftp

import (
	"context"
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestServerHashForms: each way a server offers a checksum is asked for
// with the file and read from its reply; the strongest offered wins, HASH
// before an X-command, and no X-command carries a name with a space.
func TestServerHashForms(t *testing.T) {
	const body = "the file's bytes\n"
	s256 := sha256.Sum256([]byte(body))
	s1 := sha1.Sum([]byte(body))
	m5 := md5.Sum([]byte(body))
	hx := func(b []byte) string { return hex.EncodeToString(b) }
	for _, tc := range []struct {
		name, file, feats string
		answer            map[string]string // verb → reply
		want              schemes.ServerHash
		sent              []string // lines that must go out, in this order
		notSent           string   // a verb that must not
	}{
		{"HASH with the algorithm in use", "f", " HASH SHA-1;SHA-256*;MD5\r\n",
			map[string]string{"HASH": "213-Computing SHA-256 digest\r\n213 SHA-256 0-17 " + hx(s256[:]) + " f"},
			schemes.ServerHash{Alg: "SHA-256", Hex: hx(s256[:])}, []string{"HASH f", "RETR f"}, "OPTS"},
		{"HASH switched to the strongest", "f", " HASH SHA-1*;SHA-256;MD5\r\n",
			map[string]string{"OPTS": "200 SHA-256", "HASH": "213 SHA-256 0-17 " + strings.ToUpper(hx(s256[:])) + " f"},
			schemes.ServerHash{Alg: "SHA-256", Hex: hx(s256[:])}, []string{"OPTS HASH SHA-256", "HASH f", "RETR f"}, ""},
		{"HASH before the X-commands", "f", " HASH MD5*\r\n XMD5 filename\r\n XSHA1 filename\r\n",
			map[string]string{"XSHA1": "250 " + hx(s1[:]), "HASH": "213 MD5 0-17 " + hx(m5[:]) + " f"},
			schemes.ServerHash{Alg: "SHA-1", Hex: hx(s1[:])}, []string{"XSHA1 f", "RETR f"}, "HASH"},
		{"XSHA256 (mod_digest)", "f", " XCRC filename;start;end\r\n XMD5 filename;start;end\r\n XSHA256 filename;start;end\r\n",
			map[string]string{"XSHA256": "250 " + hx(s256[:])},
			schemes.ServerHash{Alg: "SHA-256", Hex: hx(s256[:])}, []string{"XSHA256 f", "RETR f"}, "XMD5"},
		{"MD5 (draft-twine)", "f", " MD5\r\n",
			map[string]string{"MD5": "251 f " + hx(m5[:])},
			schemes.ServerHash{Alg: "MD5", Hex: hx(m5[:])}, []string{"MD5 f", "RETR f"}, ""},
		{"XCRC with its leading zero left out", "f", " XCRC\r\n",
			map[string]string{"XCRC": "250 abcdef1"},
			schemes.ServerHash{Alg: "CRC32", Hex: "0abcdef1"}, []string{"XCRC f", "RETR f"}, ""},
		{"a name with a space: no X-command", "a b", " XSHA256\r\n",
			nil, schemes.ServerHash{}, []string{"RETR a b"}, "XSHA256"},
		{"a name with a space: HASH", "a b", " HASH SHA-256*\r\n",
			map[string]string{"HASH": "213 SHA-256 0-17 " + hx(s256[:]) + " a b"},
			schemes.ServerHash{Alg: "SHA-256", Hex: hx(s256[:])}, []string{"HASH a b", "RETR a b"}, ""},
		{"a range is no proof", "f", " HASH SHA-256*\r\n",
			map[string]string{"HASH": "213 SHA-256 5-17 " + hx(s256[:]) + " f"},
			schemes.ServerHash{}, []string{"HASH f"}, ""},
		{"refused", "f", " XSHA256\r\n",
			map[string]string{"XSHA256": "550 Permission denied"},
			schemes.ServerHash{}, []string{"XSHA256 f", "RETR f"}, ""},
		{"no hash offered", "f", "", nil, schemes.ServerHash{}, []string{"RETR f"}, "HASH"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fake := newFakeWith(t, func(f *fakeFTP) {
				f.moreFeats = tc.feats
				f.answer = func(verb, arg string) (string, bool) {
					r, ok := tc.answer[verb]
					return r, ok
				}
			})
			fake.addFile("/"+tc.file, body)
			f := newFetcher()
			req := newReq(ftpURL(fake.port(), 0, tc.file))
			req.Hash = true
			resp, err := f.Fetch(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(b) != body {
				t.Fatalf("body %q", b)
			}
			if resp.Hash != tc.want {
				t.Errorf("hash %+v, want %+v", resp.Hash, tc.want)
			}
			fake.endWith(f)
			var sent []string
			for _, l := range fake.sent() {
				sent = append(sent, strings.TrimSuffix(l, "\r\n"))
			}
			at := 0
			for _, w := range tc.sent {
				i := slices.Index(sent[at:], w)
				if i < 0 {
					t.Fatalf("%q not sent (after line %d) in %q", w, at, sent)
				}
				at += i + 1
			}
			for _, l := range sent {
				if tc.notSent != "" && strings.HasPrefix(l, tc.notSent+" ") {
					t.Errorf("sent %q", l)
				}
			}
		})
	}
}

// Without Request.Hash nothing is asked, whatever the server offers.
func TestServerHashNotAsked(t *testing.T) {
	fake := newFakeWith(t, func(f *fakeFTP) { f.moreFeats = " HASH SHA-256*\r\n XSHA256\r\n" })
	fake.addFile("/f", "x")
	f := newFetcher()
	resp, err := f.Fetch(context.Background(), newReq(ftpURL(fake.port(), 0, "f")))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fake.endWith(f)
	for _, l := range fake.sent() {
		if strings.HasPrefix(l, "HASH") || strings.HasPrefix(l, "XSHA") {
			t.Errorf("sent %q unasked", l)
		}
	}
	if resp.Hash != (schemes.ServerHash{}) {
		t.Errorf("hash %+v", resp.Hash)
	}
}

// recCapture keeps the records a fetch starts.
type recCapture struct{ recs []schemes.CaptureRecord }

func (c *recCapture) Record(rec schemes.CaptureRecord) schemes.CaptureBlock {
	c.recs = append(c.recs, rec)
	return nopBlock{}
}
func (c *recCapture) Dialed(net.Conn) {}

type nopBlock struct{}

func (nopBlock) Write(p []byte) (int, error) { return len(p), nil }
func (nopBlock) Commit() error               { return nil }

// The file's capture record carries the server's claim.
func TestServerHashCaptured(t *testing.T) {
	s256 := sha256.Sum256([]byte("x"))
	fake := newFakeWith(t, func(f *fakeFTP) {
		f.moreFeats = " XSHA256\r\n"
		f.answer = func(verb, _ string) (string, bool) { return "250 " + hex.EncodeToString(s256[:]), verb == "XSHA256" }
	})
	fake.addFile("/f", "x")
	f := newFetcher()
	req := newReq(ftpURL(fake.port(), 0, "f"))
	req.Hash = true
	capt := &recCapture{}
	req.Capture = capt
	resp, err := f.Fetch(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	fake.endWith(f)
	if len(capt.recs) == 0 || capt.recs[0].ServerDigest != "sha-256:"+hex.EncodeToString(s256[:]) {
		t.Errorf("capture records %+v", capt.recs)
	}
}
