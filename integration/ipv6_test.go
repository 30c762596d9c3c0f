package integration_test

// IPv6 end to end beyond FTP (ftp_ipv6_test.go): gophernicus, INN's
// nnrpd, nginx and molly-brown on [::1] (integration/itest/ipv6.go).
// Each test fetches a document and a menu, listing or group over IPv6,
// captures it in a WARC (WARC-Target-URI with the brackets,
// WARC-IP-Address without them) and, where replay speaks the protocol,
// replays the capture from a listener on [::1], whose ready line writes
// every address in brackets with its port.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// v6Listing is a listing as `get --json` prints it.
type v6Listing struct {
	URL     string `json:"url"`
	Entries []struct {
		Name    string `json:"name"`
		Type    string `json:"type"`
		URL     string `json:"url"`
		Host    string `json:"host"`
		NNTPURL string `json:"nntp_url"`
	} `json:"entries"`
}

func v6GetListing(t *testing.T, args ...string) v6Listing {
	t.Helper()
	res := itest.Run(t, nil, nil, append([]string{"get", "--json"}, args...)...)
	if res.Code != 0 {
		t.Fatalf("get --json %q: exit %d: %s", args, res.Code, res.Reason())
	}
	var l v6Listing
	if err := json.Unmarshal([]byte(res.Stdout), &l); err != nil {
		t.Fatalf("get --json %q: %v: %s", args, err, res.Stdout)
	}
	return l
}

