package itest

import (
	"os/exec"
	"runtime"
	"syscall"
	"testing"
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
