package fetch

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// memFile is an io.WriterAt in memory.
type memFile struct {
	mu  sync.Mutex
	buf []byte
}

func (m *memFile) WriteAt(p []byte, off int64) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if end := off + int64(len(p)); end > int64(len(m.buf)) {
		m.buf = append(m.buf, make([]byte, end-int64(len(m.buf)))...)
	}
	copy(m.buf[off:], p)
	return len(p), nil
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	rand.New(rand.NewSource(int64(n))).Read(b)
	return b
}

// segFTP is a scripted FTP server with one file, /file.bin, that records
// the REST positions asked for.
type segFTP struct {
	t       *testing.T
	ln      net.Listener
	content []byte
	noREST  bool
	// cutAt: a RETR from this REST position sends half of what is left
	// up to the next segment, then breaks the data connection off with 426.
	cutAt int64
	// maxConns: more sessions at once are refused at USER, as ProFTPD's
	// MaxClientsPerHost does (0: no limit).
	maxConns int

	mu     sync.Mutex
	active int
	rests  []int64
	retrs  int
	wg     sync.WaitGroup
}

func newSegFTP(t *testing.T, content []byte, setup func(*segFTP)) *segFTP {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &segFTP{t: t, ln: ln, content: content, cutAt: -1}
	if setup != nil {
		setup(s)
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				s.session(c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.wg.Wait() })
	return s
}

func (s *segFTP) url() string {
	return fmt.Sprintf("ftp://127.0.0.1:%d/file.bin", s.ln.Addr().(*net.TCPAddr).Port)
}

func (s *segFTP) session(c net.Conn) {
	defer c.Close()
	s.mu.Lock()
	s.active++
	over := s.maxConns > 0 && s.active > s.maxConns
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.active--
		s.mu.Unlock()
	}()
	r := bufio.NewReader(c)
	reply := func(format string, args ...any) { fmt.Fprintf(c, format+"\r\n", args...) }
	var dataLn net.Listener
	defer func() {
		if dataLn != nil {
			dataLn.Close()
		}
	}()
	rest := int64(0)
	reply("220 segFTP")
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		verb, arg, _ := strings.Cut(strings.TrimRight(line, "\r\n"), " ")
		switch strings.ToUpper(verb) {
		case "USER":
			if over {
				reply("530 Sorry, the maximum number of clients (%d) from your host are already connected.", s.maxConns)
				continue
			}
			reply("331 Password.")
		case "PASS":
			reply("230 Welcome.")
		case "FEAT":
			reply("211-Features:\r\n EPSV\r\n REST STREAM\r\n SIZE\r\n211 End")
		case "TYPE":
			reply("200 Type set.")
		case "PWD":
			reply(`257 "/"`)
		case "SIZE":
			if arg == "file.bin" {
				reply("213 %d", len(s.content))
			} else {
				reply("550 No such file.")
			}
		case "MDTM":
			reply("213 19941220120000")
		case "EPSV":
			if dataLn != nil {
				dataLn.Close()
			}
			dataLn, err = net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				s.t.Error(err)
				return
			}
			reply("229 Entering Extended Passive Mode (|||%d|)", dataLn.Addr().(*net.TCPAddr).Port)
		case "REST":
			if s.noREST {
				reply("502 REST not implemented.")
				continue
			}
			rest, _ = strconv.ParseInt(arg, 10, 64)
			s.mu.Lock()
			s.rests = append(s.rests, rest)
			s.mu.Unlock()
			reply("350 Restart position accepted.")
		case "RETR":
			s.mu.Lock()
			s.retrs++
			s.mu.Unlock()
			if arg != "file.bin" || dataLn == nil {
				reply("550 Failed to open file.")
				continue
			}
			reply("150 Opening BINARY mode data connection.")
			d, err := dataLn.Accept()
			dataLn.Close()
			dataLn = nil
			if err != nil {
				reply("425 Failed to establish connection.")
				continue
			}
			from := min(rest, int64(len(s.content)))
			rest = 0
			data := s.content[from:]
			if s.cutAt >= 0 && from == s.cutAt {
				d.Write(data[:MinSegment/2])
				d.Close()
				reply("426 Failure writing network stream.")
				continue
			}
			_, err = d.Write(data)
			d.Close()
			if err != nil {
				reply("426 Failure writing network stream.")
			} else {
				reply("226 Transfer complete.")
			}
		case "QUIT":
			reply("221 Goodbye.")
			return
		default:
			reply("500 Unknown command.")
		}
	}
}

