package integration_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/integration/hostile"
	"github.com/goferurl/gofer/integration/itest"
)

// hostileCase is one misbehaving server and what gofer must do about it.
type hostileCase struct {
	name    string
	start   func() (*hostile.Server, error)
	url     string   // ADDR is the server's address
	args    []string // besides get, -o and the URL
	code    int      // the documented exit code
	reason  string   // what the one-line error must say (lower case)
	noFile  bool     // the body goes to stdout, not to -o
	partial bool     // a partial file may stay (NAME.part) for -C
	// timeout bounds how long gofer may take: its own time-outs end it
	// sooner (30 s when 0). A bulk case (a million entries) is bounded
	// by the test's deadline alone: its time is the machine's, and a
	// benchmark's business.
	timeout time.Duration
	bulk    bool
	want    string // the exact output file, when set
}

func plain(h func(*hostile.Conn)) func() (*hostile.Server, error) {
	return func() (*hostile.Server, error) { return hostile.Start("127.0.0.1:0", h) }
}

func hostileCases(foreign string) []hostileCase {
	const tmo = "3s"
	return []hostileCase{
		// FTP
		{name: "ftp endless greeting", start: plain(hostile.FTP(hostile.FTPEndlessGreeting, "")), url: "ftp://ADDR/f", args: []string{"--timeout", tmo}, code: 1, reason: "line"},
		{name: "ftp garbage greeting", start: plain(hostile.FTP(hostile.FTPGarbage, "")), url: "ftp://ADDR/f", args: []string{"--timeout", tmo}, code: 5, reason: ""},
		{name: "ftp 1xx reply storm", start: plain(hostile.FTP(hostile.FTPReplyStorm, "")), url: "ftp://ADDR/f", args: []string{"--timeout", tmo}, code: 5, reason: ""},
		{name: "ftp body past max-size", start: plain(hostile.FTP(hostile.FTPOversize, "")), url: "ftp://ADDR/f.bin", args: []string{"--max-size", "1M"}, code: 1, reason: "1048576"},
		{name: "ftp trickle", start: plain(hostile.FTP(hostile.FTPTrickle, "")), url: "ftp://ADDR/f.bin", args: []string{"--timeout", tmo}, code: 7, reason: "timed out", partial: true},
		{name: "ftp silent mid-reply", start: plain(hostile.FTP(hostile.FTPSilent, "")), url: "ftp://ADDR/f.bin", args: []string{"--idle-timeout", "2s"}, code: 7, reason: "timed out", partial: true},
		{name: "ftp close mid-transfer", start: plain(hostile.FTP(hostile.FTPCut, "")), url: "ftp://ADDR/f.bin", code: 8, reason: "", partial: true},
		{name: "ftp million-entry listing", start: plain(hostile.FTP(hostile.FTPMillion, "")), url: "ftp://ADDR/dir/", args: []string{"--json"}, code: 0, noFile: true, bulk: true},
		{name: "ftp foreign PASV address", start: plain(hostile.FTP(hostile.FTPForeignPASV, foreign)), url: "ftp://ADDR/f.bin", args: []string{"--timeout", tmo}, code: 5, reason: strings.Split(foreign, ":")[0]},
		{name: "ftp TLS refused after required", start: plain(hostile.FTP(hostile.FTPRefuseTLS, "")), url: "ftp://ADDR/f.bin", args: []string{"--ftp-ssl", "--timeout", tmo}, code: 5, reason: "tls"},
		{name: "ftps bad certificate", start: func() (*hostile.Server, error) {
			return hostile.StartTLS("127.0.0.1:0", hostile.FTP("", ""))
		}, url: "ftps://ADDR/f.bin", args: []string{"--timeout", tmo}, code: 4, reason: "certificate"},
		// Gopher
		{name: "gopher endless line", start: plain(hostile.Gopher(hostile.GopherEndlessLine)), url: "gopher://ADDR/1", args: []string{"--timeout", "20s"}, code: 1, reason: "line", noFile: true},
		{name: "gopher body past max-size", start: plain(hostile.Gopher(hostile.GopherOversize)), url: "gopher://ADDR/9big.bin", args: []string{"--max-size", "1M"}, code: 1, reason: "1048576"},
		{name: "gopher trickle", start: plain(hostile.Gopher(hostile.GopherTrickle)), url: "gopher://ADDR/0slow.txt", args: []string{"--timeout", tmo}, code: 7, reason: "timed out", partial: true},
		{name: "gopher silent mid-reply", start: plain(hostile.Gopher(hostile.GopherSilent)), url: "gopher://ADDR/0half.txt", args: []string{"--idle-timeout", "2s"}, code: 7, reason: "timed out", partial: true},
		{name: "gopher+ close mid-transfer", start: plain(hostile.Gopher(hostile.GopherCutPlus)), url: "gopher://ADDR/9cut.bin%09%09+", code: 8, reason: "", partial: true},
		// A reply without Gopher+ framing is plain Gopher (servers that ignore
		// Gopher+ strings answer so): it is kept byte for byte, not refused.
		{name: "gopher+ unframed reply", start: plain(hostile.Gopher(hostile.GopherGarbagePlus)), url: "gopher://ADDR/9x%09%09+", args: []string{"--timeout", tmo}, code: 0, want: "+banana\r\nnot a gopher+ reply\r\n"},
		{name: "gopher million-item menu", start: plain(hostile.Gopher(hostile.GopherMillion)), url: "gopher://ADDR/1", args: []string{"--json"}, code: 0, noFile: true, bulk: true},
		// NNTP
		{name: "nntp endless greeting", start: plain(hostile.NNTP(hostile.NNTPEndlessGreeting)), url: "nntp://ADDR/hostile.group/1", args: []string{"--timeout", "20s"}, code: 1, reason: "line"},
		{name: "nntp garbage greeting", start: plain(hostile.NNTP(hostile.NNTPGarbage)), url: "nntp://ADDR/hostile.group/1", args: []string{"--timeout", tmo}, code: 5, reason: ""},
		{name: "nntp million-entry overview", start: plain(hostile.NNTP(hostile.NNTPMillion)), url: "nntp://ADDR/hostile.group", args: []string{"--json"}, code: 0, noFile: true, bulk: true},
		{name: "nntp close mid-article", start: plain(hostile.NNTP(hostile.NNTPCut)), url: "nntp://ADDR/hostile.group/1", code: 8, reason: "", partial: true},
		{name: "nntp trickle", start: plain(hostile.NNTP(hostile.NNTPTrickle)), url: "nntp://ADDR/hostile.group/1", args: []string{"--timeout", tmo}, code: 7, reason: "timed out", partial: true},
		{name: "nntp silent mid-reply", start: plain(hostile.NNTP(hostile.NNTPSilent)), url: "nntp://ADDR/hostile.group/1", args: []string{"--idle-timeout", "2s"}, code: 7, reason: "timed out", partial: true},
		{name: "nntp body past max-size", start: plain(hostile.NNTP(hostile.NNTPOversize)), url: "nntp://ADDR/hostile.group/1", args: []string{"--max-size", "1M"}, code: 1, reason: "1048576"},
		// HTTP
		{name: "http endless header", start: plain(hostile.HTTP(hostile.HTTPEndlessHeader)), url: "http://ADDR/f", args: []string{"--timeout", "20s"}, code: 1, reason: "limit"},
		{name: "http body past max-size", start: plain(hostile.HTTP(hostile.HTTPOversize)), url: "http://ADDR/f.bin", args: []string{"--max-size", "1M"}, code: 1, reason: "1048576"},
		{name: "http trickle", start: plain(hostile.HTTP(hostile.HTTPTrickle)), url: "http://ADDR/f.bin", args: []string{"--timeout", tmo}, code: 7, reason: "timed out", partial: true},
		{name: "http silent mid-reply", start: plain(hostile.HTTP(hostile.HTTPSilent)), url: "http://ADDR/f.bin", args: []string{"--idle-timeout", "2s"}, code: 7, reason: "timed out", partial: true},
		{name: "http close mid-transfer", start: plain(hostile.HTTP(hostile.HTTPCut)), url: "http://ADDR/f.bin", code: 8, reason: "", partial: true},
		{name: "http garbage status", start: plain(hostile.HTTP(hostile.HTTPGarbage)), url: "http://ADDR/f", args: []string{"--timeout", tmo}, code: 5, reason: ""},
		{name: "http redirect loop", start: plain(hostile.HTTP(hostile.HTTPRedirectLoop)), url: "http://ADDR/loop", code: 5, reason: "redirect"},
		{name: "http endless redirects", start: plain(hostile.HTTP(hostile.HTTPRedirectChain)), url: "http://ADDR/r/0", code: 5, reason: "redirect"},
		{name: "http redirect to file", start: plain(hostile.HTTP(hostile.HTTPRedirectFile)), url: "http://ADDR/x", code: 3, reason: "file"},
		{name: "https bad certificate", start: func() (*hostile.Server, error) {
			return hostile.StartTLS("127.0.0.1:0", hostile.HTTP(hostile.HTTPCut))
		}, url: "https://ADDR/f", args: []string{"--timeout", tmo}, code: 4, reason: "certificate"},
		// Telnet: a session ends when the server closes, or --linger after stdin ends.
		{name: "telnet IAC storm", start: plain(hostile.Telnet(hostile.TelnetIACStorm)), url: "telnet://ADDR/", args: []string{"--linger", "1s", "--timeout", "10s"}, code: 0, noFile: true},
		{name: "telnet endless subnegotiation", start: plain(hostile.Telnet(hostile.TelnetEndlessSB)), url: "telnet://ADDR/", args: []string{"--linger", "1s", "--timeout", "10s"}, code: 0, noFile: true},
		{name: "telnet endless line", start: plain(hostile.Telnet(hostile.TelnetEndlessLine)), url: "telnet://ADDR/", args: []string{"--linger", "1s", "--timeout", "10s"}, code: 0, noFile: true},
		{name: "telnet close", start: plain(hostile.Telnet(hostile.TelnetCut)), url: "telnet://ADDR/", args: []string{"--linger", "5s", "--timeout", "10s"}, code: 0, noFile: true},
	}
}