// v6Get fetches url (with args before it) to a file and returns its bytes.
func v6Get(t *testing.T, url string, args ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "body")
	res := itest.Run(t, nil, nil, append(append([]string{"get", "-q", "-o", out}, args...), url)...)
	if res.Code != 0 {
		t.Fatalf("get %s: exit %d: %s", url, res.Code, res.Reason())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func v6Sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// v6Capture fetches url into a WARC file and returns the file and the
// WARC headers of its records (gunzipped).
func v6Capture(t *testing.T, url string, args ...string) (string, string) {
	t.Helper()
	dir := t.TempDir()
	warc := filepath.Join(dir, "cap.warc.gz")
	res := itest.RunIn(t, dir, nil, nil, append(append([]string{"get", "-q", "--warc", warc, "-o", filepath.Join(dir, "body")}, args...), url)...)
	if res.Code != 0 {
		t.Fatalf("get --warc %s: exit %d: %s", url, res.Code, res.Reason())
	}
	return warc, readMaybeGzip(t, warc)
}

// v6CheckCapture: every record of the capture but warcinfo names target
// and the address ::1.
func v6CheckCapture(t *testing.T, raw, target string) {
	t.Helper()
	n := 0
	for _, rec := range strings.Split(raw, "WARC/1.1\r\n")[1:] {
		head, _, _ := strings.Cut(rec, "\r\n\r\n")
		if strings.Contains(head, "WARC-Type: warcinfo\r\n") {
			continue
		}
		n++
		if !strings.Contains(head, "WARC-Target-URI: "+target+"\r\n") {
			t.Errorf("a record without WARC-Target-URI %s:\n%s", target, head)
		}
		if !strings.Contains(head, "WARC-IP-Address: ::1\r\n") {
			t.Errorf("a record without WARC-IP-Address ::1:\n%s", head)
		}
	}
	if n == 0 {
		t.Errorf("the capture of %s holds no record but warcinfo", target)
	}
}

// v6Replay runs gofer replay of archive with only the listener of scheme,
// on [::1] (port 0: a free one), and returns the ready line's fields and
// the address it listens on ("[::1]:PORT"). The replay is stopped when
// the test ends; it must exit 0.
func v6Replay(t *testing.T, scheme string, archive ...string) ([]string, string, func() string) {
	t.Helper()
	var args []string
	for _, s := range []string{"gopher", "ftp", "http", "nntp"} {
		addr := ""
		if s == scheme {
			addr = "[::1]:0"
		}
		args = append(args, "--"+s, addr)
	}
	br, stop := runReplay(t, append(args, archive...)...)
	line, err := br.ReadString('\n')
	if err != nil {
		t.Fatalf("gofer replay printed no ready line: %v: %s", err, stop())
	}
	// "gopher gopher://[::1]:PORT/ [::1]:70 N selectors"
	f := strings.Fields(line)
	m := regexp.MustCompile(`^` + scheme + `://(\[::1\]:[1-9][0-9]*)/$`).FindStringSubmatch(f[1])
	if len(f) < 3 || f[0] != scheme || m == nil {
		t.Fatalf("ready line %q: want %s %s://[::1]:PORT/ ...", line, scheme, scheme)
	}
	return f, m[1], stop
}

// TestIPv6Gopher: gophernicus on [::1], whose menus name ::1: menus and
// items over IPv6, menu items followed to the same server, a mirror of a
// subtree (and a second run that finds it unchanged: the state knows the
// server), a WARC capture and its replay on [::1].
func TestIPv6Gopher(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.GopherIPv6Addr)
	since := itest.LogSince(t, "gophernicus6-access.log")
	manifest := itest.Manifest(t)
	hole := filepath.Join(itest.StateDir(), "srv", "gopher")

	top := v6GetListing(t, "gopher://[::1]/")
	if top.URL != "gopher://[::1]/1" {
		t.Errorf("menu URL %q", top.URL)
	}
	same := 0
	for _, e := range top.Entries {
		if e.Host == itest.IPv6Host && e.Type != "html" {
			same++
			if !strings.HasPrefix(e.URL, "gopher://[::1]/") {
				t.Errorf("item %q on ::1: URL %q, want gopher://[::1]/...", e.Name, e.URL)
			}
		}
	}
	if same < 8 {
		t.Errorf("%d items name ::1, want the hole's 8 or more: %+v", same, top.Entries)
	}

	// Follow the nested menus by their URLs down to the deepest binary.
	url := "gopher://[::1]/1/menus"
	for _, name := range []string{"one", "two", "three"} {
		next := ""
		for _, e := range v6GetListing(t, url).Entries {
			if e.Type == "dir" && strings.HasPrefix(e.Name, name) {
				next = e.URL
			}
		}
		if !strings.HasPrefix(next, "gopher://[::1]/1/") {
			t.Fatalf("%s: menu %q at %q", url, name, next)
		}
		url = next
	}
	deep := ""
	for _, e := range v6GetListing(t, url).Entries {
		if strings.HasPrefix(e.Name, "deep.bin") {
			deep = e.URL
		}
	}
	if deep != "gopher://[::1]/9/menus/one/two/three/deep.bin" {
		t.Errorf("deep.bin at %q", deep)
	} else if got := v6Sum(v6Get(t, deep)); got != manifest["binary/random-64k.bin"] {
		t.Errorf("%s: sha256 %s", deep, got)
	}
	want, err := os.ReadFile(filepath.Join(hole, "about.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if got := v6Get(t, "gopher://[::1]/0/about.txt"); !bytes.Equal(got, want) {
		t.Errorf("about.txt: %q, want %q", got, want)
	}

	// A mirror of /menus from [::1]: every menu names ::1.
	dir := t.TempDir()
	m := filepath.Join(dir, "m")
	res := itest.RunIn(t, dir, nil, nil, "mirror", "--no-parent", "gopher://[::1]/1/menus", m)
	if res.Code != 0 {
		t.Fatalf("mirror: exit %d: %s", res.Code, res.Reason())
	}
	if !strings.Contains(res.Stdout, "mirrored gopher://[::1]/1/menus into ") {
		t.Errorf("mirror's summary does not name gopher://[::1]/1/menus: %q", res.Stdout)
	}
	for rel, want := range map[string]string{
		"menus/one/level1.txt":           "level one\n",
		"menus/one/two/level2.txt":       "level two\n",
		"menus/one/two/three/level3.txt": "level three\n",
		"menus/one/two/three/deep.bin":   "",
		"menus/one/two/three/gophermap":  "",
		"menus/gophermap":                "",
		"menus/one/gophermap":            "",
		"menus/one/two/gophermap":        "",
	} {
		b, err := os.ReadFile(filepath.Join(m, rel))
		switch {
		case err != nil:
			t.Errorf("mirror: %v", err)
		case rel == "menus/one/two/three/deep.bin":
			if v6Sum(b) != manifest["binary/random-64k.bin"] {
				t.Errorf("mirror: %s differs", rel)
			}
		case strings.HasSuffix(rel, "gophermap"):
			if !strings.Contains(string(b), "\t::1\t70\r\n") {
				t.Errorf("mirror: %s names no ::1 item: %q", rel, b)
			}
		case string(b) != want:
			t.Errorf("mirror: %s = %q, want %q", rel, b, want)
		}
	}
	res = itest.RunIn(t, dir, nil, nil, "mirror", "--no-parent", "gopher://[::1]/1/menus", m)
	if res.Code != 0 || !strings.Contains(res.Stdout, ": 0 new, 0 updated, ") {
		t.Errorf("second mirror: exit %d, %q: want nothing new or updated", res.Code, res.Stdout)
	}
	// The same subtree started from the address written out in full: the
	// menus' ::1 is the same server, and is followed.
	full := filepath.Join(dir, "full")
	res = itest.RunIn(t, dir, nil, nil, "mirror", "--no-parent", "gopher://[0:0:0:0:0:0:0:1]/1/menus", full)
	if res.Code != 0 {
		t.Fatalf("mirror from [0:0:0:0:0:0:0:1]: exit %d: %s", res.Code, res.Reason())
	}
	if b, err := os.ReadFile(filepath.Join(full, "menus/one/two/three/level3.txt")); err != nil || string(b) != "level three\n" {
		t.Errorf("mirror from [0:0:0:0:0:0:0:1] did not follow the menus naming ::1: %q, %v", b, err)
	}
	if log := since(); !strings.Contains(log, "::1 ") || !strings.Contains(log, "0/menus/one/two/three/level3.txt") &&
		!strings.Contains(log, "9/menus/one/two/three/deep.bin") {
		t.Errorf("gophernicus on [::1] logged no request of this test from ::1: %q", log)
	}

	// A capture of the menu and of a text item, replayed on [::1].
	warcMenu, raw := v6Capture(t, "gopher://[::1]/1/menus")
	v6CheckCapture(t, raw, "gopher://[::1]/1/menus")
	warcText, raw := v6Capture(t, "gopher://[::1]/0/about.txt")
	v6CheckCapture(t, raw, "gopher://[::1]/0/about.txt")
	f, addr, _ := v6Replay(t, "gopher", warcMenu, warcText)
	if f[2] != "[::1]:70" {
		t.Errorf("replay names the captured server %q, want [::1]:70", f[2])
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(addr, "[::1]"), ":")
	got := v6GetListing(t, "--allow-port", port, "gopher://"+addr+"/1/menus")
	found := false
	for _, e := range got.Entries {
		if e.Type == "dir" && strings.HasPrefix(e.Name, "one") {
			found = true
			if e.URL != "gopher://"+addr+"/1/menus/one/" {
				t.Errorf("replayed menu: %q at %q, want gopher://%s/1/menus/one/", e.Name, e.URL, addr)
			}
		}
	}
	if !found {
		t.Errorf("replayed menu has no item \"one\": %+v", got.Entries)
	}
	if got := v6Get(t, "gopher://"+addr+"/0/about.txt", "--allow-port", port); !bytes.Equal(got, want) {
		t.Errorf("replayed about.txt: %q, want %q", got, want)
	}
}

// TestIPv6ReplayNamesServersInBrackets: a replay of captures of two
// servers, one on [::1], warns which it replays and which --host picks,
// each address in brackets with its port.
func TestIPv6ReplayNamesServersInBrackets(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.GopherIPv6Addr)
	itest.Require(t, gopherAddr)
	w6, _ := v6Capture(t, "gopher://[::1]/0/about.txt")
	w4, _ := v6Capture(t, "gopher://127.0.0.71/0/about.txt")
	f, _, stop := v6Replay(t, "gopher", w6, w4)
	if f[2] != "[::1]:70" {
		t.Errorf("replay names the captured server %q, want [::1]:70", f[2])
	}
	if e := stop(); !strings.Contains(e, "replaying [::1]:70 (--host picks another: 127.0.0.71:70)") {
		t.Errorf("replay's warning does not name [::1]:70 and 127.0.0.71:70: %q", e)
	}
	f, _, _ = v6Replay(t, "gopher", w4, w6)
	if f[2] != "127.0.0.71:70" {
		t.Errorf("replay of the IPv4 capture first names %q", f[2])
	}
	res := itest.Run(t, nil, nil, "replay", "--gopher", "[::1]:0", "--ftp", "", "--http", "", "--nntp", "", "--host", "[::2]", w6)
	if res.Code != 2 || !strings.Contains(res.Stderr, "--host [::2]: no capture of it (gopher: [::1]:70;") {
		t.Errorf("--host [::2]: exit %d, %q: want exit 2 naming [::1]:70", res.Code, res.Stderr)
	}
}

