package warc

import (
	"crypto/sha1"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"strings"
	"testing"
)

// rec is a WARC record of the given version, ID and fields.
func rec(version, id, typ, uri, body string, fields ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\r\nWARC-Type: %s\r\nWARC-Record-ID: <urn:x:%s>\r\nWARC-Date: 2026-01-02T03:04:05Z\r\nWARC-Target-URI: %s\r\n", version, typ, id, uri)
	for _, f := range fields {
		b.WriteString(f + "\r\n")
	}
	ct := "text/plain"
	switch typ {
	case "response", "revisit":
		ct = TypeHTTPResponse
	case "warcinfo":
		ct = "application/warc-fields"
	}
	fmt.Fprintf(&b, "Content-Type: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", ct, len(body), body)
	return b.String()
}

// TestCheckOthers checks WARCs as other tools write them: digests in each
// encoding, WARC/1.0 revisits, no warcinfo first (a warning), and what is
// wrong reported once each.
func TestCheckOthers(t *testing.T) {
	checkOthers(t)
	// Again with every link line sorted on disk.
	defer func(h int) { linksHeld = h }(linksHeld)
	linksHeld = 1
	checkOthers(t)
}

func checkOthers(t *testing.T) {
	sum := sha1.Sum([]byte("body"))
	wrong := sha1.Sum([]byte("other"))
	digests := map[string]string{
		"base32":          "sha1:" + base32.StdEncoding.EncodeToString(sum[:]),
		"base32 lower":    "sha1:" + strings.ToLower(base32.StdEncoding.EncodeToString(sum[:])),
		"base16":          "sha1:" + hex.EncodeToString(sum[:]),
		"base64":          "sha1:" + base64.StdEncoding.EncodeToString(sum[:]),
		"SHA-1 base64url": "SHA-1:" + base64.URLEncoding.EncodeToString(sum[:]),
	}
	for name, d := range digests {
		path := writeFile(t, "d.warc", rec("WARC/1.1", "a", "resource", "http://x/", "body", "WARC-Block-Digest: "+d, "WARC-Payload-Digest: "+d))
		for _, p := range problems(t, path) {
			if !strings.Contains(p, "warning: the file does not start with a warcinfo") {
				t.Errorf("%s digest %s: %s", name, d, p)
			}
		}
	}
	bad := writeFile(t, "bad.warc", rec("WARC/1.1", "a", "resource", "http://x/", "body",
		"WARC-Block-Digest: sha1:"+base64.StdEncoding.EncodeToString(wrong[:])))
	if p := strings.Join(problems(t, bad), "\n"); !strings.Contains(p, "WARC-Block-Digest sha1:") {
		t.Errorf("a wrong base64 digest: %q", p)
	}

	// A WARC/1.0 revisit names what it revisits by WARC-Refers-To alone.
	v10 := writeFile(t, "v10.warc", rec("WARC/1.0", "a", "response", "http://x/", "body")+
		rec("WARC/1.0", "b", "revisit", "http://x/", "", "WARC-Refers-To: <urn:x:a>",
			"WARC-Profile: http://netpreserve.org/warc/1.0/revisit/identical-payload-digest"))
	for _, p := range problems(t, v10) {
		if !strings.Contains(p, "warning:") {
			t.Errorf("WARC/1.0 revisit: %s", p)
		}
	}
	v11 := writeFile(t, "v11.warc", strings.ReplaceAll(readString(t, v10), "WARC/1.0\r\n", "WARC/1.1\r\n"))
	if p := strings.Join(problems(t, v11), "\n"); !strings.Contains(p, "revisit without WARC-Refers-To-Target-URI") {
		t.Errorf("WARC/1.1 revisit without the 1.1 fields: %q", p)
	}

	// A revisit of itself, and two revisits of each other.
	loops := writeFile(t, "loops.warc", rec("WARC/1.0", "self", "revisit", "http://x/", "", "WARC-Refers-To: <urn:x:self>")+
		rec("WARC/1.0", "p", "revisit", "http://y/", "", "WARC-Refers-To: <urn:x:q>")+
		rec("WARC/1.0", "q", "revisit", "http://y/", "", "WARC-Refers-To: <urn:x:p>"))
	p := problems(t, loops)
	got := strings.Join(p, "\n")
	if !strings.Contains(got, "record 1 (offset 0, http://x/): WARC-Refers-To names the record itself") ||
		strings.Count(got, "in a loop: <urn:x:p> -> <urn:x:q> -> <urn:x:p>") != 1 || strings.Count(got, "in a loop") != 1 {
		t.Errorf("loops: %q", p)
	}

	// A record that cannot be read is reported once, and the next member
	// checked.
	broken := writeFile(t, "broken.warc.gz", gz(rec("WARC/1.1", "a", "resource", "http://x/", "body"))+
		gz(strings.Replace(rec("WARC/1.1", "b", "resource", "http://y/", "body"), "Content-Length: 4", "Content-Length: 40", 1))+
		gz(rec("WARC/1.1", "c", "resource", "http://z/", "body", "WARC-Block-Digest: sha1:"+hex.EncodeToString(wrong[:]))))
	p = problems(t, broken)
	got = strings.Join(p, "\n")
	if strings.Count(got, "Content-Length 40") != 1 || !strings.Contains(got, "http://z/): WARC-Block-Digest") {
		t.Errorf("broken: %q", p)
	}
}

func readString(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCheckARC reads an ARC file through, one warning for what it is, its
// framing checked.
func TestCheckARC(t *testing.T) {
	desc := "1 0 Test\nURL IP-address Archive-date Content-type Archive-length\n"
	body := "HTTP/1.0 200 OK\r\n\r\nhi"
	arc := fmt.Sprintf("filedesc://t.arc 0.0.0.0 20050614070159 text/plain %d\n%s\n", len(desc), desc) +
		fmt.Sprintf("http://example.org/ 192.0.2.1 20050614070144 text/html %d\n%s\n", len(body), body)
	p := problems(t, writeFile(t, "t.arc", arc))
	if len(p) != 1 || !strings.Contains(p[0], "warning: an ARC file") {
		t.Errorf("an ARC file: %q", p)
	}
	cut := strings.Replace(arc, fmt.Sprintf("text/html %d", len(body)), "text/html 2400", 1)
	if p := strings.Join(problems(t, writeFile(t, "cut.arc", cut)), "\n"); !strings.Contains(p, "Content-Length 2400, but the block ends after") {
		t.Errorf("an ARC record cut short: %q", p)
	}
}
