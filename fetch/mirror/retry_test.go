package mirror

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

func TestBrokenTransferRetriedFromWhereItStopped(t *testing.T) {
	m := newMemFTP()
	big := strings.Repeat("0123456789abcdef", (resumeMin+4096)/16)
	m.file("big", big)
	m.file("small", "small file")
	m.breakAt["big"] = resumeMin / 2
	m.breakAt["small"] = 3
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.New != 2 || sum.Retries != 2 || sum.RetriesByKind["interrupted"] != 2 {
		t.Fatalf("summary %+v", sum)
	}
	got := tree(t, dir)
	if got["big"] != big || got["small"] != "small file" {
		t.Errorf("files differ after the retries")
	}
	if m.bodyCount("big") != 2 || m.offs["big"] != resumeMin/2 {
		t.Errorf("big: %d bodies, the last from %d; want the retry to resume at %d", m.bodyCount("big"), m.offs["big"], resumeMin/2)
	}
	if m.offs["small"] != 0 {
		t.Errorf("small retried from %d, want 0", m.offs["small"])
	}
}

// A large file whose transfer breaks off again and again, each time after
// some progress, comes in whole with --retries 2: only tries that bring
// nothing new count against the bound.
func TestTransferBrokenOftenWithProgressCompletes(t *testing.T) {
	m := newMemFTP()
	const step = resumeMin / 4
	big := strings.Repeat("0123456789abcdef", (resumeMin*2)/16)
	m.file("big", big)
	m.breakAt["big"] = step
	m.gate = func(path string) {
		if path == "big" && m.bodies["big"] < 7 {
			m.breakAt["big"] = step // the next body breaks too
		}
	}
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{Retries: 2, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.New != 1 || sum.Retries != 7 || tree(t, dir)["big"] != big {
		t.Fatalf("summary %+v", sum)
	}
	if m.bodyCount("big") != 8 || m.offs["big"] != 7*step {
		t.Errorf("%d bodies, the last from %d; want 8, from %d", m.bodyCount("big"), m.offs["big"], 7*step)
	}
	// With no progress (a break at the first byte), --retries 2 gives up.
	m = newMemFTP()
	m.file("big", big)
	m.breakAt["big"] = 0
	m.gate = func(path string) { m.breakAt["big"] = 0 }
	sum, err = Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", t.TempDir(), Options{Retries: 2, RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 1 || sum.Retries != 2 || m.bodyCount("big") != 3 {
		t.Errorf("no progress: %d bodies, summary %+v; want 3 tries, then the failure", m.bodyCount("big"), sum)
	}
}

// failFirst fails its first n fetches as a connection closed before the
// server's greeting does.
type failFirst struct {
	*memFTP
	n int
}

func (f *failFirst) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	f.mu.Lock()
	fail := f.n > 0
	f.n--
	f.mu.Unlock()
	if fail {
		return nil, schemes.Errorf(schemes.ErrInterrupted, "connect: EOF before the greeting")
	}
	return f.memFTP.Fetch(ctx, req)
}

// The starting URL is tried again like any item: a first connection
// dropped does not end the mirror.
func TestStartRetried(t *testing.T) {
	m := newMemFTP()
	m.file("pub/a", "file a")
	f := &failFirst{memFTP: m, n: 2}
	c := fetch.NewClient(fetch.Options{Warn: func(string) {}})
	c.Register(m.scheme, f)
	sum, err := Run(context.Background(), c, "x-ftp://127.0.0.1/", t.TempDir(), Options{RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.New != 1 || sum.Retries != 2 || sum.RetriesByKind["interrupted"] != 2 {
		t.Errorf("summary %+v", sum)
	}
	// A server not reached at all is said at once.
	c = fetch.NewClient(fetch.Options{Warn: func(string) {}})
	c.Register(m.scheme, &refusing{})
	sum, err = Run(context.Background(), c, "x-ftp://127.0.0.1/", t.TempDir(), Options{RetryWait: time.Millisecond})
	if !errors.Is(err, schemes.ErrConnect) || sum.Retries != 0 {
		t.Errorf("refused: %v, %d retries; want the refusal, untried again", err, sum.Retries)
	}
}

type refusing struct{}

func (refusing) Fetch(context.Context, *schemes.Request) (*schemes.Response, error) {
	return nil, schemes.Errorf(schemes.ErrConnect, "connection refused")
}

// A listing that breaks off before anything of it was queued is read
// again from its start: every file once, the retry counted, no failure.
func TestBrokenListingReadAgain(t *testing.T) {
	m := newMemFTP()
	for _, name := range []string{"a", "b", "c", "d"} {
		m.file("pub/"+name, "file "+name)
	}
	m.breakList["pub"] = 2
	dir := t.TempDir()
	sum, err := Run(context.Background(), newClient(m), "x-ftp://127.0.0.1/", dir, Options{RetryWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Failed != 0 || sum.New != 4 || sum.Retries != 1 || sum.RetriesByKind["timeout"] != 1 || m.lists["pub"] != 2 {
		t.Fatalf("summary %+v after %d listings of pub", sum, m.lists["pub"])
	}
	for _, name := range []string{"a", "b", "c", "d"} {
		if got := tree(t, dir)["pub/"+name]; got != "file "+name || m.bodyCount("pub/"+name) != 1 {
			t.Errorf("pub/%s: %q in %d bodies, want it once", name, got, m.bodyCount("pub/"+name))
		}
	}
}

func TestTransientOnlyIsRetried(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
		kind string
	}{
		{schemes.ReplyErrorf(schemes.ErrRefused, &schemes.ReplyError{Code: 450, Transient: true}, "450 busy"), true, "reply"},
		{schemes.ReplyErrorf(schemes.ErrRefused, &schemes.ReplyError{Code: 550}, "550 no such file"), false, ""},
		{schemes.Errorf(schemes.ErrTimeout, "slow"), true, "timeout"},
		{schemes.Errorf(schemes.ErrInterrupted, "reset"), true, "interrupted"},
		{schemes.Errorf(schemes.ErrConnect, "refused"), true, "connect"},
		{schemes.Errorf(schemes.ErrAuth, "530"), false, ""},
		{schemes.Errorf(schemes.ErrRefused, "not a file"), false, ""},
		{errors.New("local disk full"), false, ""},
	} {
		e := &engine{}
		r := e.retrier()
		r.wait = time.Millisecond
		if got := r.again(context.Background(), tc.err, "u"); got != tc.want {
			t.Errorf("again(%v) = %v, want %v", tc.err, got, tc.want)
		}
		if tc.kind != "" && (e.sum.RetriesByKind[tc.kind] != 1 || len(e.sum.RetriesByKind) != 1) {
			t.Errorf("again(%v) counted %v, want one %s", tc.err, e.sum.RetriesByKind, tc.kind)
		}
	}
	e := &engine{opts: Options{Retries: 2}}
	r := e.retrier()
	r.wait = time.Millisecond
	busy := schemes.Errorf(schemes.ErrTimeout, "slow")
	var tries []bool
	for range 3 {
		tries = append(tries, r.again(context.Background(), busy, "u"))
	}
	if !tries[0] || !tries[1] || tries[2] {
		t.Errorf("--retries 2: tries again %v, want exactly two", tries)
	}
	if e.sum.Retries != 2 {
		t.Errorf("summary counts %d retries", e.sum.Retries)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if (&engine{}).retrier().again(ctx, busy, "u") {
		t.Errorf("retried after the context ended")
	}
}
