package security_test

import (
	"fmt"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

func ExampleGuard_Check() {
	g := security.Guard{Warn: func(s string) { fmt.Println("warning:", s) }}
	for _, raw := range []string{
		"gopher://127.0.0.70/0about",            // default port: silent
		"gopher://127.0.0.70:7070/0about",       // another port: a warning
		"gopher://127.0.0.70:25/0about",         // SMTP's port: refused
		"ftp://127.0.0.21/etc%0D%0ADELE%20motd", // a CR LF in a CWD argument: refused
	} {
		u, err := schemes.Parse(raw)
		if err != nil {
			fmt.Println(err)
			continue
		}
		if err := g.Check(u); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// warning: gopher URL names port 7070, not its default 70
	// refused: gopher URL names port 25, the smtp port; gopher's default port is 70
	// refused: ftp segment 1 holds CR (%0D), which would inject into the protocol
}
