package schemes

import (
	"fmt"
	"time"
)

// What a fetch can stop to ask a person. Each is an error of the contract,
// whatever scheme raised it (Gemini raises all three today), so that a
// program that talks to a person (a terminal browser, a web gateway, the
// command line) answers it without knowing the scheme: an input field for
// an InputError, a yes or no for the other two, and then the same fetch
// again.

// InputError is a server's request for input that nothing answered (a
// Gemini 1x with no query, form answer or prompt given). It matches
// ErrUsage. A walker that meets one (a mirror) records the page as asking
// for input; a person answers it as the URL's query.
type InputError struct {
	Protocol  string // the scheme's protocol, for the message ("gemini")
	Prompt    string // what the server asks, as it wrote it
	Sensitive bool   // the answer is a secret (a password field)
}

func (e *InputError) Error() string {
	return fmt.Sprintf("%s server asks for input (%s) and no answer was given", e.Protocol, ServerText(e.Prompt))
}

// Is makes an InputError match ErrUsage.
func (e *InputError) Is(target error) bool { return target == ErrUsage }

// CertPin is a server certificate as it is pinned on first use.
type CertPin struct {
	Fingerprint string    // "SHA256:" and the hex SHA-256 of the certificate (DER)
	Expires     time.Time // the certificate's NotAfter
}

// CertChangedError is a server that presented another certificate than the
// one pinned for it at first use, which has not expired. It matches
// ErrConnect: no request was sent. Accept pins the new one in its place,
// as a person who has checked the change would, and the fetch can be made
// again.
type CertChangedError struct {
	Protocol string // "gemini"
	Server   string // host:port
	Old      CertPin
	New      CertPin
	File     string // where the pins are kept, "" when in memory

	accept func() error
}

// NewCertChangedError is a CertChangedError whose Accept calls accept.
func NewCertChangedError(protocol, server string, old, new CertPin, file string, accept func() error) *CertChangedError {
	return &CertChangedError{Protocol: protocol, Server: server, Old: old, New: new, File: file, accept: accept}
}

func (e *CertChangedError) Error() string {
	where := ""
	if e.File != "" {
		where = " in " + e.File
	}
	return fmt.Sprintf("%s server %s presented certificate %s, not %s that was pinned for it at first use%s (valid until %s); refused",
		e.Protocol, e.Server, e.New.Fingerprint, e.Old.Fingerprint, where, e.Old.Expires.UTC().Format(time.DateOnly))
}

// Is makes a CertChangedError match ErrConnect.
func (e *CertChangedError) Is(target error) bool { return target == ErrConnect }

// Accept pins the new certificate in place of the old one.
func (e *CertChangedError) Accept() error {
	if e.accept == nil {
		return fmt.Errorf("%s server %s: the new certificate cannot be pinned from here", e.Protocol, e.Server)
	}
	return e.accept()
}

// CertRequiredError is a server that asks for a client certificate when
// none was offered to it (a Gemini 60). It matches ErrAuth. NewIdentity
// makes one for that server, as clients do on a person's word, and the
// fetch can be made again.
type CertRequiredError struct {
	Protocol string // "gemini"
	Server   string // host:port
	Status   string // the server's status as it wrote it ("60"), "" when it has none
	Prompt   string // what the server said, as it wrote it

	newIdentity func() error
}

// NewCertRequiredError is a CertRequiredError whose NewIdentity calls
// newIdentity.
func NewCertRequiredError(protocol, server, status, prompt string, newIdentity func() error) *CertRequiredError {
	return &CertRequiredError{Protocol: protocol, Server: server, Status: status, Prompt: prompt, newIdentity: newIdentity}
}

func (e *CertRequiredError) Error() string {
	said := e.Prompt
	if e.Status != "" {
		said = e.Status + " " + said
	}
	return fmt.Sprintf("%s server %s asks for a client certificate: %s", e.Protocol, e.Server, said)
}

// Is makes a CertRequiredError match ErrAuth.
func (e *CertRequiredError) Is(target error) bool { return target == ErrAuth }

// NewIdentity makes a client certificate for the server and offers it to
// that server from now on.
func (e *CertRequiredError) NewIdentity() error {
	if e.newIdentity == nil {
		return fmt.Errorf("%s server %s: no client certificate can be made from here", e.Protocol, e.Server)
	}
	return e.newIdentity()
}
