package gopher

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// endlessMenu yields menu lines forever.
type endlessMenu struct{ line []byte }

func (e *endlessMenu) Read(p []byte) (int, error) {
	n := 0
	for n+len(e.line) <= len(p) {
		n += copy(p[n:], e.line)
	}
	if n == 0 {
		n = copy(p, e.line)
	}
	return n, nil
}

// A menu streams: reading ten times as many entries does not take more memory.
func TestMenuMemoryDoesNotGrow(t *testing.T) {
	m := newMenuListing(&endlessMenu{line: []byte("0An item of an endless menu\t/some/selector/of/a/file.txt\t127.0.0.1\t70\t+\r\n")},
		nil, "h", 70, &schemes.Request{Settings: &schemes.Settings{MaxEntries: 1 << 30}})
	heap := func(n int) uint64 {
		for i := 0; i < n; i++ {
			if _, err := m.Next(); err != nil {
				t.Fatal(err)
			}
		}
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapInuse
	}
	small := heap(20000)
	large := heap(200000)
	if large > small+1<<20 {
		t.Fatalf("heap in use grew from %d to %d bytes between 20k and 220k entries", small, large)
	}
}

func BenchmarkMenuListing(b *testing.B) {
	menu := []byte(strings.Repeat("0An item\t/some/selector/file.txt\t127.0.0.1\t70\t+\r\n", 10000) + ".\r\n")
	b.SetBytes(int64(len(menu)))
	b.ReportAllocs()
	for b.Loop() {
		m := newMenuListing(bytes.NewReader(menu), nil, "h", 70, &schemes.Request{})
		for {
			if _, err := m.Next(); err != nil {
				break
			}
		}
	}
}

func BenchmarkDotReader(b *testing.B) {
	text := []byte(strings.Repeat("a line of text in a gopher text item\r\n..stuffed\r\n", 20000) + ".\r\n")
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		io.Copy(io.Discard, newDotReader(bufio.NewReader(bytes.NewReader(text)), false))
	}
}

// One whole fetch of a small text item from a scripted server on loopback.
func BenchmarkFetchText(b *testing.B) {
	s := newScripted(b, func(int, string) string { return "hello\r\n..world\r\n.\r\n" })
	req := newRequest(s.url(schemes.Gopher{Type: '0', Selector: "/t"}))
	b.ReportAllocs()
	for b.Loop() {
		resp, err := New().Fetch(context.Background(), req)
		if err != nil {
			b.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Close()
	}
}
