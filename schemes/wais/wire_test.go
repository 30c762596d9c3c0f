package wais

import (
	"bytes"
	"context"
	"encoding/hex"
	"io"
	"net"
	"strings"
	"testing"

	"github.com/goferurl/gofer/schemes/wais/waistest"
)

// TestSearchRequestGolden: the search for database "test", words "fox" is
// byte for byte what the freeWAIS-sf client was seen to send.
func TestSearchRequestGolden(t *testing.T) {
	wantBody := unhex(t, `
		00 16
		16 00001e 001388 00001e 01
		11 00
		12 04 74657374
		14 01 33
		63 0b 6a 03 666f78 6f 01 01 72 01 28`)
	body := SearchRequest("test", "fox", MaxDocuments)
	if !bytes.Equal(body, wantBody) {
		t.Fatalf("body\n got %x\nwant %x", body, wantBody)
	}
	msg := Message(body)
	wantHeader := "0000000037z2wais        0"
	if string(msg[:HeaderSize]) != wantHeader {
		t.Fatalf("header %q, want %q", msg[:HeaderSize], wantHeader)
	}
	if !bytes.Equal(msg[HeaderSize:], wantBody) || len(msg) != HeaderSize+37 {
		t.Fatalf("message %x", msg)
	}
}

// TestRetrievalRequestLayout checks the retrieval request against the
// layout of the WAIS reference client: the APDU fields in their order,
// then the type-1 query under tag 21.
func TestRetrievalRequestLayout(t *testing.T) {
	id := DocID(appendAny(appendAny(nil, 1, []byte("h:210")), 7, []byte{0}))
	body := RetrievalRequest("test", id, "TEXT", 0, 10000)
	apdu := unhex(t, `
		16 00000a 000010 00000f 01
		11 03 464f4f
		12 04 74657374
		14 01 31
		13 0f 201f446f63756d656e742054657874
		02 01 33`)
	if int(body[0])<<8|int(body[1]) != len(apdu) || !bytes.Equal(body[2:2+len(apdu)], apdu) {
		t.Fatalf("APDU\n got %x\nwant %x", body[2:], apdu)
	}
	q, next, err := readField(body, 2+len(apdu))
	if err != nil || next != len(body) || q.tag != tagQuery {
		t.Fatalf("query field: tag %d, end %d of %d, %v", q.tag, next, len(body), err)
	}
	terms, err := fields(q.value)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range terms {
		got = append(got, string(f.value))
	}
	want := []string{
		"un re ig ig ig ig", string(id),
		"wt re ig ig ig ig", "TEXT", "a",
		"wb ro ig ig ig ig", "0", "a",
		"wb rl ig ig ig ig", "10000", "a",
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("query terms\n got %q\nwant %q", got, want)
	}
	if terms[0].tag != tagAttributeList || terms[1].tag != tagTerm || terms[4].tag != tagOperator {
		t.Fatalf("term tags %d %d %d", terms[0].tag, terms[1].tag, terms[4].tag)
	}
}

func TestCompressedIntegers(t *testing.T) {
	for _, tc := range []struct {
		n    uint64
		want string
	}{
		{0, "00"}, {127, "7f"}, {128, "8100"}, {150, "8116"}, {461, "834d"}, {16384, "818000"},
	} {
		b := appendCompressed(nil, tc.n)
		if hex.EncodeToString(b) != tc.want {
			t.Errorf("%d: %x, want %s", tc.n, b, tc.want)
		}
		n, i, err := readCompressed(b, 0)
		if err != nil || n != tc.n || i != len(b) {
			t.Errorf("%d: read %d, %d, %v", tc.n, n, i, err)
		}
	}
	// Padding bytes (0x80) in front read as zeros.
	if n, _, err := readCompressed([]byte{0x80, 0x80, 0x05}, 0); err != nil || n != 5 {
		t.Errorf("padded: %d, %v", n, err)
	}
	if _, _, err := readCompressed([]byte{0x81, 0x82, 0x83, 0x84, 0x85, 0x06}, 0); err == nil {
		t.Error("a six-byte compressed integer was accepted")
	}
}

func TestParseHeader(t *testing.T) {
	h, err := ParseHeader([]byte("0000000461z2wais        0"))
	if err != nil || h.Length != 461 || h.Type != 'z' || h.Version != '2' || h.Server != "wais      " {
		t.Fatalf("%+v, %v", h, err)
	}
	for _, bad := range []string{"", "00000004x1z2wais        0", "short"} {
		if _, err := ParseHeader([]byte(bad)); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFetchSendsObservedSearch: a fetch of wais://HOST/test?fox writes
// exactly the observed message (header and body) and nothing else before
// the answer.
func TestFetchSendsObservedSearch(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	got := make(chan []byte, 1)
	go func() {
		c, err := l.Accept()
		if err != nil {
			got <- nil
			return
		}
		defer c.Close()
		b := make([]byte, HeaderSize+37)
		if _, err := io.ReadFull(c, b); err != nil {
			got <- nil
			return
		}
		got <- b
		c.Write(waistest.SearchAnswer([]waistest.Hit{{DocID: []byte{3, 1, 'x'}, Type: "TEXT", Headline: "x"}}, nil))
	}()
	resp, err := New().Fetch(context.Background(), request(t, "wais://"+l.Addr().String()+"/test?fox"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	want := append([]byte("0000000037z2wais        0"), unhex(t, `
		0016 16 00001e 001388 00001e 01 1100 1204 74657374 140133
		630b 6a03 666f78 6f0101 720128`)...)
	if b := <-got; !bytes.Equal(b, want) {
		t.Fatalf("sent\n%q\nwant\n%q", b, want)
	}
}