func (s *segFTP) restsSeen() []int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := slices.Clone(s.rests)
	slices.Sort(r)
	return r
}

// segClient is a client whose warnings are collected.
func segClient(t *testing.T) (*Client, func() []string) {
	var mu sync.Mutex
	var warnings []string
	c := NewClient(Options{Warn: func(s string) {
		mu.Lock()
		warnings = append(warnings, s)
		mu.Unlock()
	}})
	t.Cleanup(func() { c.Close() })
	return c, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(warnings)
	}
}

// bounds are the first bytes of n equal segments of size bytes.
func bounds(size int64, n int) []int64 {
	var b []int64
	for i := 1; i < n; i++ {
		b = append(b, size*int64(i)/int64(n))
	}
	return b
}

func TestDownloadFTPSegments(t *testing.T) {
	content := randomBytes(5*MinSegment + 12345)
	srv := newSegFTP(t, content, nil)
	c, warnings := segClient(t)
	var f memFile
	d, err := c.Download(context.Background(), &Request{URL: srv.url()}, &f, 4)
	if err != nil {
		t.Fatal(err)
	}
	// The non-default port is warned of once, not once per stream.
	if w := warnings(); len(w) != 1 || !strings.Contains(w[0], "port") {
		t.Errorf("warnings %q, want the port's once", w)
	}
	if !bytes.Equal(f.buf, content) {
		t.Fatalf("reassembled %d bytes differ from the file's %d", len(f.buf), len(content))
	}
	if d.Segments != 4 || d.Fallback != "" || d.Size != int64(len(content)) || d.Contiguous != d.Size {
		t.Errorf("download = %+v, want 4 segments over %d bytes", d, len(content))
	}
	if got, want := srv.restsSeen(), bounds(int64(len(content)), 4); !slices.Equal(got, want) {
		t.Errorf("REST positions = %v, want %v", got, want)
	}
}

func TestDownloadFTPResumeSegments(t *testing.T) {
	content := randomBytes(4*MinSegment + 99)
	srv := newSegFTP(t, content, nil)
	c, _ := segClient(t)
	f := memFile{buf: slices.Clone(content[:1000])}
	d, err := c.Download(context.Background(), &Request{URL: srv.url(), Call: schemes.Call{Offset: 1000}}, &f, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.buf, content) || d.Offset != 1000 || d.Segments != 3 {
		t.Fatalf("resumed download: offset %d, %d segments, equal %v", d.Offset, d.Segments, bytes.Equal(f.buf, content))
	}
	rest := int64(len(content)) - 1000
	want := []int64{1000, 1000 + rest/3, 1000 + rest*2/3}
	if got := srv.restsSeen(); !slices.Equal(got, want) {
		t.Errorf("REST positions = %v, want %v", got, want)
	}
}

func TestDownloadFTPServerLimit(t *testing.T) {
	content := randomBytes(4*MinSegment + 1)
	srv := newSegFTP(t, content, func(s *segFTP) { s.maxConns = 2 })
	c, warnings := segClient(t)
	var f memFile
	d, err := c.Download(context.Background(), &Request{URL: srv.url()}, &f, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.buf, content) || d.Segments != 4 {
		t.Fatalf("%d segments, equal %v", d.Segments, bytes.Equal(f.buf, content))
	}
	if !strings.Contains(d.Fallback, "allows 2") || !slices.ContainsFunc(warnings(), func(s string) bool { return strings.Contains(s, "allows 2") }) {
		t.Errorf("fallback %q, warnings %q: want the server's limit of 2 said", d.Fallback, warnings())
	}
	// A second download starts within the limit learned.
	d, err = c.Download(context.Background(), &Request{URL: srv.url()}, &f, 4)
	if err != nil || d.Segments != 2 {
		t.Errorf("second download: %d segments, %v; want 2", d.Segments, err)
	}
}

