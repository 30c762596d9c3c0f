package schemes

import (
	"crypto/tls"
	"errors"
	"fmt"
	"strconv"
)

// Error kinds a fetcher's error is matched against with errors.Is. The CLI
// maps each onto the exit code its comment names.
var (
	// ErrUsage: the request cannot be made as given (a query or form answer
	// is missing, a file: URL names another host). Exit 2.
	ErrUsage = errors.New("usage")
	// ErrUnsupportedScheme: no fetcher is registered for the scheme. Exit 2.
	ErrUnsupportedScheme = errors.New("unsupported scheme")
	// ErrConnect: could not connect or resolve. Exit 4.
	ErrConnect = errors.New("could not connect")
	// ErrRefused: the server refused (not found, permission, protocol error). Exit 5.
	ErrRefused = errors.New("refused by server")
	// ErrNotFound: the server says what the URL names does not exist (FTP
	// 550 to RETR or CWD, a Gopher error item, Gemini 51, NNTP 411, 423
	// and 430). A refinement of ErrRefused, which it matches too, so that
	// a caller that tells "not found" apart (a web gateway's 404) can,
	// and any other sees a refusal. Exit 5.
	ErrNotFound = errors.New("not found")
	// ErrAuth: authentication failed or credentials are missing. Exit 6.
	ErrAuth = errors.New("authentication failed")
	// ErrTimeout: an operation made no progress within its deadline. Exit 7.
	ErrTimeout = errors.New("timed out")
	// ErrInterrupted: the transfer broke off; partial data is kept. Exit 8.
	ErrInterrupted = errors.New("transfer interrupted")
	// ErrTooLarge: a limit (size, line length, entries) was exceeded. Exit 1.
	ErrTooLarge = errors.New("limit exceeded")
	// ErrMissingProgram: a program the URL is handed to (rlogin, c3270) is
	// not installed here; nothing is wrong with the URL or the server. Exit 1.
	ErrMissingProgram = errors.New("program not installed")
)

// Kinds lists every error kind above; each error a fetcher returns matches
// one of them.
var Kinds = []error{ErrUsage, ErrUnsupportedScheme, ErrConnect, ErrRefused,
	ErrAuth, ErrTimeout, ErrInterrupted, ErrTooLarge, ErrMissingProgram}

// KindError is an error of one of the kinds above whose message is exactly
// Msg (no kind prefix), so it reads well as a one-line error.
type KindError struct {
	Kind error
	Msg  string
	Err  error // the underlying cause, if any
}

func (e *KindError) Error() string { return e.Msg }

// Is reports whether target is e's kind (ErrNotFound is ErrRefused too).
func (e *KindError) Is(target error) bool {
	return target == e.Kind || e.Kind == ErrNotFound && target == ErrRefused
}

func (e *KindError) Unwrap() error { return e.Err }

// Errorf returns a *KindError of kind with a formatted message. A %w verb in
// format also records the cause.
func Errorf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &KindError{Kind: kind, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// SettingError is a fetch that cannot be made, or was refused, for want
// of a setting the caller did not give: Setting names it as Request's
// field does ("Query", "Credentials" for a login from netrc or a prompt,
// "TLSConfig" for a CA to trust), or, for a setting of one scheme's
// fetcher, as package.Type.Field ("nntp.Fetcher.Server",
// "mailto.Fetcher.From", "mailto.Fetcher.SMTPServer",
// "mailto.Fetcher.SMTPUser"), so that a program, or a command line, can
// say how it is given there. Its message names no way of giving it. It
// matches Kind.
type SettingError struct {
	Kind    error
	Setting string
	Msg     string
	Err     error
}

func (e *SettingError) Error() string { return e.Msg }

// Is reports whether target is e's kind.
func (e *SettingError) Is(target error) bool { return target == e.Kind }

func (e *SettingError) Unwrap() error { return e.Err }

// NeedSetting returns a *SettingError of kind for setting with a
// formatted message; a %w verb also records the cause.
func NeedSetting(kind error, setting, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &SettingError{Kind: kind, Setting: setting, Msg: err.Error(), Err: errors.Unwrap(err)}
}

// ReplyError is a server's numbered reply that refused a request: an FTP
// reply code (RFC 959 §4.2) or an HTTP status (RFC 9110 §15). A fetcher
// puts it under its error's kind, so that a caller that tries again (a
// mirror) can tell a transient refusal from a permanent one.
type ReplyError struct {
	Code int
	// Transient marks a reply worth another try: FTP 4yz ("transient
	// negative completion"), HTTP 5xx and 429.
	Transient bool
	// Busy marks a server refusing another connection: a per-address or
	// total connection limit, or load ("421 Too many connections", "530
	// Sorry, max 2 clients per host"). It is transient: fewer connections
	// at once, or a pause, get through.
	Busy bool
}

func (e *ReplyError) Error() string { return "reply " + strconv.Itoa(e.Code) }

// ReplyErrorf is Errorf for an error that carries the server's reply code.
func ReplyErrorf(kind error, reply *ReplyError, format string, args ...any) error {
	return &KindError{Kind: kind, Msg: fmt.Sprintf(format, args...), Err: reply}
}

// Busy reports whether err is a server's refusal of another connection
// (ReplyError.Busy).
func Busy(err error) bool {
	var re *ReplyError
	return errors.As(err, &re) && re.Busy
}

// ConnLimiter is implemented by fetchers that learn how many connections
// at once a server allows (from its refusals of more) and keep to it.
// ConnLimit is the limit learned for host and port, 0 when none is
// known; SetConnLimit sets it (a limit learned by an earlier run).
type ConnLimiter interface {
	ConnLimit(host string, port int) int
	SetConnLimit(host string, port, n int)
}

// Transient reports whether err is worth another try: a reply marked
// transient, a connection that could not be made (but not a certificate
// refused) or that broke off, a timeout. A reply not marked transient (FTP
// 550, HTTP 404), a refused login, a limit, a usage error are permanent.
func Transient(err error) bool {
	var re *ReplyError
	if errors.As(err, &re) {
		return re.Transient
	}
	var ce *tls.CertificateVerificationError
	if errors.As(err, &ce) {
		return false
	}
	return errors.Is(err, ErrTimeout) || errors.Is(err, ErrInterrupted) || errors.Is(err, ErrConnect)
}
