package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// gofer runs one command line in-process and returns its exit code, stdout and stderr.
func gofer(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestExitCodeMapping(t *testing.T) {
	cases := []struct {
		err  error
		want int
	}{
		{nil, 0},
		{errors.New("odd"), 1},
		{&schemes.ParseError{Msg: "bad escape", Pos: 3}, 2},
		{schemes.Errorf(schemes.ErrUsage, "a query is needed"), 2},
		{schemes.Errorf(schemes.ErrUnsupportedScheme, "unsupported scheme"), 2},
		{&security.InjectionError{Part: "ftp segment 1", Byte: '\n'}, 3},
		{security.ErrPort, 3},
		{security.ErrUnsafeName, 3},
		{security.ErrRedirect, 3},
		{schemes.Errorf(schemes.ErrConnect, "refused"), 4},
		{schemes.Errorf(schemes.ErrRefused, "550 no"), 5},
		{schemes.Errorf(schemes.ErrAuth, "530 no"), 6},
		{schemes.Errorf(schemes.ErrTimeout, "slow"), 7},
		{context.DeadlineExceeded, 7},
		{schemes.Errorf(schemes.ErrInterrupted, "cut"), 8},
		{schemes.Errorf(schemes.ErrMissingProgram, "no c3270"), 1},
	}
	for _, c := range cases {
		if got := exitCode(c.err); got != c.want {
			t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
		}
	}
}

// seed is one entry of testdata/urls/seeds.json: every URL example of the
// seed documents with its expected parts and requests.
type seed struct {
	URL      string         `json:"url"`
	Source   string         `json:"source"`
	Parts    map[string]any `json:"parts"`
	Requests []string       `json:"requests"`
}

func loadSeeds(t *testing.T) []seed {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "testdata", "urls", "seeds.json"))
	if err != nil {
		t.Fatal(err)
	}
	var seeds []seed
	if err := json.Unmarshal(b, &seeds); err != nil {
		t.Fatal(err)
	}
	if len(seeds) < 20 {
		t.Fatalf("only %d seed URLs in the corpus", len(seeds))
	}
	return seeds
}

// TestParseSeedRequests runs `gofer parse --json` on every seed URL that
// names requests and compares the request lines byte for byte.
func TestParseSeedRequests(t *testing.T) {
	checked := 0
	for _, s := range loadSeeds(t) {
		if s.Requests == nil {
			continue
		}
		t.Run(s.URL, func(t *testing.T) {
			args := []string{"parse", "--json", "--email", "gofer@example.org"}
			if strings.HasPrefix(s.URL, "news:") {
				args = append(args, "--nntp-server", "127.0.0.119")
			}
			code, out, errOut := gofer(t, "", append(args, s.URL)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			var got struct {
				Requests []string `json:"requests"`
				Scheme   string   `json:"scheme"`
			}
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v in %s", err, out)
			}
			if strings.Join(got.Requests, "\n") != strings.Join(s.Requests, "\n") {
				t.Errorf("requests\n got %q\nwant %q", got.Requests, s.Requests)
			}
			if want, _ := s.Parts["scheme"].(string); want != "" && got.Scheme != want {
				t.Errorf("scheme %q, want %q", got.Scheme, want)
			}
		})
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d seed URLs carry requests", checked)
	}
}

