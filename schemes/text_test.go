package schemes

import (
	"bytes"
	"errors"
	"io"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// TestFindInText reads the wrapper examples of RFC 1738's appendix and the
// draft's references (wrapped over lines, broken mid-word) plus bare URLs.
func TestFindInText(t *testing.T) {
	in, err := os.ReadFile("../testdata/urls/extract.txt")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../testdata/urls/extract.want")
	if err != nil {
		t.Fatal(err)
	}
	got := FindInText(string(in))
	if w := strings.Fields(string(want)); !reflect.DeepEqual(got, w) {
		t.Errorf("FindInText:\n got %q\nwant %q", got, w)
	}
	for _, s := range got {
		if _, err := Parse(s); err != nil {
			t.Errorf("found %q does not parse: %v", s, err)
		}
	}
}

func TestFindInTextEdges(t *testing.T) {
	cases := map[string][]string{
		"":                                     nil,
		"no urls here: none":                   nil,
		"<<ftp://h/x>>":                        {"ftp://h/x"},
		"(see http://h/a_(b))":                 {"http://h/a_(b)"},
		"http://h/a, http://h/b.":              {"http://h/a", "http://h/b"},
		"xftp://h/y":                           nil,
		"<x-gofer://h/p> and <x-y:z>":          {"x-gofer://h/p"},
		"<URL:x-y:z>":                          {"x-y:z"},
		"unclosed <ftp://h/a then bare":        {"ftp://h/a"},
		"HTTP://H/ mixed case":                 {"HTTP://H/"},
		"\"ftp://h/q\"":                        {"ftp://h/q"},
		"news:comp.a。次":                        {"news:comp.a"},
		"http://:/ ftp:// nntp:x ok http://h/": {"http://h/"},
		"bad http://h/%%3D escape":             nil,
		"file:// is not, file:///x is":         {"file:///x"},
	}
	for in, want := range cases {
		if got := FindInText(in); !reflect.DeepEqual(got, want) {
			t.Errorf("FindInText(%q) = %q, want %q", in, got, want)
		}
	}
}

// readAll collects what FindInReader finds in r.
func readAll(t *testing.T, r io.Reader) []string {
	t.Helper()
	var got []string
	if err := FindInReader(r, func(u string) error {
		got = append(got, u)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestFindInReaderChunks: reading a byte at a time or in halves finds
// exactly what FindInText finds in the whole text.
func TestFindInReaderChunks(t *testing.T) {
	in, err := os.ReadFile("../testdata/urls/extract.txt")
	if err != nil {
		t.Fatal(err)
	}
	want := FindInText(string(in))
	if len(want) < 10 {
		t.Fatalf("only %d URLs", len(want))
	}
	for name, r := range map[string]io.Reader{
		"whole":    bytes.NewReader(in),
		"one byte": iotest.OneByteReader(bytes.NewReader(in)),
		"half":     iotest.HalfReader(bytes.NewReader(in)),
	} {
		if got := readAll(t, r); !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
	}
}

func TestFindInReaderErrors(t *testing.T) {
	stop := errors.New("stop")
	n := 0
	err := FindInReader(strings.NewReader("http://a/ http://b/ http://c/"), func(string) error {
		n++
		return stop
	})
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("err %v after %d calls", err, n)
	}
	bad := errors.New("disk")
	if err := FindInReader(iotest.ErrReader(bad), func(string) error { return nil }); !errors.Is(err, bad) {
		t.Errorf("reader error: %v", err)
	}
}

// endless yields n bytes of a repeated pattern.
type endless struct {
	pat []byte
	n   int64
}

func (e *endless) Read(p []byte) (int, error) {
	if e.n <= 0 {
		return 0, io.EOF
	}
	k := 0
	for k < len(p) && int64(k) < e.n {
		p[k] = e.pat[k%len(e.pat)]
		k++
	}
	e.n -= int64(k)
	return k, nil
}

// TestFindInReaderBoundedMemory streams 16 MiB made of one endless bare
// URL, then of one endless open wrapper, then of scheme-like letters: the
// heap must not grow with the input.
func TestFindInReaderBoundedMemory(t *testing.T) {
	for _, pat := range []string{"http://h/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "<ftp://h/bbbbbbbbbbbbbbbbbbbbbbbbbbb", "httphttphttphttp"} {
		r := io.MultiReader(strings.NewReader("see "), &endless{pat: []byte(pat), n: 16 << 20}, strings.NewReader(" ftp://end/"))
		var peak uint64
		var ms runtime.MemStats
		calls, found, last := 0, 0, ""
		err := FindInReader(readerFunc(func(p []byte) (int, error) {
			calls++
			if calls%128 == 0 {
				runtime.GC() // live heap only, not garbage awaiting collection
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapAlloc)
			}
			return r.Read(p)
		}), func(u string) error {
			found, last = found+1, u
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if peak > 4<<20 {
			t.Errorf("%q: live heap reached %d KiB on a 16 MiB input", pat, peak>>10)
		}
		if last != "ftp://end/" {
			t.Errorf("%q: last URL %q of %d, want ftp://end/", pat, last, found)
		}
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }

func FuzzFindInText(f *testing.F) {
	f.Add("<URL:ftp://h/\n x> http://a/b")
	f.Add("URL:news:a.b (see http://h/a_(b)), <x-y://q>")
	f.Fuzz(func(t *testing.T, s string) {
		want := FindInText(s)
		for _, u := range want {
			if u == "" || strings.ContainsAny(u, " \t\r\n<>") {
				t.Fatalf("FindInText(%q) gave %q", s, u)
			}
		}
		if got := readAll(t, iotest.OneByteReader(strings.NewReader(s))); !reflect.DeepEqual(got, want) {
			t.Fatalf("FindInReader(%q) = %q, FindInText = %q", s, got, want)
		}
	})
}
