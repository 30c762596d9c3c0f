package prospero

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"os/user"
	"strconv"
	"strings"
	"sync"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// ProtocolVersion is the Prospero protocol version gofer speaks.
const ProtocolVersion = "5"

// softwareID names gofer in the VERSION line.
const softwareID = "gofer"

// Fetcher resolves prospero URLs. Its zero value is ready to use; it keeps
// no connections, so one Fetcher serves any number of concurrent fetches.
type Fetcher struct {
	// User is the name an UNAUTHENTICATED request gives; "" means the
	// process's own account name ("anonymous" when it has none).
	User string
}

// New returns a Fetcher.
func New() *Fetcher { return &Fetcher{} }

var (
	_ schemes.Fetcher = (*Fetcher)(nil)
	_ schemes.Planner = (*Fetcher)(nil)
)

// target is what a fetch of one prospero URL sends.
type target struct {
	host    string
	port    int
	hsoname string
	version string // object-version token: the URL's %00 version or OBJECT-VERSION field, else "0" (the latest)
	selects []schemes.Field
	user    string
}

func (t *target) addr() string { return net.JoinHostPort(t.host, strconv.Itoa(t.port)) }

func (f *Fetcher) newTarget(req *schemes.Request) (*target, error) {
	u := req.URL
	pr := u.Prospero
	if pr == nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "not a prospero URL")
	}
	t := &target{host: u.Host, port: u.EffectivePort(), hsoname: pr.HSOName, version: "0", user: f.user()}
	if t.host == "" {
		return nil, schemes.Errorf(schemes.ErrUsage, "prospero URL without a host")
	}
	if pr.HasVersion {
		t.version = pr.Version
	}
	for _, f := range pr.Fields {
		if strings.EqualFold(f.Name, "OBJECT-VERSION") {
			t.version = f.Value
			continue
		}
		t.selects = append(t.selects, f)
	}
	// Every part goes into a Prospero line: quoting carries spaces, but a
	// line break or NUL is refused before anything is sent.
	checks := [][2]string{{"prospero hsoname", t.hsoname}, {"prospero version", t.version}, {"prospero user", t.user}}
	for _, f := range t.selects {
		checks = append(checks, [2]string{"prospero field " + f.Name, f.Name}, [2]string{"prospero field " + f.Name, f.Value})
	}
	for _, c := range checks {
		if err := security.CheckLine(c[0], c[1]); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// user is the name an UNAUTHENTICATED client gives: User, else the
// process's account name.
func (f *Fetcher) user() string {
	if f.User != "" {
		return f.User
	}
	return accountName()
}

var accountName = sync.OnceValue(func() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "anonymous"
})

// preamble is the start of every request message: the protocol version,
// then who asks.
func (t *target) preamble() []string {
	return []string{
		line("VERSION", ProtocolVersion, softwareID),
		line("AUTHENTICATE", "", "UNAUTHENTICATED", t.user),
	}
}

// objectRequest asks for every attribute of the object, its access methods
// among them. Fields of the URL other than OBJECT-VERSION select the
// object by those field values.
func (t *target) objectRequest() []string {
	ls := append(t.preamble(), line("GET-OBJECT-INFO", "#ALL", "ASCII", t.hsoname, t.version))
	for _, f := range t.selects {
		ls = append(ls, line("SELECT", "OBJECT", "FIELD", f.Name, "SEQUENCE", f.Value))
	}
	return ls
}

// listRequest lists a directory object's links with their attributes.
func (t *target) listRequest() []string {
	return append(t.preamble(), line("DIRECTORY", "ASCII", t.hsoname), line("LIST", "ATTRIBUTES", "COMPONENTS"))
}

// message joins request lines into a message: lines end in LF.
func message(lines []string) []byte {
	return []byte(strings.Join(lines, "\n") + "\n")
}

// Plan lists the request lines a fetch sends, without any network.
func (f *Fetcher) Plan(req *schemes.Request) (*schemes.Plan, error) {
	req = req.Ready()
	t, err := f.newTarget(req)
	if err != nil {
		return nil, err
	}
	return &schemes.Plan{
		Requests: t.objectRequest(),
		Notes: map[string]string{
			"transport": "ARDP version 0 over UDP to " + t.addr(),
			"directory": "a directory object is then listed with: " + strings.Join(t.listRequest()[2:], " / "),
			"result":    "the object's first ACCESS-METHOD gofer can follow, fetched as a redirect",
		},
	}, nil
}