func TestDownloadFTPRefusesREST(t *testing.T) {
	content := randomBytes(3*MinSegment + 7)
	srv := newSegFTP(t, content, func(s *segFTP) { s.noREST = true })
	c, warnings := segClient(t)
	var f memFile
	d, err := c.Download(context.Background(), &Request{URL: srv.url()}, &f, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.buf, content) {
		t.Fatal("the file from one stream differs")
	}
	if d.Segments != 1 || d.Fallback == "" {
		t.Errorf("download = %+v, want one stream and why", d)
	}
	if !slices.ContainsFunc(warnings(), func(s string) bool { return strings.Contains(s, "one stream") }) {
		t.Errorf("warnings %q do not say one stream was used", warnings())
	}
}

func TestDownloadFTPSegmentFails(t *testing.T) {
	content := randomBytes(4*MinSegment + 3)
	cut := bounds(int64(len(content)), 4)[1]
	srv := newSegFTP(t, content, func(s *segFTP) { s.cutAt = cut })
	c, _ := segClient(t)
	var f memFile
	d, err := c.Download(context.Background(), &Request{URL: srv.url()}, &f, 4)
	if err == nil {
		t.Fatal("a segment broken off mid-way, and no error")
	}
	if !errors.Is(err, schemes.ErrInterrupted) {
		t.Errorf("error %v is not an interrupted transfer", err)
	}
	if d.Contiguous > cut+MinSegment/2 {
		t.Errorf("contiguous end %d is past what the broken segment sent (%d)", d.Contiguous, cut+MinSegment/2)
	}
	if !bytes.Equal(f.buf[:d.Contiguous], content[:d.Contiguous]) {
		t.Error("the bytes before the contiguous end are not the file's")
	}
}

// rangedFile serves content as /file.bin, with ranges, and /start as a
// redirect to it, recording each request's path and Range header.
type rangedFile struct {
	*httptest.Server
	mu            sync.Mutex
	paths, ranges []string
}

func newRangedFile(t *testing.T, content []byte) *rangedFile {
	f := &rangedFile{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.paths = append(f.paths, r.URL.Path)
		f.ranges = append(f.ranges, r.Header.Get("Range"))
		f.mu.Unlock()
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/file.bin", http.StatusFound)
			return
		}
		http.ServeContent(w, r, "file.bin", modTime, bytes.NewReader(content))
	}))
	t.Cleanup(f.Close)
	return f
}

// downloadWhole downloads url in n segments and fails the test unless the
// file is content, in n segments.
func downloadWhole(t *testing.T, url string, content []byte, n int) {
	t.Helper()
	c, _ := segClient(t)
	var f memFile
	d, err := c.Download(context.Background(), &Request{URL: url}, &f, n)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.buf, content) || d.Segments != n {
		t.Fatalf("%d segments, equal %v", d.Segments, bytes.Equal(f.buf, content))
	}
}

func TestDownloadHTTPSegments(t *testing.T) {
	content := randomBytes(6*MinSegment + 1)
	srv := newRangedFile(t, content)
	downloadWhole(t, srv.URL+"/file.bin", content, 3)
	size := int64(len(content))
	b := bounds(size, 3)
	want := []string{"", fmt.Sprintf("bytes=%d-%d", b[0], b[1]-1), fmt.Sprintf("bytes=%d-%d", b[1], size-1)}
	slices.Sort(srv.ranges)
	if !slices.Equal(srv.ranges, want) {
		t.Errorf("Range headers = %q, want %q", srv.ranges, want)
	}
}

