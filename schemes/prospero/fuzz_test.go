package prospero

import (
	"errors"
	"testing"
)

// FuzzDecodeReply: any bytes decode to a reply or an error, never a panic,
// and a decoded reply's access methods give a URL or an error.
func FuzzDecodeReply(f *testing.F) {
	f.Add([]byte("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP INTERNET-D h(21) ASCII /a BINARY\n"))
	f.Add([]byte("ATTRIBUTE OBJECT FIELD BASE-TYPE DIRECTORY\nLINK L FILE 'a b' INTERNET-D h ASCII /x 0\n"))
	f.Add([]byte("FAILURE NOT-FOUND '/x'\n"))
	f.Add([]byte("VERSION 5 x\r\nWARNING MESSAGE ''\nNONE-FOUND\n"))
	f.Add([]byte("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE GOPHER '' '' '' '' ''\n"))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := DecodeReply(b, 4096)
		if err != nil {
			var re *ReplyError
			if r != nil || errors.As(err, &re) && re.Keyword == "" {
				t.Fatalf("reply %v with error %v", r, err)
			}
			return
		}
		for _, a := range r.Attributes {
			if a.Name != "ACCESS-METHOD" {
				continue
			}
			if m, err := accessMethod(a); err == nil {
				m.URL("h", "/o")
			}
		}
		for _, k := range r.Links {
			linkEntry(k, &target{host: "h", port: 1525})
		}
	})
}

// FuzzParsePacket: any datagram is a packet or an error; a packet's data
// lies within the datagram.
func FuzzParsePacket(f *testing.F) {
	f.Add([]byte{9, 0, 1, 0, 1, 0, 1, 0, 0, 'x'})
	f.Add([]byte{13, 0, 1, 0, 0, 0, 0, 0, 3, 0, 30, 0x80, 1})
	f.Add([]byte{0x3f, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := parsePacket(b)
		if err != nil {
			return
		}
		if p.hdrLen+len(p.data) != len(b) || p.total != 0 && p.seq > p.total {
			t.Fatalf("% x parsed as %+v", b, p)
		}
		p.describe()
	})
}
