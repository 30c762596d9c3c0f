package wais

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
	"github.com/goferurl/gofer/schemes/wais/waistest"
)

// The answers below are built by the scripted server's own encoder, which
// is written apart from this package's decoder.

func TestParseSearchResponseHits(t *testing.T) {
	id1 := waistest.DocID("srv:210", "/db/test", "0 12 /db/a.txt")
	msg := waistest.SearchAnswer([]waistest.Hit{
		{DocID: id1, Score: 1000, Length: 12, Lines: 1, Type: "TEXT", Source: "test", Date: "941220", Headline: "a.txt /db/"},
		{DocID: []byte{1, 1, 'x'}, Score: 300, Length: 70000, Lines: 900, Type: "HTML", Headline: "b"},
	}, []byte("3"))
	h, err := ParseHeader(msg)
	if err != nil || h.Length != int64(len(msg)-HeaderSize) || h.Type != 'z' {
		t.Fatalf("header %+v, %v", h, err)
	}
	r, err := ParseSearchResponse(msg[HeaderSize:])
	if err != nil {
		t.Fatal(err)
	}
	if r.Status != 0 || r.ResultCount != 2 || r.Returned != 2 || len(r.Documents) != 2 || len(r.Diagnostics) != 0 {
		t.Fatalf("%+v", r)
	}
	d := r.Documents[0]
	if !bytes.Equal(d.ID, id1) || d.Score != 1000 || d.Length != 12 || d.Lines != 1 || d.Headline != "a.txt /db/" ||
		d.Date != "941220" || d.Source != "test" || len(d.Types) != 1 || d.Types[0] != "TEXT" || d.Version != 0 {
		t.Errorf("first %+v", d)
	}
	if d := r.Documents[1]; d.Length != 70000 || d.Score != 300 || d.Types[0] != "HTML" || d.BestMatch != -1 {
		t.Errorf("second %+v", d)
	}
	fs, err := r.Documents[0].ID.Fields()
	if err != nil || len(fs) != 7 || fs[0].Number != 1 || string(fs[0].Value) != "srv:210" || fs[6].Number != 7 || !bytes.Equal(fs[6].Value, []byte{0}) {
		t.Errorf("id fields %+v, %v", fs, err)
	}
}

func TestParseSearchResponseDiagnostic(t *testing.T) {
	msg := waistest.DiagnosticAnswer("S1", "The following database is not available: nosuch", nil)
	r, err := ParseSearchResponse(msg[HeaderSize:])
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Code != "S1" ||
		r.Diagnostics[0].Info != "The following database is not available: nosuch" || len(r.Documents) != 0 {
		t.Fatalf("%+v", r)
	}
	if s := r.Diagnostics[0].String(); s != "The following database is not available: nosuch (diagnostic S1)" {
		t.Errorf("%q", s)
	}
}

func TestParseSearchResponseText(t *testing.T) {
	text := bytes.Repeat([]byte("0123456789"), 300) // a length of two compressed bytes
	msg := waistest.TextAnswer([]byte{1, 1, 'x'}, text, []byte("3"))
	r, err := ParseSearchResponse(msg[HeaderSize:])
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Texts) != 1 || !bytes.Equal(r.Texts[0].Text, text) || !bytes.Equal(r.Texts[0].ID, []byte{1, 1, 'x'}) {
		t.Fatalf("%d texts", len(r.Texts))
	}
	// The streaming decoder finds the same bytes.
	tr, _, err := scanMessage(msg)
	if err != nil || tr == nil {
		t.Fatalf("scan: %v", err)
	}
	got, err := io.ReadAll(tr)
	if err != nil || !bytes.Equal(got, text) || tr.finish() != nil {
		t.Fatalf("streamed %d bytes, %v", len(got), err)
	}
}

func TestParseSearchResponseMalformed(t *testing.T) {
	good := waistest.SearchAnswer([]waistest.Hit{{DocID: []byte{1, 1, 'x'}, Type: "TEXT", Headline: "h"}}, nil)[HeaderSize:]
	for name, b := range map[string][]byte{
		"empty":          nil,
		"apdu too long":  {0xff, 0xff, 0x17},
		"not a response": append([]byte{0, 11, 0x16}, make([]byte, 10)...),
		"truncated":      good[:len(good)-3],
		"trailing":       append(append([]byte{}, good...), 0x63, 0),
		"bad diagnostic": append(append([]byte{0, 11, 0x17}, make([]byte, 10)...), 0x63, 4, 0x1c, 0x00, 0x09, 'S'),
	} {
		if _, err := ParseSearchResponse(b); !errors.Is(err, errMalformed) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestStreamedTextCut: an answer that ends inside its text is an
// interrupted transfer, after the bytes that came.
func TestStreamedTextCut(t *testing.T) {
	text := bytes.Repeat([]byte("x"), 5000)
	msg := waistest.TextAnswer([]byte{1, 1, 'x'}, text, nil)
	tr, _, err := scanMessage(msg[:len(msg)-1000])
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(tr)
	if len(got) != 4000 || !errors.Is(err, schemes.ErrInterrupted) {
		t.Fatalf("%d bytes, %v", len(got), err)
	}
}

// scanMessage runs the streaming decoder over one whole message.
func scanMessage(msg []byte) (*textReader, *SearchResponse, error) {
	h, err := ParseHeader(msg)
	if err != nil {
		return nil, nil, err
	}
	// The decoder reads from br; the connection only classifies errors.
	a, b := net.Pipe()
	a.Close()
	b.Close()
	c := &conn{c: lineproto.NewConn(a, 0), br: bufio.NewReader(bytes.NewReader(msg[HeaderSize:])), addr: "test"}
	m := &message{c: c, left: h.Length}
	return m.scanToText()
}

func TestDiagnosticErrorText(t *testing.T) {
	err := diagnosticError([]Diagnostic{{Code: "S1", Info: "The following database is not available: x"}})
	if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), "The following database is not available: x") {
		t.Fatal(err)
	}
}
