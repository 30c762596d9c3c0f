package ftp

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/textproto"
	"sync"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/schemes/lineproto"
)

// copyBufferSize is the buffer WriteTo uses: large enough that a 1 GiB
// transfer costs few system calls, small enough to keep the process small.
const copyBufferSize = 256 << 10

// copyBuffers keeps WriteTo's buffers between transfers: a mirror of
// thousands of small files would otherwise allocate (and clear, and collect)
// 256 KiB for each.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, copyBufferSize); return &b }}

// body streams a file from the data connection. Reaching the end reads the
// server's closing reply, so a transfer the server cut short is reported as
// interrupted rather than as a short file. Closing it early ends the
// transfer and keeps the control connection for the next fetch.
type body struct {
	f     *Fetcher
	c     *conn
	data  net.Conn  // the data connection
	src   io.Reader // data, or a CRLF→LF conversion of it for TYPE A
	stop  func() bool
	start int64 // where the body starts in the file
	size  int64 // size of the whole file, -1 when unknown
	// ascii: the transfer is in TYPE A, whose byte count may differ from
	// SIZE (RFC 3659 §4), so a short transfer is known only from the reply.
	ascii bool
	n     int64
	err   error
	done  bool
	// raw is the plain TCP data connection when bytes may go from it to a
	// file without passing through gofer's memory (splice), nil otherwise.
	raw  net.Conn
	idle time.Duration
	// afterKey names the file for the time an MDTM sent behind its RETR
	// gives ("" when none was sent).
	afterKey string
	// end reads the reply that ends the transfer while the data flows.
	end *endWatch
}

// newBody streams data. convert turns CR LF into LF: RFC 959 §3.1.1.1 has
// TYPE A lines end in CR LF on the wire and the receiver use its own line
// ends. Only a URL that asks for ";type=a" is sent in TYPE A.
//
// raw, when not nil, receives the bytes as they come off the data
// connection, before any conversion (an archive's capture).
func newBody(f *Fetcher, c *conn, data net.Conn, stop func() bool, start, size int64, ascii, convert bool, raw io.Writer) *body {
	var src io.Reader = data
	if raw != nil {
		src = io.TeeReader(data, raw)
	}
	b := &body{f: f, c: c, data: data, src: src, stop: stop, start: start, size: size, ascii: ascii,
		end: watchEnd(c.exchange(), data)}
	if convert {
		b.src = &crlfReader{r: bufio.NewReaderSize(src, 32<<10)}
	}
	return b
}

func (b *body) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.src.Read(p)
	b.n += int64(n)
	if err == io.EOF {
		b.err = b.finish()
		return n, b.err
	}
	if err != nil {
		b.err = b.broken(err)
		return n, b.err
	}
	return n, nil
}