// TestHostileServers runs gofer against each misbehaving server and checks
// the documented exit code, a one-line error naming the problem, peak RSS
// under 64 MiB, time bounded by the timeout, nothing written outside the
// output path and never a partial file under the final name.
func TestHostileServers(t *testing.T) {
	itest.Parallel(t)
	foreign := listenRecorder(t, "127.0.0.99:0")
	// The cases run side by side, most of them waiting out a server's
	// silence; the group ends when the last does.
	t.Run("cases", func(t *testing.T) {
		for _, c := range hostileCases(foreign.ln.Addr().String()) {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				srv, err := c.start()
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				work := t.TempDir()
				out := filepath.Join(work, "out", "result")
				os.Mkdir(filepath.Dir(out), 0o755)
				args := append([]string{"get", "-q", "--allow-port", portOf(srv.Addr())}, c.args...)
				if !c.noFile {
					args = append(args, "-o", out)
				}
				args = append(args, strings.ReplaceAll(c.url, "ADDR", srv.Addr()))
				limit := c.timeout
				if limit == 0 {
					limit = 30 * time.Second
				}
				if dl, ok := itest.Context(t).Deadline(); ok && c.bulk {
					limit = time.Until(dl)
				}
				r := runBounded(t, work, limit, args...)
				if r.code != c.code {
					t.Errorf("exit %d, want %d; stderr %q", r.code, c.code, r.stderrTail)
				}
				if c.code != 0 {
					reason := r.reason
					if !strings.HasPrefix(reason, "gofer: ") || strings.Contains(reason, "\n") {
						t.Errorf("error %q is not one gofer line", reason)
					}
					if !strings.Contains(strings.ToLower(reason), c.reason) {
						t.Errorf("error %q does not say %q", reason, c.reason)
					}
				}
				if !r.measured {
					t.Errorf("no peak RSS measured (killed after %v?)", r.elapsed)
				} else if r.maxRSS > 64<<20 {
					t.Errorf("peak RSS %d MiB, want under 64 MiB", r.maxRSS>>20)
				}
				if r.elapsed > limit && !c.bulk {
					t.Errorf("took %v, longer than %v", r.elapsed, limit)
				}
				if strings.Contains(c.url, "telnet") && bytes.IndexByte(r.stdoutHead, 0xFF) >= 0 {
					t.Errorf("telnet output holds an IAC byte: %q", r.stdoutHead)
				}
				checkOutputDir(t, work, out, c)
				if c.want != "" {
					if got, err := os.ReadFile(out); err != nil || string(got) != c.want {
						t.Errorf("output %q (%v), want %q", got, err, c.want)
					}
				}
			})
		}
	})
	if got := foreign.received(t); len(got) > 0 {
		t.Errorf("the foreign PASV address was dialled: %v", got)
	}
}

