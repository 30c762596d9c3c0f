package conformance_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch/conformance"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// The bugs plantedFetcher can carry, each one a fetcher author could make.
const (
	bugNone          = ""               // a correct fetcher
	bugListingCut    = "listing-cut"    // the listing ends after its first entry
	bugBodyShort     = "body-short"     // the body ends one byte early, as if whole
	bugConnLeak      = "conn-leak"      // closing the response leaves the connection open
	bugGoroutineLeak = "goroutine-leak" // each fetch starts a goroutine nothing stops
	bugIgnoreCancel  = "ignore-cancel"  // the connection does not watch the context
)

// plantedEnv names the bug a child test process plants; TestPlantedBugs
// sets it for the processes it starts.
const plantedEnv = "GOFER_CONFORMANCE_PLANTED"

// plantedFetcher speaks "x-plant", x-line with a listing: the server
// answers the path "listing" with "*N" and N names, one a line. bug says
// which bug it carries.
type plantedFetcher struct{ bug string }

func (f plantedFetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	addr, path, _ := strings.Cut(strings.TrimPrefix(req.URL.Opaque, "//"), "/")
	dialCtx := ctx
	if f.bug == bugIgnoreCancel {
		dialCtx = context.Background() // lineproto.Dial watches the context it is given
	}
	c, err := lineproto.Dial(dialCtx, req, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if f.bug == bugGoroutineLeak {
		stop := make(chan struct{}) // never closed
		go func() { <-stop }()
	}
	if err := c.Send("x-plant path", path+"\r\n", "send to "+addr); err != nil {
		c.Close()
		return nil, err
	}
	br := bufio.NewReader(c)
	lr := lineproto.NewReader(br, req.LineLimit())
	line, err := lr.ReadLine()
	if err != nil {
		c.Close()
		return nil, c.Classify(err, "read the reply")
	}
	var closer io.Closer = c
	if f.bug == bugConnLeak {
		closer = io.NopCloser(nil)
	}
	if n, ok := strings.CutPrefix(line, "*"); ok {
		count, err := strconv.Atoi(n)
		if err != nil {
			c.Close()
			return nil, schemes.Errorf(schemes.ErrRefused, "x-plant server: listing count %q", n)
		}
		if f.bug == bugListingCut {
			count = min(count, 1)
		}
		return &schemes.Response{URL: req.URL, Kind: schemes.KindListing, Size: -1,
			Listing: &plantedListing{lr: lr, left: count, base: "x-plant://" + addr + "/", c: c, closer: closer}}, nil
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(line, "+"), 10, 64)
	if !strings.HasPrefix(line, "+") || err != nil {
		c.Close()
		return nil, schemes.Errorf(schemes.ErrRefused, "x-plant server: %s", lineproto.ServerText(line))
	}
	want := n
	if f.bug == bugBodyShort {
		want = n - 1
	}
	return &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Size: n,
		Body: &plantedBody{r: io.LimitReader(br, want), left: want, c: c, closer: closer}}, nil
}

type plantedBody struct {
	r      io.Reader
	left   int64
	c      *lineproto.Conn
	closer io.Closer
}

func (b *plantedBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if err == io.EOF && b.left > 0 {
		return n, schemes.Errorf(schemes.ErrInterrupted, "x-plant: %d bytes missing", b.left)
	}
	if err != nil && err != io.EOF {
		err = b.c.Classify(err, "read the body")
	}
	return n, err
}

func (b *plantedBody) Close() error { return b.closer.Close() }

type plantedListing struct {
	lr     *lineproto.Reader
	left   int
	base   string
	c      *lineproto.Conn
	closer io.Closer
}

func (l *plantedListing) Next() (schemes.Entry, error) {
	if l.left == 0 {
		return schemes.Entry{}, io.EOF
	}
	name, err := l.lr.ReadLine()
	if err != nil {
		return schemes.Entry{}, l.c.Classify(err, "read the listing")
	}
	l.left--
	return schemes.Entry{Name: name, URL: l.base + name, Type: schemes.TypeFile, Size: -1}, nil
}

func (l *plantedListing) Close() error { return l.closer.Close() }

// servePlanted is the scripted x-plant server: x-line's, and a listing of
// two names.
func servePlanted(c net.Conn, env *conformance.Env) {
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		return
	}
	if conformance.Object(strings.TrimSpace(line)) == conformance.Listing {
		fmt.Fprintf(c, "*2\r\nalpha\r\nbeta\r\n")
		return
	}
	serveLine(&replayed{Conn: c, r: io.MultiReader(strings.NewReader(line), br)}, env)
}

// replayed is a connection whose first line is read again.
type replayed struct {
	net.Conn
	r io.Reader
}

func (p *replayed) Read(b []byte) (int, error) { return p.r.Read(b) }

func plantedAdapter(bug string) conformance.Adapter {
	return conformance.Adapter{
		Fetcher:        plantedFetcher{bug: bug},
		Serve:          servePlanted,
		NoCredentials:  true,
		ListingEntries: 2,
		URL: func(addr string, o conformance.Object) string {
			return "x-plant://" + addr + "/" + string(o)
		},
	}
}

// TestPlantedBugs runs the suite on x-plant fetchers that each carry one
// bug, every run in a test process of its own so that its failure is
// recorded without failing this test: the correct fetcher passes, and each
// bug fails the suite in the check that looks for it.
func TestPlantedBugs(t *testing.T) {
	if bug, child := os.LookupEnv(plantedEnv); child {
		conformance.Run(t, "x-plant", plantedAdapter(bug))
		return
	}
	for _, tc := range []struct {
		bug  string
		want string // in the child's output; "" for a pass
	}{
		{bugNone, ""},
		{bugListingCut, "the listing yielded 1 entries, want 2"},
		{bugBodyShort, "--- FAIL: TestPlantedBugs/checks/small"},
		{bugConnLeak, "the server still holds 1 connection(s) open"},
		{bugGoroutineLeak, "a goroutine outlived the checks"},
		{bugIgnoreCancel, "cancelling the context did not end the fetch"},
	} {
		name := tc.bug
		if name == bugNone {
			name = "correct"
		}
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(os.Args[0], "-test.run=^TestPlantedBugs$", "-test.count=1", "-test.v", "-test.timeout=2m")
			cmd.Env = append(os.Environ(), plantedEnv+"="+tc.bug)
			out, err := cmd.CombinedOutput()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("the suite failed a correct fetcher: %v\n%s", err, out)
			case tc.want == "":
				if !strings.Contains(string(out), "--- PASS: TestPlantedBugs/checks/listing") {
					t.Fatalf("the suite did not run on the correct fetcher:\n%s", out)
				}
			case err == nil:
				t.Fatalf("the suite passed a fetcher with the bug %s:\n%s", tc.bug, out)
			case !strings.Contains(string(out), tc.want):
				t.Fatalf("the suite failed the bug %s, but not with %q: %v\n%s", tc.bug, tc.want, err, out)
			}
		})
	}
}
