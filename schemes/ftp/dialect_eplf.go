package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// EPLF, the Easily Parsed LIST Format: "+" then facts separated by ",",
// a tab, the name. Facts: "/" a directory (CWD works), "r" a file (RETR
// works), "s" the size in bytes, "m" the modification time in seconds
// since 1970 UTC, "i" an identifier; unknown facts are skipped.

// parseEPLF reads an EPLF line.
func parseEPLF(line string) (schemes.Entry, result) {
	var e schemes.Entry
	if len(line) < 2 || line[0] != '+' {
		return e, notMine
	}
	facts, name, found := strings.Cut(line[1:], "\t")
	if !found || name == "" {
		return e, notMine
	}
	e = schemes.Entry{Name: name, Type: schemes.TypeOther, Size: -1}
	for _, f := range strings.Split(facts, ",") {
		if f == "" {
			continue
		}
		switch v := f[1:]; f[0] {
		case '/':
			e.Type = schemes.TypeDir
		case 'r':
			if e.Type != schemes.TypeDir {
				e.Type = schemes.TypeFile
			}
		case 's':
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				e.Size = n
			}
		case 'm':
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 && n < 253402300800 {
				e.Modified, e.Precision = time.Unix(n, 0).UTC(), schemes.PrecisionSecond
			}
		}
	}
	if e.Type == schemes.TypeDir {
		e.Size = -1
	}
	return e, named(e.Name)
}
