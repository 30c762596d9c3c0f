package gopher

import (
	"context"
	"errors"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// TestSendChecksTheRequestOnTheWire: the request is checked again at the
// one place it is written, whatever built it: a line with an LF inside is
// refused with security.ErrInjection and the server receives nothing.
func TestSendChecksTheRequestOnTheWire(t *testing.T) {
	s := newScripted(t, func(int, string) string { return "" })
	req := newRequest(s.url(schemes.Gopher{Type: '0', Selector: "a"}))
	tg, err := newTarget(req.URL)
	if err != nil {
		t.Fatal(err)
	}
	c, err := exchange(context.Background(), req, tg, "a\nDELE\r\n", nil)
	if c != nil || !errors.Is(err, security.ErrInjection) {
		t.Fatalf("exchange = %v, %v; want ErrInjection", c, err)
	}
	s.ln.Close()
	s.wg.Wait() // the server has read to the close
	if got := s.Requests(); len(got) != 1 || got[0] != "" {
		t.Fatalf("the server received %q, want nothing", got)
	}
}
