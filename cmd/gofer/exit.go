package main

import (
	"context"
	"errors"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

// Exit codes: a contract with scripts, documented in the README; change
// one only on purpose.
const (
	exitOK          = 0
	exitFailure     = 1
	exitUsage       = 2
	exitRefused     = 3 // refused by the security guard; nothing was sent
	exitConnect     = 4
	exitServer      = 5
	exitAuth        = 6
	exitTimeout     = 7
	exitInterrupted = 8
)

// usageError is a mistake in the command line itself.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// exitCode maps an error onto the documented exit codes. The guard's
// refusals are looked for first: a refusal wraps nothing that was sent.
func exitCode(err error) int {
	var pe *schemes.ParseError
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &ue), errors.As(err, &pe),
		errors.Is(err, schemes.ErrUsage), errors.Is(err, schemes.ErrUnsupportedScheme):
		return exitUsage
	case errors.Is(err, security.ErrInjection), errors.Is(err, security.ErrPort),
		errors.Is(err, security.ErrUnsafeName), errors.Is(err, security.ErrRedirect):
		return exitRefused
	case errors.Is(err, schemes.ErrConnect):
		return exitConnect
	case errors.Is(err, schemes.ErrRefused):
		return exitServer
	case errors.Is(err, schemes.ErrAuth):
		return exitAuth
	case errors.Is(err, schemes.ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return exitTimeout
	case errors.Is(err, schemes.ErrInterrupted), errors.Is(err, context.Canceled):
		return exitInterrupted
	}
	return exitFailure
}

// severity orders exit codes for a run with several failures: the most
// severe one is reported. A guard refusal outranks everything because it
// means gofer declined to act; usage errors come next.
func severity(code int) int {
	switch code {
	case exitOK:
		return 0
	case exitRefused:
		return 10
	case exitUsage:
		return 9
	}
	return code
}