// Fetch resolves req.URL: it asks the Prospero server for the object's
// attributes and answers KindRedirect to the URL of its first usable
// ACCESS-METHOD, or, for a directory object, KindListing of its links.
func (f *Fetcher) Fetch(ctx context.Context, req *schemes.Request) (*schemes.Response, error) {
	req = req.Ready()
	t, err := f.newTarget(req)
	if err != nil {
		return nil, err
	}
	conn, err := dial.Default(req.Dialer).DialContext(ctx, "udp", t.addr())
	if err != nil {
		return nil, dial.Classify(err, "prospero: open UDP to "+t.addr())
	}
	defer conn.Close()
	a := &ardpConn{conn: conn, addr: t.addr(), idle: req.Idle(), tr: req.Transcript}

	r, err := t.ask(ctx, a, req, t.objectRequest())
	if err != nil {
		return nil, err
	}
	base := ""
	var methods []AccessMethod
	var unusable []string
	for _, at := range r.Attributes {
		switch at.Name {
		case "BASE-TYPE":
			if len(at.Values) > 0 {
				base = strings.ToUpper(at.Values[0])
			}
		case "ACCESS-METHOD":
			m, err := accessMethod(at)
			if err != nil {
				return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: malformed reply: %v", t.addr(), err)
			}
			methods = append(methods, m)
		}
	}
	if base != "DIRECTORY" {
		for _, m := range methods {
			loc, err := m.URL(t.host, t.hsoname)
			if err != nil {
				unusable = append(unusable, err.Error())
				continue
			}
			a.note(fmt.Sprintf("resolved %s to %s (ACCESS-METHOD %s)", req.URL.Redacted(), loc, m))
			return &schemes.Response{URL: req.URL, Kind: schemes.KindRedirect, Size: -1,
				Location: loc, Status: "ACCESS-METHOD " + m.String()}, nil
		}
	}
	if base == "DIRECTORY" || base == "DIRECTORY+FILE" {
		return f.list(ctx, a, req, t)
	}
	switch {
	case len(unusable) > 0:
		return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: %s has no access method gofer can follow: %s", t.addr(), t.hsoname, strings.Join(unusable, "; "))
	case r.NoneFound || len(r.Attributes) == 0:
		return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: the server knows no object %s", t.addr(), t.hsoname)
	}
	return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: %s has no ACCESS-METHOD attribute", t.addr(), t.hsoname)
}

// ask sends one request message in its own ARDP connection and decodes the
// reply.
func (t *target) ask(ctx context.Context, a *ardpConn, req *schemes.Request, lines []string) (*Reply, error) {
	a.cid = uint16(rand.N(0xffff)) + 1 // never 0, which would ask for no connection id
	a.note(fmt.Sprintf("ARDP to %s, connection %d", t.addr(), a.cid))
	msg, err := a.roundTrip(ctx, message(lines))
	if err != nil {
		return nil, err
	}
	r, err := DecodeReply(msg, req.LineLimit())
	var re *ReplyError
	switch {
	case errors.As(err, &re):
		return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: %s: %s", t.addr(), t.hsoname, re)
	case err != nil:
		return nil, schemes.Errorf(schemes.ErrRefused, "prospero %s: malformed reply: %v", t.addr(), err)
	}
	for _, w := range r.Warnings {
		req.Warnf("prospero server " + t.addr() + " warns: " + w)
	}
	return r, nil
}

// list reads a directory object's links. A link to a Prospero object is a
// prospero URL; an EXTERNAL link is the URL of its access method (RFC 1738
// §3.11: external links are not prospero URLs).
func (f *Fetcher) list(ctx context.Context, a *ardpConn, req *schemes.Request, t *target) (*schemes.Response, error) {
	r, err := t.ask(ctx, a, req, t.listRequest())
	if err != nil {
		return nil, err
	}
	if len(r.Links) > req.EntryLimit() {
		return nil, schemes.Errorf(schemes.ErrTooLarge, "prospero %s: directory %s has more than %d links", t.addr(), t.hsoname, req.EntryLimit())
	}
	var entries []schemes.Entry
	for _, k := range r.Links {
		e, err := linkEntry(k, t)
		if err != nil {
			req.Warnf(fmt.Sprintf("prospero directory %s: link %q left out: %v", t.hsoname, k.Name, err))
			continue
		}
		entries = append(entries, e)
	}
	name := t.hsoname
	if i := strings.LastIndexByte(strings.TrimSuffix(name, "/"), '/'); i >= 0 {
		name = name[i+1:]
	}
	return &schemes.Response{URL: req.URL, Kind: schemes.KindListing, Size: -1, Name: name,
		Type: schemes.TypeDir, Listing: schemes.ListingOf(entries, nil)}, nil
}

// linkEntry turns a LINK line into a listing entry.
func linkEntry(k Link, t *target) (schemes.Entry, error) {
	e := schemes.Entry{Name: k.Name, Size: -1}
	if k.Name == "" || k.Name == "NULL" && k.Host == "NULL" {
		return e, fmt.Errorf("no read access")
	}
	switch strings.ToUpper(k.Target) {
	case "EXTERNAL":
		e.Type = schemes.TypeLink
		for _, at := range k.Attribute {
			if at.Name != "ACCESS-METHOD" {
				continue
			}
			m, err := accessMethod(at)
			if err != nil {
				return e, err
			}
			host, _, err := splitHost(k.Host)
			if err != nil {
				return e, err
			}
			if e.URL, err = m.URL(host, k.HSOName); err == nil {
				return e, nil
			}
		}
		return e, fmt.Errorf("external link without an access method gofer can follow")
	case "SYMBOLIC":
		return e, fmt.Errorf("symbolic link into virtual system %s", k.Host)
	case "DIRECTORY", "DIRECTORY+FILE":
		e.Type = schemes.TypeDir
	case "FILE":
		e.Type = schemes.TypeFile
	default:
		e.Type = schemes.TypeOther
	}
	if k.HostType != "" && !strings.EqualFold(k.HostType, "INTERNET-D") {
		return e, fmt.Errorf("host of type %s", k.HostType)
	}
	host, port, err := splitHost(k.Host)
	if err != nil {
		return e, err
	}
	if host == "" {
		host, port = t.host, t.port
	}
	if port == schemes.DefaultPort("prospero") {
		port = 0
	}
	pr := &schemes.Prospero{HSOName: k.HSOName}
	if k.Version != "" && k.Version != "0" {
		pr.Version, pr.HasVersion = k.Version, true
	}
	e.URL = (&schemes.URL{Scheme: "prospero", Host: host, Port: port, Prospero: pr}).String()
	return e, nil
}
