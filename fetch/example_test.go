package fetch_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
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
