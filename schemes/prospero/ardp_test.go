package prospero

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"
)

func TestParsePacketDefaults(t *testing.T) {
	tests := []struct {
		name  string
		b     []byte
		seq   uint16
		total uint16
		data  string
	}{
		{"cid only", []byte{3, 0, 7, 'h', 'i'}, 1, 1, "hi"},
		{"number without total", []byte{5, 0, 7, 0, 2, 'x'}, 2, 0, "x"},
		{"full", []byte{9, 0, 7, 0, 2, 0, 3, 0, 1, 'y'}, 2, 3, "y"},
		{"flags and option", []byte{13, 0, 7, 0, 1, 0, 1, 0, 0, 0, 0, 0x80, 0}, 1, 1, ""},
	}
	for _, tt := range tests {
		p, err := parsePacket(tt.b)
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if p.cid != 7 || p.seq != tt.seq || p.total != tt.total || string(p.data) != tt.data {
			t.Errorf("%s: %+v", tt.name, p)
		}
	}
}

func TestParsePacketErrors(t *testing.T) {
	tests := []struct {
		b    []byte
		want string
	}{
		{nil, "empty"},
		{[]byte{129, 0, 0, 0, 0, 0, 0}, "version 2"},
		{[]byte{0x49, 0, 0, 0, 0, 0, 0, 0, 0}, "version 1"},
		{[]byte{2, 0}, "too short"},
		{[]byte{20, 0, 1, 0, 1}, "claims 20 octets, packet has 5"},
		{[]byte{9, 0, 1, 0, 5, 0, 3, 0, 0}, "packet 5 of a 3-packet message"},
	}
	for _, tt := range tests {
		if _, err := parsePacket(tt.b); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("% x: %v, want an error saying %q", tt.b, err, tt.want)
		}
	}
}

func TestEncodeRoundTrip(t *testing.T) {
	for _, p := range []packet{
		{cid: 1, seq: 1, total: 1, data: []byte("VERSION 5\n")},
		{cid: 65535, seq: 0, rcvdThru: 9, hasRcvd: true},
		{cid: 2, seq: 3, total: 4, wait: 30},
		{cid: 2, seq: 3, total: 4, flags: flagAck},
		{cid: 2, seq: 3, total: 4, option: optRefused},
	} {
		b := p.encode()
		if int(b[0]) != len(b)-len(p.data) {
			t.Errorf("%+v: header length %d", p, b[0])
		}
		q, err := parsePacket(b)
		if err != nil {
			t.Fatal(err)
		}
		if q.cid != p.cid || q.seq != p.seq || q.total != p.total || q.rcvdThru != p.rcvdThru ||
			q.wait != p.wait || q.flags != p.flags || q.option != p.option || string(q.data) != string(p.data) {
			t.Errorf("%+v came back as %+v", p, q)
		}
	}
}

func TestSplitMessage(t *testing.T) {
	ps := splitMessage(5, []byte(strings.Repeat("x", 2*maxPayload+1)))
	if len(ps) != 3 || ps[2].seq != 3 || ps[0].total != 3 || len(ps[2].data) != 1 {
		t.Errorf("%d packets: %+v", len(ps), ps[2])
	}
}

func TestSchedule(t *testing.T) {
	if s := schedule(60e9); s != firstTimeout {
		t.Errorf("60 s idle: first wait %s, want ARDP's 4 s", s)
	}
	if s := schedule(3e9); s*backoffSum > 3e9 {
		t.Errorf("3 s idle: schedule of %s lasts longer", s)
	}
}

func TestTokens(t *testing.T) {
	tests := map[string][]string{
		"A B\tC":          {"A", "B", "C"},
		"  A  ''  'x y' ": {"A", "", "x y"},
		"'it''s' a'b c'd": {"it's", "ab cd"},
		"ATTRIBUTE ''''":  {"ATTRIBUTE", "'"},
	}
	for in, want := range tests {
		got, err := tokens(in)
		if err != nil || strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("tokens(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := tokens("A 'open"); err == nil {
		t.Error("an unterminated quote is accepted")
	}
	for _, tok := range []string{"", "plain", "with space", "it's", "tab\there"} {
		got, err := tokens(quote(tok))
		if err != nil || len(got) != 1 || got[0] != tok {
			t.Errorf("quote(%q) = %q reads back as %q", tok, quote(tok), got)
		}
	}
}

func TestDecodeReply(t *testing.T) {
	r, err := DecodeReply([]byte("VERSION 5 x\r\nATTRIBUTE OBJECT FIELD BASE-TYPE FILE\nWARNING MESSAGE 'going down'\n"+
		"LINK L FILE a INTERNET-D h(1525) ASCII /a 0\nATTRIBUTE CACHED INTRINSIC ACCESS-METHOD SEQUENCE HTTP '' '' '' ''\n"), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if r.Version != "5" || len(r.Attributes) != 1 || r.Attributes[0].Values[0] != "FILE" ||
		len(r.Warnings) != 1 || len(r.Links) != 1 || len(r.Links[0].Attribute) != 1 {
		t.Errorf("%+v", r)
	}
	for in, want := range map[string]string{
		"":                               "empty reply",
		"FAILURE NOT-FOUND x\n":          "FAILURE NOT-FOUND x",
		"HELLO\n":                        "not a Prospero reply line",
		"ATTRIBUTE OBJECT ODD N V\n":     "unknown attribute namespace",
		"LINK L FILE a\n":                "LINK with 4 tokens",
		"ATTRIBUTE OBJECT INTRINSIC N\n": "without a value type",
		"ATTRIBUTE OBJECT FIELD N 'x\n":  "unterminated quote",
		"VERSION 5\x00\n":                "NUL",
		strings.Repeat("x", 2000) + "\n": "longer than 1000 bytes",
	} {
		_, err := DecodeReply([]byte(in), 1000)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want an error saying %q", clip(in), err, want)
		}
	}
}

// TestSequencedControlPacket: a sequenced control packet counts in the
// order (the reply completes) but gives no text.
func TestSequencedControlPacket(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	defer server.Close()
	a := &ardpConn{conn: client, addr: "pipe", cid: 9, idle: 5 * time.Second}
	go func() {
		buf := make([]byte, 2048)
		if _, err := server.Read(buf); err != nil {
			return
		}
		server.Write(packet{cid: 9, seq: 1, total: 2, flags: flagCtl, data: []byte("IGNORED\n")}.encode())
		server.Write(packet{cid: 9, seq: 2, total: 2, data: []byte("NONE-FOUND\n")}.encode())
		server.Read(buf) // the acknowledgement
	}()
	got, err := a.roundTrip(context.Background(), []byte("VERSION 5\n"))
	if err != nil || string(got) != "NONE-FOUND\n" {
		t.Fatalf("%q, %v", got, err)
	}
}
