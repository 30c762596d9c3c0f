package mirror

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

const killDirEnv = "GOFER_MIRROR_KILL_DIR"

func killTree() *memFTP {
	m := newMemFTP()
	for d := range 4 {
		for f := range 8 {
			m.file(fmt.Sprintf("d%d/f%d.txt", d, f), strings.Repeat(fmt.Sprintf("%d/%d ", d, f), 200*(f+1)))
		}
	}
	m.file("big/one.bin", strings.Repeat("0123456789abcdef", (resumeMin+300_000)/16))
	m.file("big/two.bin", strings.Repeat("fedcba9876543210", (2*resumeMin+12345)/16))
	return m
}

// TestKillHelperProcess is the mirror that TestKill9AtRandomMomentsThenRerun
// kills: it reports every body start and every read on stdout, so that the
// parent can kill it at a moment it picks.
func TestKillHelperProcess(t *testing.T) {
	dir := os.Getenv(killDirEnv)
	if dir == "" {
		t.Skip("helper process of TestKill9AtRandomMomentsThenRerun")
	}
	m := killTree()
	out := bufio.NewWriter(os.Stdout)
	var mu sync.Mutex
	say := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(out, s)
		out.Flush()
	}
	m.gate = func(path string) { say("body " + path) }
	m.reads = func() { say("read") }
	Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Jobs: 3})
	say("done")
}

func TestKill9AtRandomMomentsThenRerun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the mirror in child processes")
	}
	ref := t.TempDir()
	if _, err := Run(context.Background(), newClient(killTree()), "x-ftp://127.0.0.1/", ref, Options{}); err != nil {
		t.Fatal(err)
	}
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, seed))
	t.Logf("seed %d", seed)
	want := tree(t, ref)
	for round := range 5 {
		// Each round kills a fresh mirror once or twice at random
		// moments, then runs it to the end.
		dir := t.TempDir()
		for kill := range 1 + rng.IntN(2) {
			k := 1 + rng.IntN(300)
			lines, killed := killAfter(t, dir, k)
			t.Logf("round %d kill %d: killed=%v after %d lines", round, kill, killed, lines)
		}
		m := killTree()
		sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{})
		if err != nil || sum.Failed != 0 {
			t.Fatalf("rerun: %v %+v", err, sum)
		}
		t.Logf("round %d: rerun fetched %d bodies, resumed big/one.bin at %d, big/two.bin at %d",
			round, m.totalBodies(), m.offs["big/one.bin"], m.offs["big/two.bin"])
		got := tree(t, dir)
		if strings.Join(keys(got), "|") != strings.Join(keys(want), "|") {
			t.Fatalf("tree after kills and rerun %q\nwant %q", keys(got), keys(want))
		}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("round %d: %s differs after kills and rerun", round, k)
			}
		}
		if n := tempFiles(t, dir); len(n) != 0 {
			t.Errorf("round %d: temp files left: %q", round, n)
		}
	}
}

// killAfter runs the helper mirror into dir and kills it with SIGKILL
// after it has reported k events.
func killAfter(t *testing.T, dir string, k int) (lines int, killed bool) {
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillHelperProcess$", "-test.v")
	cmd.Env = append(os.Environ(), killDirEnv+"="+dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if !strings.HasPrefix(sc.Text(), "body") && sc.Text() != "read" {
			continue
		}
		lines++
		if lines == k {
			cmd.Process.Kill() // SIGKILL on Unix
			return lines, true
		}
	}
	return lines, false
}