// WriteTo copies the body to w: from the socket straight into a file or
// another socket when it can (splice on Linux: w is an *os.File, or a
// writer that reads from a reader itself, as an HTTP response over TCP
// does), else with one large buffer, so that io.Copy from a body costs as
// few system calls as the data connection allows.
func (b *body) WriteTo(w io.Writer) (int64, error) {
	if rf, ok := w.(io.ReaderFrom); ok && b.raw != nil && b.err == nil && !b.done {
		return b.spliceTo(rf)
	}
	bp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bp)
	buf := *bp
	var total int64
	for {
		n, err := b.Read(buf)
		if n > 0 {
			m, werr := w.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
			if m < n {
				return total, io.ErrShortWrite
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// spliceTo moves the body into f in chunks, each under the idle deadline:
// a chunk grows while chunks arrive well within it, so that a fast transfer
// takes few system calls and a slow one still has to make progress only
// 64 KiB at a time.
func (b *body) spliceTo(f io.ReaderFrom) (int64, error) {
	const minChunk, maxChunk = 64 << 10, 8 << 20
	chunk := int64(minChunk)
	var total int64
	for {
		want := chunk
		b.raw.SetReadDeadline(time.Now().Add(b.idle))
		t0 := time.Now()
		n, err := f.ReadFrom(&io.LimitedReader{R: b.raw, N: want})
		b.n += n
		total += n
		if err != nil {
			b.err = b.broken(err)
			return total, b.err
		}
		if n < want {
			// The server closed the data connection: the transfer's end.
			b.raw.SetReadDeadline(time.Time{})
			if b.err = b.finish(); b.err == io.EOF {
				return total, nil
			}
			return total, b.err
		}
		if d := time.Since(t0); d < b.idle/16 && chunk < maxChunk {
			chunk *= 2
		} else if d > b.idle/4 && chunk > minChunk {
			chunk /= 2
		}
	}
}

// endReply closes the data connection and reads the reply that ends the
// transfer (RFC 959 §4.2: 226, or 250, when it completed), then the reply
// to a passive command sent ahead. The error is a textproto.Error for a
// reply that is not a completion.
func (b *body) endReply() error {
	b.data.Close()
	code, msg, err := b.end.wait()
	if err != nil {
		return err
	}
	after, err := b.c.readAhead()
	if err != nil {
		return err
	}
	if code/100 != 2 {
		return replyErr(code, msg)
	}
	if !after.IsZero() && b.afterKey != "" && b.err == nil {
		b.f.noteAfter(b.afterKey, after)
	}
	return nil
}

// finish reads the server's reply to a transfer whose data reached its end.
func (b *body) finish() error {
	b.done = true
	behind := b.c.sentBehind()
	err := b.endReply()
	if err != nil && behind {
		b.f.distrustAhead(b.c, err)
	}
	b.stop()
	if err != nil {
		if b.c.ctrl.Cancelled() || !isReply(err) {
			b.c.close()
			return b.c.classify(err, "transfer")
		}
		b.f.put(b.c)
		// RFC 959 §4.2: 426 and 451 mean the transfer was aborted.
		var te *textproto.Error
		errors.As(err, &te)
		if tls := b.c.tlsData != nil; reuseRefusal(te.Code, te.Msg, tls) {
			return endError(te.Code, te.Msg, tls)
		}
		return replyError(schemes.ErrInterrupted, te.Code, "%d %s", te.Code, lineproto.ServerText(te.Msg))
	}
	if !b.ascii && b.size >= 0 && b.start+b.n != b.size {
		b.f.put(b.c)
		return schemes.Errorf(schemes.ErrInterrupted, "ftp: transfer ended after %d of %d bytes", b.start+b.n, b.size)
	}
	b.f.put(b.c)
	return io.EOF
}

// broken handles a failed read of the data connection: the transfer is
// interrupted (or timed out), and the control connection is not trusted
// again.
func (b *body) broken(err error) error {
	b.done = true
	if b.c.sentBehind() {
		b.f.distrustAhead(b.c, err)
	}
	if rerr := b.end.refused(); rerr != nil {
		// The server ended the transfer with a refusal and closed, or
		// left open, the data connection (endWatch closed it): its word
		// says why, not the broken read. What the server did with the
		// data connection is not known, so the connection is not kept.
		b.stop()
		b.c.close()
		return rerr
	}
	b.stop()
	b.c.abort()
	return b.c.dataError(err, "transfer")
}

// Close ends the transfer. Before its end, closing the data connection
// makes the server answer 426 (RFC 959 §4.1.3, the effect of ABOR in stream
// mode); once that reply is read the control connection is in step again
// and goes back to the pool.
func (b *body) Close() error {
	if b.done {
		return nil
	}
	b.done = true
	if b.err == nil {
		b.err = schemes.Errorf(schemes.ErrInterrupted, "ftp: body closed")
	}
	err := b.endReply()
	b.stop()
	if (err == nil || isReply(err)) && !b.c.isBroken() {
		b.f.put(b.c)
	} else {
		b.c.close()
	}
	return nil
}

// crlfReader turns CR LF into LF.
type crlfReader struct {
	r *bufio.Reader
}

func (c *crlfReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if n > 0 && c.r.Buffered() == 0 {
			break
		}
		ch, err := c.r.ReadByte()
		if err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		if ch == '\r' {
			if next, err := c.r.Peek(1); err == nil && next[0] == '\n' {
				continue
			}
		}
		p[n] = ch
		n++
	}
	return n, nil
}
