package itest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
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
// It is killed if it is still running at the test's deadline (Context).
func Command(t testing.TB, env []string, args ...string) *exec.Cmd {
	t.Helper()
	bin := Gofer(t) // built before the deadline's clock starts
	cmd := exec.CommandContext(Context(t), bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	// Output pipes a killed gofer's children may hold open wait no longer.
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// MeasuredCommand is Command run under integration/cmd/peakrss, with a
// function that returns gofer's own peak RSS in bytes once the command has
// ended (ok false if it never got to report, as when it was killed). The
// rusage of a command started straight from the test binary is no measure:
// on Linux a child's peak starts at its parent's, and the test binary is
// far larger than gofer.
func MeasuredCommand(t testing.TB, env []string, args ...string) (*exec.Cmd, func() (rss int64, ok bool)) {
	t.Helper()
	cmd := Command(t, env, args...)
	report := filepath.Join(t.TempDir(), "peak-rss")
	cmd.Args = append([]string{"peakrss", report}, cmd.Args...)
	cmd.Path = program(t, "./integration/cmd/peakrss")
	return cmd, func() (int64, bool) {
		b, err := os.ReadFile(report)
		if err != nil {
			return 0, false
		}
		kib, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return kib << 10, err == nil
	}
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
	if ctx := Context(t); ctx.Err() != nil {
		t.Fatalf("%v: killed `gofer %s` while waiting for it to end; its stderr: %s",
			context.Cause(ctx), strings.Join(args, " "), tail(errb.String(), 2000))
	}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return Result{Code: ee.ExitCode(), Stdout: out.String(), Stderr: errb.String()}
	case err != nil:
		t.Fatalf("running gofer: %v", err)
	}
	return Result{Stdout: out.String(), Stderr: errb.String()}
}

// tail is the last n bytes of s.
func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