// TestIPv6NNTP: INN's nnrpd on [::1]: a group and an article over IPv6,
// the same bytes as INN on IPv4, a capture, and its replay on [::1].
func TestIPv6NNTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.NNTPIPv6Addr)
	itest.Require(t, newsServer)
	group := v6GetListing(t, "nntp://[::1]/gofer.test")
	if group.URL != "nntp://[::1]/gofer.test" || len(group.Entries) != 30 {
		t.Fatalf("group: %q, %d entries, want nntp://[::1]/gofer.test and 30", group.URL, len(group.Entries))
	}
	for i, e := range group.Entries {
		if want := "nntp://[::1]/gofer.test/" + strconv.Itoa(i+1); e.NNTPURL != want {
			t.Errorf("entry %d: %q nntp_url %q, want %q", i, e.Name, e.NNTPURL, want)
		}
	}
	v6 := v6Get(t, "nntp://[::1]/gofer.test/7")
	v4 := v6Get(t, "nntp://"+itest.NNTPHost+"/gofer.test/7")
	if !bytes.Equal(v6, v4) || !bytes.Contains(v6, []byte("Subject: Test article 7")) {
		t.Errorf("article 7 over IPv6 (%d bytes) differs from IPv4 (%d bytes)", len(v6), len(v4))
	}
	warc, raw := v6Capture(t, "nntp://[::1]/gofer.test/7")
	v6CheckCapture(t, raw, "news:gofer-test-7@gofer.test")
	if !strings.Contains(raw, "Gofer-Fetched-Uri: nntp://[::1]/gofer.test/7\r\n") {
		t.Errorf("the capture does not name nntp://[::1]/gofer.test/7 as fetched")
	}
	f, addr, _ := v6Replay(t, "nntp", warc)
	if strings.Join(f[2:], " ") != "1 groups 1 articles" {
		t.Errorf("replay's ready line %q", f)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(addr, "[::1]"), ":")
	if got := v6Get(t, "nntp://"+addr+"/gofer.test/7", "--allow-port", port); !bytes.Equal(got, v6) {
		t.Errorf("replayed article (%d bytes) differs from the server's (%d bytes)", len(got), len(v6))
	}
}

