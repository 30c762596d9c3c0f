package integration_test

// FTPS against servers that require every TLS data connection to resume
// the control connection's TLS session: vsftpd's require_ssl_reuse=YES
// (integration/lib/ftp.sh runs three on 127.0.0.1) and ProFTPD's mod_tls
// by default (integration/lib/ftpmore.sh: two on 127.0.0.31).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// TestFTPSSessionReuse: every server requires each TLS data connection
// to resume the control connection's session, and each is resumed: TLS
// 1.3 from its pre-shared key, TLS 1.2 from a session ticket where the
// server gives one and by the session ID where it gives none (vsftpd and
// ProFTPD with OpenSSL's tickets off); a get and a mirror come byte-exact
// over PROT P. A data connection that did not resume is refused by these
// servers (vsftpd's 522, ProFTPD's 425), so a transfer that arrives is
// one that resumed; the servers' logs say so as well.
func TestFTPSSessionReuse(t *testing.T) {
	manifest := itest.Manifest(t)
	for _, srv := range []struct {
		name, addr, ca string
		tlsLog         string // ProFTPD's TLS log, which says when a session was resumed
	}{
		{"vsftpd-tls13", "127.0.0.1:2221", itest.CertPath(), ""},
		{"vsftpd-tls12-tickets", "127.0.0.1:2222", itest.CertPath(), ""},
		{"vsftpd-tls12-no-tickets", "127.0.0.1:2223", itest.CertPath(), ""},
		{"proftpd-tls13", itest.ProFTPDHost + ":2122", itest.FTPMoreCertPath(), "proftpd-reuse13-tls.log"},
		{"proftpd-tls12-no-tickets", itest.ProFTPDHost + ":2121", itest.FTPMoreCertPath(), "proftpd-reuse12-tls.log"},
	} {
		t.Run(srv.name, func(t *testing.T) {
			itest.Parallel(t)
			itest.Require(t, srv.addr)
			base := "ftp://" + srv.addr + "/archive"
			tls := []string{"--ftp-ssl", "--cacert", srv.ca}
			resumed := func() int {
				if srv.tlsLog == "" {
					return 0
				}
				b, _ := os.ReadFile(filepath.Join(itest.LogDir(), srv.tlsLog))
				return strings.Count(string(b), "client reused TLS session for data connection")
			}
			before := resumed()
			dir := t.TempDir()
			out := filepath.Join(dir, "random-1m.bin")
			get := itest.RunIn(t, dir, nil, nil, append(append([]string{"get"}, tls...), "-o", out, base+"/binary/random-1m.bin")...)
			mdir := filepath.Join(dir, "m")
			mirror := itest.RunIn(t, dir, nil, nil, append(append([]string{"mirror"}, tls...), "-j", "2", base+"/text/", mdir)...)
			if get.Code != 0 || mirror.Code != 0 {
				t.Fatalf("get: exit %d (%s); mirror: exit %d (%s)", get.Code, get.Reason(), mirror.Code, mirror.Reason())
			}
			if got := sha256File(t, out); got != manifest["binary/random-1m.bin"] {
				t.Errorf("get: sha256 %s", got)
			}
			if d := itest.DiffSubtree(t, mdir, "text/", ".gofer"); len(d) != 0 {
				t.Errorf("mirror differs from the archive: %q", d)
			}
			// A file, a listing and seven files: nine data connections at
			// least, each resumed.
			if n := resumed() - before; srv.tlsLog != "" && n < 9 {
				t.Errorf("%s says %d data connections resumed their session, want 9 or more", srv.tlsLog, n)
			}
		})
	}
}
