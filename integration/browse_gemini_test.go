package integration_test

// gofer browse on a Gemini capsule, end to end: the built binary in a
// tmux pane (startBrowse, browse_test.go) against molly-brown on
// 127.0.0.196:1965 (integration/LAYOUT.md, "Gemini").

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes/gemini"
)

// geminiFingerprint is the fingerprint gofer pins for the capsule's
// certificate.
func geminiFingerprint(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(itest.GeminiCertPath())
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		t.Fatalf("no PEM block in %s", itest.GeminiCertPath())
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return gemini.Fingerprint(cert)
}

// knownHost is the line the known-hosts file has for the capsule, "" when
// it has none.
func knownHost(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("known hosts: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, geminiAddr+" ") {
			return line
		}
	}
	return ""
}

func TestBrowseGemini(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, geminiAddr)
	real := geminiFingerprint(t)
	root := "gemini://" + itest.GeminiHost + "/"
	p := startBrowse(t, root)
	knownHosts := filepath.Join(p.dir, "config", "gofer", "known_hosts")

	// The index: its heading, text, a list item, a quote, the
	// preformatted block verbatim, and its links.
	p.waitFor("# gofer integration capsule", "* the sample archive, as a directory listing",
		"> A quote line: Gemini is neither HTTP nor Gopher.", "   # not a heading", "=> not a link either",
		"The sample archive", "An input page (10)", root)
	if line := knownHost(t, knownHosts); !strings.HasPrefix(line, geminiAddr+" "+real+" ") {
		t.Errorf("pinned at first use: %q, want %s", line, real)
	}

	// A link, and back.
	p.open("The sample archive")
	p.waitFor("# Directory listing", "README.txt", "binary/", root+"archive/")
	p.keys("Left")
	p.waitFor("# gofer integration capsule")

	// An input page: the question on the bottom line, the answer sent.
	p.open("An input page")
	p.waitFor("What is your name?:")
	p.typeText("Ada")
	p.keys("Enter")
	p.waitFor("# Hello, Ada", root+"cgi-bin/ask?Ada")
	p.keys("Left")

	// Sensitive input is masked; the text/plain answer is in the pager.
	p.open("A sensitive input page")
	p.waitFor("Password?:")
	p.typeText("hunter2")
	p.waitFor("Password?: *******")
	if strings.Contains(p.screen(), "hunter2") {
		t.Error("the sensitive input shows on the screen")
	}
	p.keys("Enter")
	p.waitFor("secret accepted: 7 characters", root+"cgi-bin/secret?hunter2")
	p.keys("Left")

	// A redirect is followed; the page is known by where it ended.
	p.open("A temporary redirect")
	p.waitFor(root+"index.gmi", "# gofer integration capsule")

	// The certificate pinned no longer matches (a wrong fingerprint that
	// has not expired): both fingerprints, a question, and y accepts.
	wrong := "SHA256:" + strings.Repeat("0123456789abcdef", 4)
	if err := os.WriteFile(knownHosts, []byte(geminiAddr+" "+wrong+" 2099-01-01T00:00:00Z\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	p.typeText("g")
	p.waitFor("Open URL:")
	p.typeText(root + "archive/")
	p.keys("Enter")
	p.waitFor("Changed certificate", "pinned:     "+wrong, "valid until 2099-01-01", "presented:  "+real,
		"accept the new certificate? (y/n)")
	p.typeText("y")
	p.waitFor("# Directory listing", "README.txt", root+"archive/")
	if line := knownHost(t, knownHosts); !strings.HasPrefix(line, geminiAddr+" "+real+" ") {
		t.Errorf("after y the pin is %q, want %s", line, real)
	}

	p.typeText("q")
	rc, before, after := p.exit()
	if rc != "0" {
		t.Errorf("exit code %s", rc)
	}
	if before == "" || before != after {
		t.Errorf("terminal settings changed:\nbefore %s\nafter  %s", before, after)
	}
}