// TestIPv6HTTP: nginx on [::1]: a file, a mirror of an autoindex listing
// (nginx's log shows the requests came from ::1 with Host [::1]), a
// capture and its replay on [::1].
func TestIPv6HTTP(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.HTTPIPv6Addr)
	since := itest.LogSince(t, "nginx6-access.log")
	manifest := itest.Manifest(t)
	if got := v6Sum(v6Get(t, "http://[::1]/archive/binary/random-64k.bin")); got != manifest["binary/random-64k.bin"] {
		t.Errorf("random-64k.bin over IPv6: sha256 %s", got)
	}
	dir := t.TempDir()
	m := filepath.Join(dir, "m")
	res := itest.RunIn(t, dir, nil, nil, "mirror", "--no-parent", "http://[::1]/archive/text/", m)
	if res.Code != 0 {
		t.Fatalf("mirror: exit %d: %s", res.Code, res.Reason())
	}
	files := 0
	for rel, sum := range manifest {
		if name, ok := strings.CutPrefix(rel, "text/"); ok && !strings.Contains(name, "/") {
			files++
			b, err := os.ReadFile(filepath.Join(m, name))
			if err != nil {
				t.Errorf("mirror: %v", err)
			} else if v6Sum(b) != sum {
				t.Errorf("mirror: %s differs from archive/text/%s", name, name)
			}
		}
	}
	if files == 0 {
		t.Fatal("the manifest lists no file under text/")
	}
	if log := since(); !strings.Contains(log, `::1 "GET /archive/text/ HTTP/1.1" 200`) {
		t.Errorf("nginx on [::1] logged no GET /archive/text/ from ::1: %q", log)
	}

	warc, raw := v6Capture(t, "http://[::1]/archive/README.txt")
	v6CheckCapture(t, raw, "http://[::1]/archive/README.txt")
	if !strings.Contains(raw, "\r\nHost: [::1]\r\n") {
		t.Errorf("the captured request has no Host: [::1]")
	}
	want := v6Get(t, "http://[::1]/archive/README.txt")
	f, addr, _ := v6Replay(t, "http", warc)
	if strings.Join(f[2:], " ") != "[::1]:80 1 urls" {
		t.Errorf("replay's ready line %q: want it to name [::1]:80", f)
	}
	_, port, _ := strings.Cut(strings.TrimPrefix(addr, "[::1]"), ":")
	if got := v6Get(t, "http://"+addr+"/archive/README.txt", "--allow-port", port); !bytes.Equal(got, want) {
		t.Errorf("replayed README.txt: %q, want %q", got, want)
	}
}

