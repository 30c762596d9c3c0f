package integration_test

// FTPS against servers that require every TLS data connection to resume
// the control connection's TLS session: vsftpd's require_ssl_reuse=YES
// (integration/lib/ftp.sh runs three on 127.0.0.1) and ProFTPD's mod_tls
// by default (integration/lib/ftpmore.sh: two on 127.0.0.31).

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/goferurl/gofer/integration/itest"
)

// TestFTPSSessionReuse: where the session can be resumed (TLS 1.3, and
// TLS 1.2 with session tickets) a get and a mirror come byte-exact over
// PROT P; where it cannot (TLS 1.2 without tickets: crypto/tls resumes a
// TLS 1.2 session from a ticket only) the server's 522 is an error that
// says so, exit 5, in get and in mirror alike, never a hang (ProFTPD's
// refusal of a listing is its own 425, exit 8).
func TestFTPSSessionReuse(t *testing.T) {
	manifest := itest.Manifest(t)
	for _, srv := range []struct {
		name, addr, ca string
		resumes        bool
	}{
		{"vsftpd-tls13", "127.0.0.1:2221", itest.CertPath(), true},
		{"vsftpd-tls12-tickets", "127.0.0.1:2222", itest.CertPath(), true},
		{"vsftpd-tls12-no-tickets", "127.0.0.1:2223", itest.CertPath(), false},
		{"proftpd-tls13", itest.ProFTPDHost + ":2122", itest.FTPMoreCertPath(), true},
		{"proftpd-tls12-no-tickets", itest.ProFTPDHost + ":2121", itest.FTPMoreCertPath(), false},
	} {
		t.Run(srv.name, func(t *testing.T) {
			itest.Parallel(t)
			itest.Require(t, srv.addr)
			base := "ftp://" + srv.addr + "/archive"
			tls := []string{"--ftp-ssl", "--cacert", srv.ca}
			dir := t.TempDir()
			out := filepath.Join(dir, "random-1m.bin")
			get := itest.RunIn(t, dir, nil, nil, append(append([]string{"get"}, tls...), "-o", out, base+"/binary/random-1m.bin")...)
			mdir := filepath.Join(dir, "m")
			mirror := itest.RunIn(t, dir, nil, nil, append(append([]string{"mirror"}, tls...), "-j", "2", base+"/text/", mdir)...)
			if srv.resumes {
				if get.Code != 0 || mirror.Code != 0 {
					t.Fatalf("get: exit %d (%s); mirror: exit %d (%s)", get.Code, get.Reason(), mirror.Code, mirror.Reason())
				}
				if got := sha256File(t, out); got != manifest["binary/random-1m.bin"] {
					t.Errorf("get: sha256 %s", got)
				}
				if d := itest.DiffSubtree(t, mdir, "text/", ".gofer"); len(d) != 0 {
					t.Errorf("mirror differs from the archive: %q", d)
				}
				return
			}
			if get.Code != 5 || !strings.Contains(get.Reason(), "did not resume the control connection's TLS session (") {
				t.Errorf("get: exit %d, %q: want 5 and the reuse refusal said", get.Code, get.Reason())
			}
			if strings.HasPrefix(srv.name, "proftpd") {
				// The mirror's first step is a listing, whose end ProFTPD
				// refuses with its 425 as it is.
				if mirror.Code != 8 || !strings.Contains(mirror.Reason(), "425 Unable to build data connection") {
					t.Errorf("mirror: exit %d, %q: want 8 and ProFTPD's 425", mirror.Code, mirror.Reason())
				}
				return
			}
			if mirror.Code != 5 || !strings.Contains(mirror.Reason(), "did not resume the control connection's TLS session (522 ") {
				t.Errorf("mirror: exit %d, %q: want 5 and the reuse refusal said", mirror.Code, mirror.Reason())
			}
		})
	}
}
