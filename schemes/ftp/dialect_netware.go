package ftp

import (
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// Novell NetWare lines: "d" or "-", the rights in brackets, the owner, the
// size, an ls date, the name:
//
//	d [RWCEAFMS] supervisor            512       Jan 16 18:53    login
//	- [R----F--] rhesus             214059       Oct 20 15:27    cx.exe

// parseNetware reads a NetWare line.
func (p *listParser) parseNetware(line string) (schemes.Entry, result) {
	var e schemes.Entry
	if len(line) < 4 || (line[0] != 'd' && line[0] != '-') || line[1] != ' ' || line[2] != '[' {
		return e, notMine
	}
	var buf [8]field
	fs := fields(buf[:0], line)
	if len(fs) < 7 || !strings.HasSuffix(fs[1].s, "]") {
		return e, notMine
	}
	size, ok := unixSize(fs, 4, '-')
	if !ok || size < 0 {
		return e, notMine
	}
	t, prec, last, ok := unixDate(fs, 4, p.now)
	if !ok || last+1 >= len(fs) {
		return e, notMine
	}
	e = schemes.Entry{Name: rest(line, fs[last]), Type: schemes.TypeFile, Size: size, Modified: t, Precision: prec}
	if line[0] == 'd' {
		e.Type, e.Size = schemes.TypeDir, -1
	}
	return e, named(e.Name)
}