// TestIPv6Gemini: molly-brown for ::1 behind a relay on [::1]: a file, a
// directory listing whose links stay on [::1], and a capture (replay
// does not speak Gemini).
func TestIPv6Gemini(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, itest.GeminiIPv6Addr)
	since := itest.LogSince(t, "molly-brown6-access.log")
	ca := []string{"--cacert", itest.GeminiIPv6CertPath()}
	manifest := itest.Manifest(t)
	if got := v6Sum(v6Get(t, "gemini://[::1]/archive/text/dots.txt", ca...)); got != manifest["text/dots.txt"] {
		t.Errorf("dots.txt over IPv6: sha256 %s", got)
	}
	l := v6GetListing(t, append(ca, "gemini://[::1]/archive/text/")...)
	n := 0
	for _, e := range l.Entries {
		if strings.HasPrefix(e.URL, "gemini://[::1]/archive/text/") {
			n++
		}
	}
	if n != len(listDir(t, "text")) {
		t.Errorf("listing: %d entries under gemini://[::1]/archive/text/, want %d: %+v", n, len(listDir(t, "text")), l.Entries)
	}
	_, raw := v6Capture(t, "gemini://[::1]/archive/text/dots.txt", ca...)
	v6CheckCapture(t, raw, "gemini://[::1]/archive/text/dots.txt")
	if log := since(); !strings.Contains(log, "\t20\tgemini://[::1]/archive/text/dots.txt") {
		t.Errorf("molly-brown for ::1 logged no request of this test: %q", log)
	}
}