// checkOutputDir: the work dir may hold only out/result (on success) or
// out/result.part (a kept partial), nothing else anywhere.
func checkOutputDir(t *testing.T, work, out string, c hostileCase) {
	t.Helper()
	filepath.WalkDir(work, func(p string, d os.DirEntry, err error) error {
		if err != nil || p == work || p == filepath.Dir(out) {
			return nil
		}
		switch {
		case p == out && c.code == 0:
		case p == out+".part" && c.partial:
		default:
			t.Errorf("unexpected file %s", p)
		}
		return nil
	})
}

type boundedRun struct {
	code       int
	reason     string
	stderrTail string
	stdoutHead []byte
	maxRSS     int64
	measured   bool // false when killed before peakrss could report
	elapsed    time.Duration
}

// runBounded runs gofer in dir, counting (not keeping) its stdout, and
// kills it if it outlives limit.
func runBounded(t *testing.T, dir string, limit time.Duration, args ...string) boundedRun {
	t.Helper()
	cmd, peak := itest.MeasuredCommand(t, nil, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	head := &headWriter{max: 4096}
	var errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = head, &errb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(limit+5*time.Second, func() { cmd.Process.Kill() })
	err := cmd.Wait()
	timer.Stop()
	r := boundedRun{elapsed: time.Since(start), stdoutHead: head.buf}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	}
	r.maxRSS, r.measured = peak()
	stderr := strings.TrimSpace(errb.String())
	lines := strings.Split(stderr, "\n")
	r.reason = lines[len(lines)-1]
	if len(stderr) > 600 {
		stderr = stderr[len(stderr)-600:]
	}
	r.stderrTail = stderr
	return r
}

// headWriter keeps the first max bytes written and counts the rest away.
type headWriter struct {
	buf []byte
	max int
	n   int64
}

func (w *headWriter) Write(p []byte) (int, error) {
	if room := w.max - len(w.buf); room > 0 {
		w.buf = append(w.buf, p[:min(room, len(p))]...)
	}
	w.n += int64(len(p))
	return len(p), nil
}

func portOf(addr string) string { return addr[strings.LastIndexByte(addr, ':')+1:] }