func TestParseRefusals(t *testing.T) {
	cases := []struct {
		url  string
		part string // what the one-line reason must name
	}{
		{"ftp://127.0.0.21/etc%0D%0ADELE%20x/motd", "segment"},
		{"ftp://us%0Aer@127.0.0.21/x", "user"},
		{"gopher://127.0.0.70/0sel%0D%0Aector", "selector"},
		{"gopher://127.0.0.70/7sel%09se%0Aarch", "search"},
		{"news:abc%0D%0AQUIT@example", "message"},
		{"nntp://127.0.0.119/gr%00oup/1", "group"},
		{"telnet://us%FFer@127.0.0.23/", "user"},
		{"http://127.0.0.80/a%0D%0AHost:%20x", "path"},
		{"gopher://127.0.0.70:25/0x", "25"},
		{"ftp://127.0.0.21:119/x", "119"},
	}
	for _, c := range cases {
		code, out, errOut := gofer(t, "", "parse", "--nntp-server", "127.0.0.119", c.url)
		if code != 3 {
			t.Errorf("%s: exit %d, want 3 (stderr %q)", c.url, code, errOut)
			continue
		}
		if out != "" {
			t.Errorf("%s: printed %q on a refusal", c.url, out)
		}
		lines := strings.Split(strings.TrimSpace(errOut), "\n")
		last := lines[len(lines)-1]
		if !strings.Contains(strings.ToLower(last), c.part) {
			t.Errorf("%s: reason %q does not name %q", c.url, last, c.part)
		}
	}
}

func TestMalformedURL(t *testing.T) {
	code, _, errOut := gofer(t, "", "parse", "ftp://127.0.0.21/a%zzb")
	if code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if !strings.Contains(errOut, "position") || strings.Count(errOut, "\n") != 1 {
		t.Errorf("want one line naming the position, got %q", errOut)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"get"},
		{"get", "--no-such-flag", "file:///etc/hostname"},
		{"get", "-o", "a", "-O", "file:///etc/hostname"},
		{"get", "-C", "file:///etc/hostname"},
		{"parse"},
		{"mirror", "ftp://127.0.0.21/"},
	} {
		if code, _, _ := gofer(t, "", args...); code != 2 {
			t.Errorf("gofer %q: exit %d, want 2", args, code)
		}
	}
}

func TestUnsupportedScheme(t *testing.T) {
	code, _, errOut := gofer(t, "", "get", "x-nothing:abc")
	if code != 2 || !strings.Contains(errOut, "unsupported scheme") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

func TestExtract(t *testing.T) {
	text := "See <URL:ftp://host.dom/pub/\n   file.txt> and gopher://127.0.0.70/1/ then\n<http://127.0.0.80/a>.\n"
	code, out, errOut := gofer(t, text, "extract")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "ftp://host.dom/pub/file.txt\ngopher://127.0.0.70/1/\nhttp://127.0.0.80/a\n"
	if out != want {
		t.Errorf("extract printed %q, want %q", out, want)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"10": 10, "2K": 2048, "3m": 3 << 20, "1G": 1 << 30, "5KB": 5120} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "x", "-1", "K"} {
		if _, err := parseSize(bad); err == nil {
			t.Errorf("parseSize(%q) accepted", bad)
		}
	}
}

func TestPrintable(t *testing.T) {
	if got := printable("a\x1b[2Jb\xe9c"); got != `a\x1b[2Jb\xe9c` {
		t.Errorf("printable = %q", got)
	}
	if got := printable("Grüße"); got != "Grüße" {
		t.Errorf("printable mangled UTF-8: %q", got)
	}
}

// TestParseMailto: gofer parse shows the SMTP commands and the header block
// of a mailto send, with no network, and refuses an injected header.
func TestParseMailto(t *testing.T) {
	code, out, errOut := gofer(t, "", "parse", "--from", "me@example.org", "--smtp-server", "127.0.0.25:587", "--smtp-user", "me",
		"mailto:you@example.org?subject=Hi&body=text")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"  STARTTLS\n", "  AUTH PLAIN ****\n", "  MAIL FROM:<me@example.org>\n", "  RCPT TO:<you@example.org>\n", "  Subject: Hi\n", "  text\n", "  QUIT\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("parse output lacks %q:\n%s", want, out)
		}
	}
	code, _, errOut = gofer(t, "", "parse", "--from", "me@example.org", "mailto:you@example.org?subject=a%0D%0ABcc:x@y")
	if code != 3 || !strings.Contains(errOut, "mailto header subject holds CR") {
		t.Errorf("exit %d: %s", code, errOut)
	}
}
