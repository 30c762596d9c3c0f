package prosperotest

import (
	"fmt"
	"strings"
)

// Hosts says where the catalogue's access methods point: the harness FTP
// server (vsftpd) and the plain Gopher server (gophernicus).
type Hosts struct {
	FTP    string // e.g. 127.0.0.21
	Gopher string // e.g. 127.0.0.71
}

// attr writes an ATTRIBUTE line of an object attribute.
func attr(namespace, name string, values ...string) string {
	toks := []string{"ATTRIBUTE", "OBJECT", namespace, name}
	if namespace != "FIELD" {
		toks = append(toks, "SEQUENCE")
	}
	for _, v := range values {
		toks = append(toks, quote(v))
	}
	return strings.Join(toks, " ")
}

func file() string      { return attr("FIELD", "BASE-TYPE", "FILE") }
func directory() string { return attr("FIELD", "BASE-TYPE", "DIRECTORY") }

// aftp is an anonymous-FTP access method.
func aftp(host, path, mode string) string {
	return attr("INTRINSIC", "ACCESS-METHOD", "AFTP", "INTERNET-D", host, "ASCII", path, mode)
}

// gopher is a Gopher access method with its item type.
func gopher(host, selector, typ string) string {
	return attr("INTRINSIC", "ACCESS-METHOD", "GOPHER", "INTERNET-D", host, "ASCII", selector, typ)
}

// Catalog is the catalogue the harness server (integration/cmd/prosperod)
// serves; integration/LAYOUT.md lists it. self is the server's own
// address as links name it, "host(port)".
func Catalog(h Hosts, self string) map[string]*Object {
	// A LOCAL method first: a client must skip what it cannot follow.
	local := attr("INTRINSIC", "ACCESS-METHOD", "LOCAL", "", "", "", "")
	// Enough DESCRIPTION lines to fill many packets before the access
	// method, which comes last.
	var long []string
	for i := 1; i <= 60; i++ {
		long = append(long, attr("APPLICATION", "DESCRIPTION", fmt.Sprintf("line %02d of a description long enough to need several ARDP packets", i)))
	}
	link := func(target, name, hsoname string) string {
		return strings.Join([]string{"LINK", "L", target, quote(name), "INTERNET-D", self, "ASCII", quote(hsoname), "0"}, " ")
	}
	return map[string]*Object{
		"/ftp/README.txt":          {Info: []string{file(), local, aftp(h.FTP, "/archive/README.txt", "BINARY")}},
		"/ftp/all-bytes.bin":       {Info: []string{file(), aftp(h.FTP, "/archive/binary/all-bytes.bin", "BINARY")}},
		"/ftp/name with space.txt": {Info: []string{file(), aftp(h.FTP, "/archive/names/with space.txt", "BINARY")}},
		"/gopher/plain.txt":        {Info: []string{file(), gopher(h.Gopher, "/archive/text/plain.txt", "0")}},
		"/gopher/random-64k.bin":   {Info: []string{file(), gopher(h.Gopher, "/archive/binary/random-64k.bin", "9")}},
		"/multi": {
			Info:       append(append([]string{file()}, long...), aftp(h.FTP, "/archive/binary/random-64k.bin", "BINARY")),
			PacketSize: 256,
			Fault:      Reverse,
		},
		"/lossy":   {Info: []string{file(), aftp(h.FTP, "/archive/text/plain.txt", "BINARY")}, Fault: DropFirst},
		"/busy":    {Info: []string{file(), aftp(h.FTP, "/archive/text/plain.txt", "BINARY")}, Fault: Busy},
		"/badport": {Info: []string{file(), aftp(h.FTP+"(25)", "/archive/README.txt", "BINARY")}},
		"/nomethod": {Info: []string{file(), local,
			attr("INTRINSIC", "ACCESS-METHOD", "NFS", "INTERNET-D", h.FTP, "ASCII", "/archive/README.txt", "/export")}},
		"/malformed": {Info: []string{file()}, Fault: BadARDP},
		"/garbage":   {Info: []string{file()}, Fault: BadText},
		"/silent":    {Info: []string{file()}, Fault: Silent},
		"/cut":       {Info: append([]string{file()}, long...), PacketSize: 256, Fault: Cut},
		"/dir": {
			Info: []string{directory()},
			List: []string{
				link("FILE", "README.txt", "/ftp/README.txt"),
				link("FILE", "all-bytes.bin", "/ftp/all-bytes.bin"),
				link("FILE", "plain.txt", "/gopher/plain.txt"),
				link("DIRECTORY", "sub", "/dir/sub"),
				strings.Join([]string{"LINK", "L", "EXTERNAL", "nginx", "INTERNET-D", "127.0.0.80", "ASCII", "/archive/README.txt", "0"}, " "),
				"ATTRIBUTE CACHED INTRINSIC ACCESS-METHOD SEQUENCE HTTP '' '' '' ''",
			},
		},
		"/dir/sub": {
			Info: []string{directory()},
			List: []string{link("FILE", "random-64k.bin", "/gopher/random-64k.bin")},
		},
	}
}
