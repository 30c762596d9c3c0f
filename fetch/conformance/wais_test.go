package conformance

import (
	"bytes"
	"io"
	"net"

	"github.com/goferurl/gofer/schemes/wais/waistest"
)

// waisAdapter serves the objects from the scripted WAIS server's building
// blocks (schemes/wais/waistest): each object is a document whose id is the
// single field 3=NAME, retrieved range by range on one connection; the
// listing is a search whose two hits are the small and the large object. The cut and gated
// objects are one range whose answer announces the whole text and stops
// (or waits) partway through it.
func waisAdapter() Adapter {
	return Adapter{
		Serve:          serveWAIS,
		NoCredentials:  true,
		ListingEntries: 2,
		URL: func(addr string, o Object) string {
			if o == Listing {
				return "wais://" + addr + "/conformance?small"
			}
			return "wais://" + addr + "/conformance/TEXT/3=" + string(o) + ";"
		},
	}
}

// waisID is the document id of the URL form 3=NAME;.
func waisID(name string) string { return string(append([]byte{3, byte(len(name))}, name...)) }

func serveWAIS(c net.Conn, env *Env) {
	for {
		q, err := waistest.ReadRequest(c)
		if err != nil {
			return
		}
		if q.QueryType == "3" {
			c.Write(waistest.SearchAnswer([]waistest.Hit{{DocID: []byte(waisID("small")), Score: 1000,
				Length: int64(len(SmallBody)), Lines: 1, Type: "TEXT", Headline: "A small object"},
				{DocID: []byte(waisID("large")), Score: 500, Length: LargeSize, Lines: 1, Type: "TEXT", Headline: "A large object"}}, q.ReferenceID))
			continue
		}
		part := func(doc []byte) []byte { return doc[min(q.Start, int64(len(doc))):min(q.End, int64(len(doc)))] }
		switch string(q.DocID) {
		case waisID("small"):
			c.Write(waistest.TextAnswer(q.DocID, part(SmallBody), q.ReferenceID))
		case waisID("large"):
			n := min(q.End, LargeSize) - min(q.Start, LargeSize)
			c.Write(waistest.TextAnswer(q.DocID, bytes.Repeat([]byte{'L'}, int(n)), q.ReferenceID))
		case waisID("stall"):
			env.Stall(c)
			return
		case waisID("cut"):
			msg := waistest.TextAnswer(q.DocID, append(append([]byte{}, CutHead...), make([]byte, 1000)...), q.ReferenceID)
			c.Write(msg[:len(msg)-1000])
			return
		case waisID("gated"):
			msg := waistest.TextAnswer(q.DocID, part(append(append([]byte{}, GatedHead...), GatedTail...)), q.ReferenceID)
			c.Write(msg[:len(msg)-len(GatedTail)])
			if waisRelease(c, env) {
				c.Write(msg[len(msg)-len(GatedTail):])
			}
			return // the range was the document's last: no request follows
		default:
			c.Write(waistest.DiagnosticAnswer("S1", "Document not found in database "+q.Database, q.ReferenceID))
		}
	}
}

// waisRelease waits until the check releases the gated tail (true), or the
// server stops or the client goes away (false): a cancelled fetch closes
// its connection while the tail is held back, and the server must see it.
func waisRelease(c net.Conn, env *Env) bool {
	gone := make(chan struct{})
	go func() {
		io.Copy(io.Discard, c)
		close(gone)
	}()
	select {
	case <-env.release:
		return true
	case <-env.done:
	case <-gone:
	}
	return false
}
