package security

import (
	"fmt"
	"path/filepath"
	"strings"
)

// NameError is a remote name the safe-name rule refuses as a local file
// name. It matches ErrUnsafeName.
type NameError struct {
	Name   string
	Reason string
}

func (e *NameError) Error() string {
	// %q escapes non-printable bytes, so a hostile name cannot move the
	// terminal's cursor or hide itself.
	return fmt.Sprintf("refused: unsafe name %q: %s", e.Name, e.Reason)
}

// Is reports whether target is ErrUnsafeName.
func (e *NameError) Is(target error) bool { return target == ErrUnsafeName }

// MaxNameBytes is the longest name SafeName lets through: NAME_MAX of the
// common local file systems (ext4, XFS, APFS, NTFS in UTF-16 units aside).
// A longer remote name (a hostile listing's over-long field) is refused
// like any other unsafe one, not left to fail when it is written.
const MaxNameBytes = 255

// SafeName checks one decoded remote name (a listing entry, a path segment,
// a URL's remote name) before it becomes a local file name: it must not be empty, "."
// or "..", hold '/', '\' or NUL, be absolute, or be longer than a file
// name may be (MaxNameBytes). This is the mirror's rule against writing
// outside its directory.
func SafeName(name string) error {
	reason := ""
	switch {
	case name == "":
		reason = "empty"
	case name == "." || name == "..":
		reason = "a directory reference"
	case len(name) > MaxNameBytes:
		reason = fmt.Sprintf("longer than %d bytes", MaxNameBytes)
	case strings.IndexByte(name, 0) >= 0:
		reason = "holds NUL"
	case strings.ContainsAny(name, `/\`):
		reason = "holds a path separator"
	case filepath.IsAbs(name) || filepath.VolumeName(name) != "" || len(name) >= 2 && name[1] == ':' && isLetter(name[0]):
		// A drive letter ("C:x") is a relative-to-another-drive path on Windows.
		reason = "absolute"
	default:
		return nil
	}
	return &NameError{Name: name, Reason: reason}
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
