package schemes

import (
	"crypto/tls"
	"io"
	"net"
)

// Capture receives the exact bytes a fetch reads, for an archive (WARC,
// ISO 28500). The front door (package fetch) sets Request.Capture when the
// caller asks for one and tells it of every connection the fetch opens; a
// scheme hands it the raw bytes of what it obtained as they stream past,
// never a whole payload held in memory. A nil Capture records nothing.
type Capture interface {
	// Record starts one record. The fetcher writes the record's block to
	// it in order as the bytes arrive and calls Commit when the block is
	// complete; a record never committed (a transfer cut short) is dropped.
	Record(rec CaptureRecord) CaptureBlock
	// Dialed is told of every connection the fetch opens, in order (the
	// first is the one whose address the records carry).
	Dialed(c net.Conn)
}

// CaptureBlock receives one record's block.
type CaptureBlock interface {
	io.Writer
	// Commit ends the block and keeps the record. Only the first call does
	// anything.
	Commit() error
}

// CaptureRecord describes one record.
type CaptureRecord struct {
	// Type is the WARC record type: "resource", "metadata", "request" or
	// "response".
	Type string
	// URI is the record's target URI; "" means the fetch's URL.
	URI string
	// ContentType is the media type of the block.
	ContentType string
	// Also lists more URIs the same bytes are known by (a news article's
	// news:<message-id>, beside the nntp: URL that fetched it).
	Also []string
	// Describes lists the items a metadata record is about, by URL, when
	// they are others than its target's item (the items of a Gopher+ "$"
	// block), so that their records can be linked to it.
	Describes []string
	// Protocol names the protocols the record's bytes crossed, outermost
	// application protocol first ("gemini", "tls/1.3"), as the WARC-Protocol
	// field names them; nil leaves the field out.
	Protocol []string
	// ServerDigest is the server's own checksum of the bytes, when the
	// server gave one (FTP HASH and its kin): "ALG:HEX", ALG as ServerHash
	// names it in lower case ("sha-256"), HEX its lower-case hexadecimal.
	ServerDigest string
}

// Protocols returns the WARC-Protocol values of a record whose bytes
// crossed conn under the application protocol app ("ftp", "http/1.1"):
// app, then the TLS version ("tls/1.3") when conn is a TLS connection
// (anything with a ConnectionState, as *tls.Conn has).
func Protocols(app string, conn any) []string {
	p := []string{app}
	if tc, ok := conn.(interface{ ConnectionState() tls.ConnectionState }); ok {
		if v := TLSProtocol(tc.ConnectionState().Version); v != "" {
			p = append(p, v)
		}
	}
	return p
}

// TLSProtocol is the WARC-Protocol value of a TLS version: "tls/1.2",
// "tls/1.3"; "" for none (a handshake not done).
func TLSProtocol(v uint16) string {
	switch v {
	case 0:
		return ""
	case tls.VersionTLS10:
		return "tls/1.0"
	case tls.VersionTLS11:
		return "tls/1.1"
	case tls.VersionTLS12:
		return "tls/1.2"
	case tls.VersionTLS13:
		return "tls/1.3"
	}
	return "tls"
}

// StartCapture starts a record on c, or returns nil when c is nil.
func StartCapture(c Capture, rec CaptureRecord) CaptureBlock {
	if c == nil {
		return nil
	}
	return c.Record(rec)
}

// CaptureTee returns r, every byte read through it also written to b and b
// committed when r reaches io.EOF. With a nil b it returns r itself.
func CaptureTee(r io.Reader, b CaptureBlock) io.Reader {
	if b == nil {
		return r
	}
	return &captureTee{r: r, b: b}
}

// CommitAtEOF returns r, b committed when r reaches io.EOF: for a block
// written below a reader that frames it (a dot-terminated menu). With a nil
// b it returns r itself.
func CommitAtEOF(r io.Reader, b CaptureBlock) io.Reader {
	if b == nil {
		return r
	}
	return &captureTee{r: r, b: b, noCopy: true}
}

type captureTee struct {
	r      io.Reader
	b      CaptureBlock
	noCopy bool
	err    error
}

func (t *captureTee) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if n > 0 && !t.noCopy && t.err == nil {
		if _, werr := t.b.Write(p[:n]); werr != nil {
			t.err = werr
		}
	}
	if err == io.EOF && t.err == nil {
		if cerr := t.b.Commit(); cerr != nil {
			t.err = cerr
		}
	}
	return n, err
}
