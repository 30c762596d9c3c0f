package fetch

import (
	"context"
	"io"
	"net"

	"github.com/goferurl/gofer/schemes"
)

// captureDialer tells a fetch's Capture of every connection it opens.
type captureDialer struct {
	d schemes.Dialer
	c schemes.Capture
}

// Unwrap is the dialer that opens the connections, so that a fetcher that
// keys its pool on the dialer (FTP) keeps reusing them across captured
// fetches, as it does across others.
func (d *captureDialer) Unwrap() schemes.Dialer { return d.d }

func (d *captureDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	nc, err := d.d.DialContext(ctx, network, addr)
	if err == nil {
		d.c.Dialed(nc)
	}
	return nc, err
}

// conversationCapture is a Capture that keeps the control conversation
// (the transcript, passwords masked) of a fetch.
type conversationCapture interface {
	Conversation() io.Writer
}

// withCapture wires r's Capture into req: its dialer and transcript.
func withCapture(req *schemes.Request, c schemes.Capture) {
	if c == nil {
		return
	}
	// The client's settings are shared; a captured fetch has its own copy,
	// whose dialer tells the capture of each connection.
	*req = *req.WithSettings(func(st *schemes.Settings) {
		st.Dialer = &captureDialer{d: st.Dialer, c: c}
		if cc, ok := c.(conversationCapture); ok {
			if w := cc.Conversation(); w != nil {
				if st.Transcript != nil {
					w = io.MultiWriter(st.Transcript, w)
				}
				st.Transcript = w
			}
		}
	})
	req.Capture = c
}

// CaptureCloser is a capture that has work to do once its fetch is over
// (warc.Capture writes the FTP control conversation then).
type CaptureCloser interface {
	schemes.Capture
	Close() error
}

// doCaptured is Do with a capture of Options.Capture's making: the capture
// ends when the response is closed, or at once when the fetch fails or the
// response holds no connection.
func (c *Client) doCaptured(ctx context.Context, r *Request, u *schemes.URL) (*Response, error) {
	cc := c.opts.Capture(u.Redacted())
	rr := *r
	rr.Capture = cc
	resp, err := c.follow(ctx, &rr, u)
	if err != nil {
		cc.Close()
		return nil, err
	}
	switch {
	case resp.Listing != nil:
		resp.Listing = &listingCaptureClose{Listing: resp.Listing, c: cc}
	case resp.Kind == schemes.KindFile && resp.Body != nil:
		resp.Body = &bodyCaptureClose{ReadCloser: resp.Body, c: cc}
	default:
		if cerr := cc.Close(); cerr != nil {
			resp.Close()
			return nil, cerr
		}
	}
	return resp, nil
}

type bodyCaptureClose struct {
	io.ReadCloser
	c CaptureCloser
}

func (b *bodyCaptureClose) Close() error {
	err := b.ReadCloser.Close()
	if cerr := b.c.Close(); err == nil {
		err = cerr
	}
	return err
}

type listingCaptureClose struct {
	schemes.Listing
	c CaptureCloser
}

func (l *listingCaptureClose) Close() error {
	err := l.Listing.Close()
	if cerr := l.c.Close(); err == nil {
		err = cerr
	}
	return err
}
