package conformance_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch/conformance"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// lineFetcher speaks a protocol of a program's own, "x-line": the path is
// sent as one line, and the server answers "+N" and N bytes, or "-" and
// why it refuses.
type lineFetcher struct{}

func (lineFetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	// An x- scheme has no syntax gofer knows: its URL is Opaque,
	// "//host:port/path" here.
	addr, path, _ := strings.Cut(strings.TrimPrefix(req.URL.Opaque, "//"), "/")
	c, err := lineproto.Dial(ctx, req, "tcp", addr)
	if err != nil {
		return nil, err
	}
	if err := c.Send("x-line path", path+"\r\n", "send to "+addr); err != nil {
		c.Close()
		return nil, err
	}
	br := bufio.NewReader(c)
	line, err := lineproto.NewReader(br, req.LineLimit()).ReadLine()
	if err != nil {
		c.Close()
		return nil, c.Classify(err, "read the reply")
	}
	n, err := strconv.ParseInt(strings.TrimPrefix(line, "+"), 10, 64)
	if !strings.HasPrefix(line, "+") || err != nil {
		c.Close()
		return nil, schemes.Errorf(schemes.ErrRefused, "x-line server: %s", lineproto.ServerText(line))
	}
	return &schemes.Response{URL: req.URL, Kind: schemes.KindFile, Size: n,
		Body: &lineBody{r: io.LimitReader(br, n), left: n, c: c}}, nil
}

// lineBody reads the N bytes; fewer is a transfer cut short.
type lineBody struct {
	r    io.Reader
	left int64
	c    *lineproto.Conn
}

func (b *lineBody) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if err == io.EOF && b.left > 0 {
		return n, schemes.Errorf(schemes.ErrInterrupted, "x-line: %d bytes missing", b.left)
	}
	if err != nil && err != io.EOF {
		err = b.c.Classify(err, "read the body")
	}
	return n, err
}

func (b *lineBody) Close() error { return b.c.Close() }

// serveLine is the scripted x-line server the suite runs.
func serveLine(c net.Conn, env *conformance.Env) {
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return
	}
	switch conformance.Object(strings.TrimSpace(line)) {
	case conformance.Small:
		fmt.Fprintf(c, "+%d\r\n%s", len(conformance.SmallBody), conformance.SmallBody)
	case conformance.Large:
		fmt.Fprintf(c, "+%d\r\n", conformance.LargeSize)
		c.Write(make([]byte, conformance.LargeSize))
	case conformance.Stall:
		env.Stall(c)
	case conformance.Cut:
		fmt.Fprintf(c, "+%d\r\n%s", 2*len(conformance.CutHead), conformance.CutHead)
	case conformance.Gated:
		fmt.Fprintf(c, "+%d\r\n%s", len(conformance.GatedHead)+len(conformance.GatedTail), conformance.GatedHead)
		if env.WaitRelease(c) {
			c.Write(conformance.GatedTail)
		}
	default:
		fmt.Fprintf(c, "- no such object\r\n")
	}
}

// lineAdapter is what the suite needs of x-line: the fetcher, a scripted
// server and the URL of each object on it (x-line has no listings).
func lineAdapter() conformance.Adapter {
	return conformance.Adapter{
		Fetcher:       lineFetcher{},
		Serve:         serveLine,
		NoCredentials: true,
		URL: func(addr string, o conformance.Object) string {
			if o == conformance.Listing {
				return ""
			}
			return "x-line://" + addr + "/" + string(o)
		},
	}
}

// TestXLine runs the whole suite on a scheme registered by a program.
func TestXLine(t *testing.T) {
	conformance.Run(t, "x-line", lineAdapter())
}

// A program that registers a scheme of its own runs the suite on its
// fetcher in a test of its own, as TestXLine in this package's tests does
// for an "x-line" scheme:
//
//	func TestXLine(t *testing.T) {
//		conformance.Run(t, "x-line", conformance.Adapter{
//			Fetcher: lineFetcher{},   // the schemes.Fetcher under test
//			Serve:   serveLine,       // a scripted server for the scheme
//			URL: func(addr string, o conformance.Object) string {
//				return "x-line://" + addr + "/" + string(o)
//			},
//		})
//	}
func ExampleRun() {
	a := lineAdapter()
	fmt.Println(a.URL("127.0.0.1:7000", conformance.Small))
	// Output: x-line://127.0.0.1:7000/small
}
