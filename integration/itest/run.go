package itest

import (
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Result is what one run of the gofer binary did.
type Result struct {
	Code   int
	Stdout string
	Stderr string
}

// Reason is the last line of stderr: the one-line error gofer printed.
func (r Result) Reason() string {
	lines := strings.Split(strings.TrimSpace(r.Stderr), "\n")
	return lines[len(lines)-1]
}

// Run runs the gofer binary with args, stdin (nil: empty) and extra
// environment entries ("NAME=value") on top of the test's environment, in
// which $NNTPSERVER is cleared and $EMAIL is gofer@example.org so that
// nothing of the machine's own setup leaks into a test.
func Run(t testing.TB, stdin io.Reader, env []string, args ...string) Result {
	t.Helper()
	cmd := exec.Command(Gofer(t), args...)
	cmd.Env = append(append(os.Environ(), "NNTPSERVER=", "EMAIL=gofer@example.org"), env...)
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	cmd.Stdin = stdin
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return Result{Code: ee.ExitCode(), Stdout: out.String(), Stderr: errb.String()}
	case err != nil:
		t.Fatalf("running gofer: %v", err)
	}
	return Result{Stdout: out.String(), Stderr: errb.String()}
}