func TestDownloadHTTPRedirectedOnce(t *testing.T) {
	content := randomBytes(3 * MinSegment)
	srv := newRangedFile(t, content)
	downloadWhole(t, srv.URL+"/start", content, 3)
	slices.Sort(srv.paths)
	if want := []string{"/file.bin", "/file.bin", "/file.bin", "/start"}; !slices.Equal(srv.paths, want) {
		t.Errorf("requests %q, want the redirect followed once: %q", srv.paths, want)
	}
}

func TestDownloadHTTPIgnoresRange(t *testing.T) {
	content := randomBytes(3 * MinSegment)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(content)))
		w.Write(content)
	}))
	defer srv.Close()
	c, _ := segClient(t)
	var f memFile
	d, err := c.Download(context.Background(), &Request{URL: srv.URL + "/file.bin"}, &f, 3)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.buf, content) || d.Segments != 1 || d.Fallback == "" {
		t.Fatalf("download = %+v, equal %v; want one stream", d, bytes.Equal(f.buf, content))
	}
}

func TestDownloadUnknownSize(t *testing.T) {
	content := randomBytes(3 * MinSegment)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Chunked: no Content-Length.
		w.Write(content[:10])
		w.(http.Flusher).Flush()
		w.Write(content[10:])
	}))
	defer srv.Close()
	c, warnings := segClient(t)
	var f memFile
	d, err := c.Download(context.Background(), &Request{URL: srv.URL + "/file.bin"}, &f, 4)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.buf, content) || d.Segments != 1 || !strings.Contains(d.Fallback, "size") {
		t.Fatalf("download = %+v, equal %v; want one stream for want of a size", d, bytes.Equal(f.buf, content))
	}
	if len(warnings()) == 0 {
		t.Error("no warning that one stream was used")
	}
}

func TestDownloadSmallFileFewerSegments(t *testing.T) {
	content := randomBytes(2*MinSegment + 5)
	srv := newSegFTP(t, content, nil)
	c, _ := segClient(t)
	var f memFile
	d, err := c.Download(context.Background(), &Request{URL: srv.url()}, &f, 8)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(f.buf, content) || d.Segments != 2 {
		t.Fatalf("%d segments for %d bytes, equal %v; want 2", d.Segments, len(content), bytes.Equal(f.buf, content))
	}
}

func TestDownloadFTPTypeAOneStream(t *testing.T) {
	content := randomBytes(3 * MinSegment)
	srv := newSegFTP(t, content, nil)
	c, _ := segClient(t)
	var f memFile
	d, err := c.Download(context.Background(), &Request{URL: srv.url() + ";type=a"}, &f, 3)
	if err != nil {
		t.Fatal(err)
	}
	if d.Segments != 1 || !strings.Contains(d.Fallback, "type=a") || len(srv.restsSeen()) != 0 {
		t.Fatalf("download = %+v, RESTs %v; want one stream for a TYPE A transfer", d, srv.restsSeen())
	}
}

func TestContiguous(t *testing.T) {
	for _, tc := range []struct {
		start int64
		spans []span
		want  int64
	}{
		{0, []span{{0, 10}, {10, 20}, {20, 30}}, 30},
		{0, []span{{10, 20}, {0, 5}, {20, 30}}, 5},
		{0, []span{{0, 10}, {10, 10}, {20, 30}}, 10},
		{100, []span{{100, 150}, {150, 200}}, 200},
		{100, []span{{0, 120}, {100, 110}, {120, 300}}, 300},
		{0, nil, 0},
	} {
		if got := contiguous(tc.start, slices.Clone(tc.spans)); got != tc.want {
			t.Errorf("contiguous(%d, %v) = %d, want %d", tc.start, tc.spans, got, tc.want)
		}
	}
}

var _ io.WriterAt = (*memFile)(nil)

var modTime = time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)
