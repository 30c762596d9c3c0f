package telnet

import (
	"bytes"
	"testing"
)

// FuzzParser: however the server's bytes are split between reads, the data
// and the answers are the same, a subnegotiation never grows past its
// bound, and the answers are whole IAC commands.
func FuzzParser(f *testing.F) {
	f.Add([]byte("hello\xff\xfd\x1f\xff\xfb\x01world\xff\xff!"), uint(3))
	f.Add([]byte("\xff\xfa\x18\x01\xff\xf0\xff\xfa\x1f\xff"), uint(1))
	f.Add([]byte("\xff\xf1\xff\xf9a\r\x00b\r\n"), uint(0))
	f.Fuzz(func(t *testing.T, stream []byte, split uint) {
		cut := int(split % uint(len(stream)+1))
		var whole parser
		wn := &negotiator{termType: "XTERM", size: func() (int, int, bool) { return 80, 24, true }}
		wantData, wantReply := whole.feed(wn, stream, nil, nil)

		var parts parser
		pn := &negotiator{termType: "XTERM", size: func() (int, int, bool) { return 80, 24, true }}
		data, reply := parts.feed(pn, stream[:cut], nil, nil)
		data, reply = parts.feed(pn, stream[cut:], data, reply)

		if !bytes.Equal(data, wantData) || !bytes.Equal(reply, wantReply) {
			t.Fatalf("split at %d: data %q reply %q, whole: %q %q", cut, data, reply, wantData, wantReply)
		}
		if len(parts.sb) > maxSubneg {
			t.Fatalf("subnegotiation buffer %d bytes", len(parts.sb))
		}
		if len(reply) > 0 && reply[0] != cmdIAC {
			t.Fatalf("answer does not start with IAC: %q", reply)
		}
		// Data holds no byte the server did not send as data: every 0xFF
		// in it came from an IAC IAC pair.
		if bytes.Count(data, []byte{cmdIAC}) > bytes.Count(stream, []byte{cmdIAC, cmdIAC}) {
			t.Fatalf("IAC in data %q from %q", data, stream)
		}
	})
}
