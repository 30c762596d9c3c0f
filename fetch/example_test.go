package fetch_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/ftp"
	"github.com/goferurl/gofer/schemes/nntp"
)

// greeter serves "x-greet:NAME" URLs: an experimental scheme of one's own.
type greeter struct{}

func (greeter) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	body := "hello, " + req.URL.Opaque + "\n"
	return &schemes.Response{
		URL:  req.URL,
		Kind: schemes.KindFile,
		Body: io.NopCloser(strings.NewReader(body)),
		Size: int64(len(body)),
	}, nil
}

func Example() {
	c := fetch.NewClient(fetch.Options{})
	defer c.Close()
	c.Register("x-greet", greeter{})

	resp, err := c.Get(context.Background(), "x-greet:world")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Close()
	io.Copy(stdout{}, resp.Body)

	// The guard refuses a URL that would make FTP talk to a mail server,
	// before any connection is opened.
	_, err = c.Get(context.Background(), "ftp://127.0.0.1:25/file")
	fmt.Println(err)
	// Output:
	// hello, world
	// get ftp://127.0.0.1:25/file: refused: ftp URL names port 25, the smtp port; ftp's default port is 21
}

type stdout struct{}

func (stdout) Write(p []byte) (int, error) { fmt.Print(string(p)); return len(p), nil }

// A file's Body streams its bytes.
func ExampleGet_file() {
	dir, _ := os.MkdirTemp("", "gofer-example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "motd")
	os.WriteFile(path, []byte("Welcome to gofer.\n"), 0o644)

	resp, err := fetch.Get(context.Background(), "file://"+filepath.ToSlash(path))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Close()
	io.Copy(os.Stdout, resp.Body)
	// Output:
	// Welcome to gofer.
}

// A Gopher menu is a listing: Body reads its text form, one entry a line,
// as gofer get prints it. resp.Listing yields the same entries as values;
// use the one or the other.
func ExampleGet_listing() {
	addr := serveOnce("iWelcome to the example server\tfake\t(NULL)\t0\r\n" +
		"0About this server\t/about.txt\tgopher.example.org\t70\r\n" +
		"1Archive\t/archive\tgopher.example.org\t70\r\n" +
		".\r\n")

	resp, err := fetch.Get(context.Background(), "gopher://"+addr+"/1/")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Close()
	io.Copy(os.Stdout, resp.Body)
	// Output:
	//      Welcome to the example server
	//    1 text    About this server  gopher://gopher.example.org/0/about.txt
	//    2 dir     Archive  gopher://gopher.example.org/1/archive
}

// Gopher+ attributes ("!") are metadata: resp.Info holds them as values,
// Body reads their readable form.
func ExampleGet_info() {
	addr := serveOnce("+-1\r\n" +
		"+INFO: 0About this server\t/about.txt\tgopher.example.org\t70\t+\r\n" +
		"+ADMIN:\r\n" +
		" Admin: Jo Gopher <jo@example.org>\r\n" +
		" Mod-Date: Fri Mar  1 12:30:00 2024 <20240301123000>\r\n" +
		".\r\n")

	resp, err := fetch.Get(context.Background(), "gopher://"+addr+"/0/about.txt%09%09!")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Close()
	io.Copy(os.Stdout, resp.Body)
	// Output:
	// About this server  [text]  gopher://gopher.example.org/0/about.txt
	// Admin:
	//   Admin: Jo Gopher <jo@example.org>
	//   Mod-Date: Fri Mar  1 12:30:00 2024 <20240301123000>
	//   (modified 2024-03-01T12:30:00Z)
}

// A telnet URL names an interactive service: resp.Session connects it to a
// person or a pipe, and Body, which has nothing to read, says so.
func ExampleGet_session() {
	addr := serve(false, "Hello from the example host.\r\n")

	resp, err := fetch.Get(context.Background(), "telnet://"+addr+"/")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Close()
	_, err = resp.Body.Read(make([]byte, 1))
	fmt.Println(err)
	// Here stdin is empty: the session shows what the server sends until
	// the server closes.
	resp.Session.Interact(context.Background(), strings.NewReader(""), noCR{os.Stdout})
	// Output:
	// telnet session: the response carries no body; use Session
	// Hello from the example host.
}

// serveOnce answers one connection on a loopback port: it reads the
// request line (unless the server speaks first, as a telnet server does),
// sends reply and closes. It returns "host:port".
func serveOnce(reply string) string { return serve(true, reply) }

func serve(readRequest bool, reply string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	go func() {
		defer l.Close()
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if readRequest {
			if _, err := bufio.NewReader(c).ReadString('\n'); err != nil && !errors.Is(err, io.EOF) {
				return
			}
		}
		io.WriteString(c, reply)
	}()
	return l.Addr().String()
}

// noCR drops the CR of the server's CR LF line ends.
type noCR struct{ w io.Writer }

func (n noCR) Write(p []byte) (int, error) {
	_, err := n.w.Write([]byte(strings.ReplaceAll(string(p), "\r", "")))
	return len(p), err
}

// The settings of one protocol are its fetcher's fields; SetFetcher puts
// a configured fetcher under every scheme it serves. Plan shows what a
// fetch would send, without connecting.
func ExampleOptions_SetFetcher() {
	var opts fetch.Options
	opts.SetFetcher(&ftp.Fetcher{Email: "me@example.org"}, ftp.Schemes()...)
	opts.SetFetcher(&nntp.Fetcher{Server: "127.0.0.1:1119"}, nntp.Schemes()...)
	c := fetch.NewClient(opts)
	defer c.Close()

	p, err := c.Plan(&fetch.Request{URL: "ftp://127.0.0.1/pub/README"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Requests[1])
	p, err = c.Plan(&fetch.Request{URL: "news:comp.infosystems.gopher"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.Notes["server"], p.Requests)
	// Output:
	// PASS me@example.org
	// 127.0.0.1:1119 [GROUP comp.infosystems.gopher OVER {low}-{high}]
}
