// Command testreport reads the event stream of `go test -json` on standard
// input, writes the test output as plain `go test -v` would show it, and
// ends with the slowest tests, so that the next slow one is seen:
//
//	go test -json ./... | testreport [-slowest N] [-events FILE]
//
// Tests are ranked by their own elapsed time as go test reports it; a
// parallel test's time includes the time it waited for its turn, so a
// second list ranks packages by their whole time. -events keeps a copy of
// the raw stream for a closer look (per-test times of every test).
//
// The exit status is 1 when any test or package failed and 0 otherwise; a
// stream that names no test at all is a failure too, since a suite that ran
// nothing has shown nothing.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"
)

// event is one line of `go test -json` (cmd/test2json's TestEvent).
type event struct {
	Time    time.Time
	Action  string // run, pause, cont, output, pass, fail, skip, build-output, build-fail
	Package string
	Test    string
	Elapsed float64
	Output  string
}

type timing struct {
	name    string
	seconds float64
	failed  bool
	sub     bool // a subtest (its name has a slash)
}

func main() {
	slowest := flag.Int("slowest", 10, "how many of the slowest tests to list")
	eventsPath := flag.String("events", "", "also write the raw JSON events to `FILE`")
	flag.Parse()

	var copyTo io.Writer = io.Discard
	if *eventsPath != "" {
		f, err := os.Create(*eventsPath)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testreport:", err)
			os.Exit(2)
		}
		defer f.Close()
		copyTo = f
	}
	out := bufio.NewWriter(os.Stdout)
	tests, packages, failed, err := read(io.TeeReader(os.Stdin, copyTo), out)
	if err != nil {
		fmt.Fprintln(out, "testreport:", err)
		failed = true
	}
	report(out, tests, packages, *slowest)
	if len(tests) == 0 {
		fmt.Fprintln(out, "testreport: no test ran")
		failed = true
	}
	out.Flush()
	if failed {
		os.Exit(1)
	}
}

// read writes what a plain `go test` would show as it arrives: the
// packages' own lines, and a test's output only when it fails (held until
// it ends; a test still running when its package fails, as on a time-out,
// is shown then). It collects the final time of every test and package.
func read(in io.Reader, out *bufio.Writer) (tests, packages []timing, failed bool, err error) {
	held := map[[2]string][]string{} // the output of running tests, by package and test
	show := func(lines []string) {
		for _, l := range lines {
			out.WriteString(l)
		}
		out.Flush()
	}
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64*1024), 16*1024*1024)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if json.Unmarshal(line, &e) != nil || e.Action == "" {
			// go test writes build failures as plain text between events.
			out.Write(line)
			out.WriteByte('\n')
			out.Flush()
			continue
		}
		key := [2]string{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			show([]string{e.Output})
		case "build-fail":
			failed = true
		case "output":
			if e.Test != "" {
				held[key] = append(held[key], e.Output)
				continue
			}
			if strings.HasPrefix(e.Output, "=== ") || e.Output == "PASS\n" {
				continue // the -v chatter go test -json always asks for
			}
			show([]string{e.Output})
		case "pass", "fail", "skip":
			t := timing{seconds: e.Elapsed, failed: e.Action == "fail", sub: strings.Contains(e.Test, "/")}
			failed = failed || t.failed
			switch {
			case e.Test == "":
				t.name = e.Package
				packages = append(packages, t)
				if t.failed {
					// Whatever is still held belongs to tests that never
					// ended: a time-out or a panic ended the package.
					for k, lines := range held {
						if k[0] == e.Package {
							show(lines)
							delete(held, k)
						}
					}
				}
			case e.Action == "skip":
				t.name = e.Package + " " + e.Test + " (skipped)"
				tests = append(tests, t)
			default:
				t.name = e.Package + " " + e.Test
				tests = append(tests, t)
			}
			if t.failed {
				show(held[key])
			}
			delete(held, key)
		}
	}
	return tests, packages, failed, sc.Err()
}

func report(out io.Writer, tests, packages []timing, n int) {
	list := func(title string, ts []timing, n int) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].seconds > ts[j].seconds })
		if len(ts) > n {
			ts = ts[:n]
		}
		fmt.Fprintf(out, "\n%s\n", title)
		for _, t := range ts {
			mark := ""
			if t.failed {
				mark = "  FAIL"
			}
			fmt.Fprintf(out, "%8.1fs  %s%s\n", t.seconds, t.name, mark)
		}
	}
	// Subtests are named with a slash; rank the top-level ones, which are
	// what a reader can run alone with -run.
	var top []timing
	for _, t := range tests {
		if !t.sub {
			top = append(top, t)
		}
	}
	list(fmt.Sprintf("the %d slowest tests (of %d run):", min(n, len(top)), len(top)), top, n)
	list("packages by time:", packages, 8)
}
