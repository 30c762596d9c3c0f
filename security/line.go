package security

import (
	"errors"
	"fmt"
)

// Sentinel errors callers branch on with errors.Is.
var (
	// ErrInjection: a URL part would put a protocol delimiter on the wire.
	ErrInjection = errors.New("line injection")
	// ErrPort: the port is another protocol's well-known port.
	ErrPort = errors.New("refused port")
	// ErrUnsafeName: a remote name cannot safely become a local file name.
	ErrUnsafeName = errors.New("unsafe name")
	// ErrRedirect: a redirect the policy forbids.
	ErrRedirect = errors.New("refused redirect")
)

// InjectionError names the URL part and the offending byte.
type InjectionError struct {
	Part string // e.g. "ftp segment 2", "gopher selector"
	Byte byte
}

func (e *InjectionError) Error() string {
	return fmt.Sprintf("refused: %s holds %s, which would inject into the protocol", e.Part, byteName(e.Byte))
}

func (e *InjectionError) Is(target error) bool { return target == ErrInjection }

func byteName(b byte) string {
	switch b {
	case '\r':
		return "CR (%0D)"
	case '\n':
		return "LF (%0A)"
	case 0:
		return "NUL (%00)"
	case '\t':
		return "TAB (%09)"
	case 0xFF:
		return "IAC (%FF)"
	case 0x1E:
		return "RS (%1E)"
	case 0x1F:
		return "US (%1F)"
	}
	return fmt.Sprintf("byte %%%02X", b)
}

// CheckLine refuses CR, LF and NUL in value, which goes into a line-based
// command as the URL part named by part.
func CheckLine(part, value string) error {
	for i := 0; i < len(value); i++ {
		switch value[i] {
		case '\r', '\n', 0:
			return &InjectionError{Part: part, Byte: value[i]}
		}
	}
	return nil
}

// CheckGopherField refuses CR, LF, NUL and TAB in a Gopher selector or search.
func CheckGopherField(part, value string) error {
	for i := 0; i < len(value); i++ {
		switch value[i] {
		case '\r', '\n', 0, '\t':
			return &InjectionError{Part: part, Byte: value[i]}
		}
	}
	return nil
}

// CheckWAISField refuses NUL, 0x1E and 0x1F in a WAIS database name,
// search words or document type: NUL ends the C string a WAIS server reads
// the field into, and 0x1F and 0x1E separate database names and element
// sets inside a SearchRequest (Z39.50-1988 as WAIS uses it), so either
// would make the server read another request than the one meant.
func CheckWAISField(part, value string) error {
	for i := 0; i < len(value); i++ {
		switch value[i] {
		case 0, 0x1E, 0x1F:
			return &InjectionError{Part: part, Byte: value[i]}
		}
	}
	return nil
}
