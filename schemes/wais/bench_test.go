package wais

import (
	"context"
	"io"
	"net"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/wais/waistest"
)

// BenchmarkRetrieve retrieves a 16 MiB document, range by range, from a
// scripted server on loopback.
func BenchmarkRetrieve(b *testing.B) {
	const size = 16 << 20
	doc := make([]byte, size)
	for i := range doc {
		doc[i] = byte('a' + i%26)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for {
					q, err := waistest.ReadRequest(c)
					if err != nil {
						return
					}
					c.Write(waistest.TextAnswer(q.DocID, doc[min(q.Start, size):min(q.End, size)], nil))
				}
			}()
		}
	}()
	u, err := schemes.Parse("wais://" + l.Addr().String() + "/bench/TEXT/3=doc;")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(size)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := New().Fetch(context.Background(), &schemes.Request{URL: u, Settings: &schemes.Settings{Dialer: &net.Dialer{}}})
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, resp.Body)
		resp.Close()
		if err != nil || n != size {
			b.Fatalf("%d bytes, %v", n, err)
		}
	}
}
