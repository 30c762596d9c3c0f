package itest

import "path/filepath"

// The IPv6 listeners: the same servers, or a second instance of each
// serving the same content, on [::1] at their protocol's default port
// (integration/lib/gopher.sh, news.sh, http.sh, gemini.sh; ftp.sh has
// vsftpd on [::1]:21).
const (
	IPv6Host       = "::1"
	GopherIPv6Addr = "[::1]:70"   // gophernicus, naming ::1 in its menus
	NNTPIPv6Addr   = "[::1]:119"  // INN's nnrpd as a standalone daemon
	HTTPIPv6Addr   = "[::1]:80"   // nginx, plain HTTP, the site of HTTPHost
	GeminiIPv6Addr = "[::1]:1965" // molly-brown for Hostname ::1, relayed
)

// GeminiIPv6CertPath is the certificate of the Gemini server on [::1]
// (IP:::1), its own CA: pass it as --cacert.
func GeminiIPv6CertPath() string { return filepath.Join(StateDir(), "tls", "gemini6-cert.pem") }
