package security

import (
	"errors"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestCheckMailto: CR, LF and NUL, decoded or raw, in the address, a header
// name or a header value are refused; the body may hold CR LF pairs only.
func TestCheckMailto(t *testing.T) {
	refused := []string{
		"mailto:a@b%0D%0ABcc:evil@x",
		"mailto:a@b%0Ax",
		"mailto:a@b%00",
		"mailto:a@b?subject=hi%0D%0ABcc:%20evil@x",
		"mailto:a@b?subject=hi%0Abcc",
		"mailto:a@b?cc=c@d%0D%0AX:1",
		"mailto:a@b?x%0D%0Ay=1",
		"mailto:a@b?body=one%0Atwo",
		"mailto:a@b?body=one%0Dtwo",
		"mailto:a@b?body=one%00two",
		"mailto:a@b?body=x%0A.%0D%0AMAIL%20FROM:<e@x>",
		"mailto:a@b?in-reply-to=%3Cx@y%3E%0D%0A",
	}
	for _, raw := range refused {
		u, err := schemes.Parse(raw)
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		if err := (&Guard{}).Check(u); !errors.Is(err, ErrInjection) {
			t.Errorf("%s: got %v, want an injection refusal", raw, err)
		}
	}
	for _, raw := range []string{"mailto:a@b", "mailto:a@b?subject=hi&body=l1%0D%0Al2%0D%0A", "mailto:?to=a@b&cc=c@d"} {
		u, _ := schemes.Parse(raw)
		if err := (&Guard{}).Check(u); err != nil {
			t.Errorf("%s: %v", raw, err)
		}
	}
	err := CheckText("mailto body", "ok\r\nbad\rx")
	if err == nil || !strings.Contains(err.Error(), "mailto body holds CR") {
		t.Errorf("CheckText: %v", err)
	}
}

// TestCheckServerPort: the SMTP ports pass silently, another protocol's
// port is refused unless allowed, any other port is warned about.
func TestCheckServerPort(t *testing.T) {
	var warnings []string
	g := &Guard{Warn: func(s string) { warnings = append(warnings, s) }}
	for _, p := range []int{25, 587, 465} {
		if err := g.CheckServerPort("smtp", p); err != nil {
			t.Errorf("port %d: %v", p, err)
		}
	}
	if len(warnings) != 0 {
		t.Errorf("warnings for SMTP ports: %q", warnings)
	}
	err := g.CheckServerPort("smtp", 119)
	var pe *PortError
	if !errors.As(err, &pe) || !errors.Is(err, ErrPort) || pe.Protocol != "nntp" {
		t.Fatalf("port 119: %v", err)
	}
	if !strings.Contains(err.Error(), "smtp server's port 119 is the nntp port") {
		t.Errorf("message: %v", err)
	}
	if err := g.CheckServerPort("smtp", 2525); err != nil || len(warnings) != 1 || !strings.Contains(warnings[0], "2525") {
		t.Errorf("port 2525: %v %q", err, warnings)
	}
	g.AllowPorts = []int{119}
	if err := g.CheckServerPort("smtp", 119); err != nil || len(warnings) != 2 {
		t.Errorf("allowed 119: %v %q", err, warnings)
	}
}
