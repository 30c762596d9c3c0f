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

// Command is the gofer binary with args in a clean environment: only PATH
// and a fresh HOME, then env ("NAME=value") on top, so that nothing of the
// machine's own setup ($NNTPSERVER, proxies, ~/.netrc) leaks into a test.
func Command(t testing.TB, env []string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(Gofer(t), args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	return cmd
}

// Run runs gofer with args, stdin (nil: empty) and env as in Command.
func Run(t testing.TB, stdin io.Reader, env []string, args ...string) Result {
	t.Helper()
	return RunIn(t, "", stdin, env, args...)
}

// RunIn is Run in the working directory dir ("" for the test's own).
func RunIn(t testing.TB, dir string, stdin io.Reader, env []string, args ...string) Result {
	t.Helper()
	cmd := Command(t, env, args...)
	cmd.Dir = dir
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
