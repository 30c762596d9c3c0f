// Command gofer retrieves whatever an RFC 1738 URL names by speaking the
// protocol the URL names: FTP, HTTP, Gopher and Gopher+, NNTP, telnet and
// local files.
//
//	gofer get [flags] URL...
//	gofer mirror [flags] URL DIR
//	gofer parse [--json] URL
//	gofer extract [FILE]
//	gofer browse [flags] [URL]
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one gofer command line and returns its exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := &cli{stdin: stdin, stdout: stdout, stderr: stderr}
	root := c.rootCommand()
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return c.code
	}
	if c.code != exitOK {
		// A command that already reported its failures (get with several
		// URLs, mirror) set its own code.
		return c.code
	}
	c.errorf("%v", hinted(err))
	return exitCode(err)
}

// errorf prints a one-line error on stderr.
func (c *cli) errorf(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	msg = strings.ReplaceAll(strings.TrimSpace(msg), "\n", " ")
	fmt.Fprintf(c.stderr, "gofer: %s\n", msg)
}

// warnf prints a warning on stderr, each distinct one once per run (up
// to maxWarned remembered; past that, repeats print again).
func (c *cli) warnf(msg string) {
	msg = strings.ReplaceAll(strings.TrimSpace(msg), "\n", " ")
	c.warnMu.Lock()
	defer c.warnMu.Unlock()
	if c.warned[msg] {
		return
	}
	if c.warned == nil {
		c.warned = map[string]bool{}
	}
	if len(c.warned) < maxWarned {
		c.warned[msg] = true
	}
	fmt.Fprintf(c.stderr, "gofer: warning: %s\n", msg)
}

// maxWarned bounds the warnings warnf remembers.
const maxWarned = 4096
