package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// errReported says the command has printed its own errors and set c.code.
var errReported = errors.New("reported")

func (c *cli) getCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get [flags] URL...",
		Short: "Retrieve URLs: a body to stdout or a file, a listing as text or JSON",
		Example: `  gofer get ftp://ftp.funet.fi/pub/README
  gofer get -O 'ftp://ftp.example.org/pub/file.tar.gz;type=i'
  gofer get gopher://gopher.floodgap.com/1/world
  gofer get --query 'rfc 1738' gopher://gopher.floodgap.com/7/v2/vs
  gofer get --nntp-server news.example.org news:comp.infosystems.gopher
  gofer get --json ftp://ftp.example.org/pub/
  echo 'Hello' | gofer get --from me@example.org --smtp-server mail.example.org:587 \
      --smtp-user me 'mailto:you@example.org?subject=Hi'`,
		Long: `Retrieve URLs: a body goes to stdout or a file, a listing prints as text or JSON.

A mailto: URL sends a message (RFC 6068): the recipients are the URL's
addresses and its to= and cc= fields; subject, keywords, in-reply-to and
references come from the URL (other fields are left out with a warning);
the text is the URL's body= followed by stdin when stdin is not a terminal.
--from ADDR (default $EMAIL) is the sender, --header 'Name: value' adds a
header line. The message goes through --smtp-server HOST[:PORT] (default
$SMTP_SERVER; port 25, STARTTLS when offered; 587 needs STARTTLS and a login
from --smtp-user or netrc; 465 is TLS from the first byte), else through
/usr/sbin/sendmail. gofer prints the queue id the server gave. A CR, LF or
NUL in any address or header value is refused before anything is sent (exit 3).`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return &usageError{msg: "get needs at least one URL"}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := c.openWARC(false); err != nil {
				return err
			}
			return c.closeWARC(c.runGet(cmd, args))
		},
	}
	c.addFlags(cmd, flagGroups())
	cmd.Flags().StringVar(&c.warc.file, "warc", "", "also capture what is fetched into the WARC/1.1 archive `FILE` (replaced)")
	c.addSegmentsFlag(cmd)
	return cmd
}

func (c *cli) runGet(cmd *cobra.Command, args []string) error {
	switch {
	case c.output != "" && c.remoteName:
		return &usageError{msg: "-o and -O cannot be used together"}
	case c.output != "" && c.output != "-" && len(args) > 1:
		return &usageError{msg: "-o names one file: give one URL, or use -O"}
	case c.resume && (c.output == "" || c.output == "-") && !c.remoteName:
		return &usageError{msg: "-C resumes a file: give -o FILE or -O"}
	case c.head && c.body:
		return &usageError{msg: "--head and --body cannot be used together"}
	}
	if err := c.checkSegments(); err != nil {
		return err
	}
	ctx, client, done, err := c.session(cmd)
	if err != nil {
		return err
	}
	defer done()
	if f, ok := c.stderr.(*os.File); ok && !c.quiet && term.IsTerminal(int(f.Fd())) {
		c.showProgress = true
	}
	hasQuery := cmd.Flags().Changed("query")
	if len(args) == 1 {
		return c.getOne(ctx, client, args[0], hasQuery)
	}
	for _, raw := range args {
		if err := c.getOne(ctx, client, raw, hasQuery); err != nil {
			c.errorf("%v", hinted(err))
			if code := exitCode(err); severity(code) > severity(c.code) {
				c.code = code
			}
		}
	}
	if c.code != exitOK {
		return errReported
	}
	return nil
}

// getOne retrieves one URL and writes what came back.
func (c *cli) getOne(ctx context.Context, client *fetch.Client, raw string, hasQuery bool) error {
	u, err := fetch.ParseURL(raw)
	if err != nil {
		return err
	}
	out := c.output
	if out == "-" {
		out = ""
	}
	if c.remoteName {
		// The local name is checked before anything is sent: a name the
		// safe-name rule refuses never reaches the disk or the wire.
		wire, err := client.RemoteURL(u)
		if err != nil {
			return err
		}
		name := client.DecodeName(wire.LocalName())
		if err := security.SafeName(name); err != nil {
			return fmt.Errorf("-O: %w", err)
		}
		out = name
	}
	t, err := prepareTarget(out, c.resume)
	if err != nil {
		return err
	}
	req := &fetch.Request{
		URL:    raw,
		Parsed: u,
		Call:   schemes.Call{Offset: t.offset(), Query: c.query, HasQuery: hasQuery, Form: c.forms},
	}
	if u.Scheme == "mailto" {
		req.Mail = &schemes.MailRequest{Headers: c.headers}
		if f, ok := c.stdin.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
			req.Mail.Body = c.stdin
		}
	}
	req.News = c.newsPart()
	resp, err := client.Do(ctx, req)
	if err != nil {
		return err
	}
	defer resp.Close()
	shown := u.Redacted()
	switch resp.Kind {
	case schemes.KindFile:
		if isGemtext(resp) && (out == "" || c.json) {
			// A page printed is read: its lines, the links numbered (or
			// as JSON entries); saved to a file it keeps its bytes.
			return c.saveRendered(t, func(w io.Writer) error {
				return writeListing(w, shown, gemtextListing(resp, c.json), c.json, c.warnf)
			})
		}
		if c.segmented(t) {
			return c.saveSegments(ctx, client, req, t, resp, shown)
		}
		return c.saveBody(t, resp, shown)
	case schemes.KindListing:
		return c.saveRendered(t, func(w io.Writer) error { return writeListing(w, shown, resp.Listing, c.json, c.warnf) })
	case schemes.KindInfo:
		return c.saveRendered(t, func(w io.Writer) error { return writeInfo(w, shown, resp.Info, c.json) })
	case schemes.KindSession:
		return resp.Session.Interact(ctx, c.stdin, c.stdout)
	case schemes.KindHandoff:
		return c.handoff(ctx, resp.Command)
	case schemes.KindRedirect:
		// --max-redirects 0: the redirect is the answer, as curl without -L.
		c.warnf(fmt.Sprintf("%s redirects to %s (%s), not followed", shown, printable(resp.Location), printable(resp.Status)))
		if c.json {
			return json.NewEncoder(c.stdout).Encode(map[string]string{"url": shown, "location": resp.Location, "status": resp.Status})
		}
		return nil
	}
	return fmt.Errorf("%s: unexpected response", shown)
}

// handoff runs the program a URL is handed to (rlogin, tn3270), never
// through a shell: each argument is passed as it is.
func (c *cli) handoff(ctx context.Context, command []string) error {
	if len(command) == 0 {
		return errors.New("no program to hand the URL to")
	}
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.stdin, c.stdout, c.stderr
	return cmd.Run()
}

// newsPart is what --head or --body asks of an article, nil for all of it.
func (c *cli) newsPart() *schemes.NewsRequest {
	switch {
	case c.head:
		return &schemes.NewsRequest{Part: "head"}
	case c.body:
		return &schemes.NewsRequest{Part: "body"}
	}
	return nil
}
