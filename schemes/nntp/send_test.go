package nntp

import (
	"context"
	"errors"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// TestSendIsTheChokePoint: every command goes out through send, which
// refuses a line with a CR, LF or NUL inside before any byte of it is
// written; the session stays in step for the next command.
func TestSendIsTheChokePoint(t *testing.T) {
	s := serve(t, greeting, step{want: "DATE", reply: "111 20240102030405\r\n"})
	req := newsReq(s, &schemes.News{Group: "g"})
	c, err := dialServer(context.Background(), req, s.addr, "127.0.0.1", false)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.readStatus("greeting"); err != nil {
		t.Fatal(err)
	}
	for _, arg := range []string{"a\r\nQUIT", "a\nb", "a\x00"} {
		if err := c.send(command{verb: "GROUP", arg: arg}); !errors.Is(err, security.ErrInjection) {
			t.Errorf("GROUP %q: %v, want ErrInjection", arg, err)
		}
	}
	if code, _, err := c.cmd(command{verb: "DATE"}); err != nil || code != 111 {
		t.Fatalf("the next command: %d, %v", code, err)
	}
	c.lc.Close()
	equalLines(t, s.wait(t), []string{"DATE"})
}
