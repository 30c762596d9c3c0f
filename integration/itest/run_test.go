package itest

import (
	"fmt"
	"net"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMeasuredCommandIsNotItsParent: with 256 MiB resident in the test
// binary, the peak RSS measured for `gofer version` is gofer's own few MiB,
// not the parent's size that a plain child's rusage reports.
func TestMeasuredCommandIsNotItsParent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gofer")
	}
	ballast := make([]byte, 256<<20)
	for i := range ballast {
		ballast[i] = 1 // resident, not just reserved
	}

	plain := exec.Command(Gofer(t), "version")
	if err := plain.Run(); err != nil {
		t.Fatal(err)
	}
	t.Logf("gofer version started straight from the test: rusage peak %d MiB",
		plain.ProcessState.SysUsage().(*syscall.Rusage).Maxrss>>10)

	cmd, peak := MeasuredCommand(t, nil, "version")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	rss, ok := peak()
	if !ok {
		t.Fatal("no peak RSS reported")
	}
	t.Logf("gofer version under peakrss: peak %d MiB", rss>>20)
	if rss <= 0 || rss > 64<<20 {
		t.Errorf("peak RSS %d MiB: the 256 MiB parent leaked into the measure", rss>>20)
	}
	runtime.KeepAlive(ballast)
}

// fatalRecorder is a testing.TB whose Fatalf ends the goroutine that
// called it, keeping the message, as testing.T's own does.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// TestRunEndsAtTheDeadline: a gofer that waits on a server that never
// answers is killed at the test's deadline, and the failure names the
// test, the deadline and the command it was waiting for.
func TestRunEndsAtTheDeadline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds gofer")
	}
	t.Setenv("GOFER_TEST_DEADLINE", "700ms")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close() // silent: accepted, never answered
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	f := &fatalRecorder{TB: t}
	start := time.Now()
	done := make(chan struct{})
	go func() {
		defer close(done)
		Run(f, nil, nil, "get", "--allow-port", strconv.Itoa(port), "--idle-timeout", "5m", "gopher://"+ln.Addr().String()+"/0/x")
	}()
	<-done
	took := time.Since(start)
	for _, want := range []string{t.Name(), "deadline of 700ms", "gofer get --allow-port"} {
		if !strings.Contains(f.msg, want) {
			t.Errorf("failure %q does not say %q", f.msg, want)
		}
	}
	if took > time.Minute {
		t.Errorf("the command ran %v past a 700ms deadline", took)
	}
}
