package integration_test

// FTPS against servers that require every TLS data connection to resume
// the control connection's TLS session (vsftpd's require_ssl_reuse=YES;
// integration/lib/ftp.sh runs three on 127.0.0.1).

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
// says so, exit 5, in get and in mirror alike, never a hang.
func TestFTPSSessionReuse(t *testing.T) {
	manifest := itest.Manifest(t)
	for _, srv := range []struct {
		name, port string
		resumes    bool
	}{
		{"tls13", "2221", true},
		{"tls12-tickets", "2222", true},
		{"tls12-no-tickets", "2223", false},
	} {
		t.Run(srv.name, func(t *testing.T) {
			itest.Parallel(t)
			itest.Require(t, "127.0.0.1:"+srv.port)
			base := "ftp://127.0.0.1:" + srv.port + "/archive"
			tls := []string{"--ftp-ssl", "--cacert", itest.CertPath()}
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
			for what, res := range map[string]itest.Result{"get": get, "mirror": mirror} {
				if res.Code != 5 || !strings.Contains(res.Reason(), "did not resume the control connection's TLS session (522 ") {
					t.Errorf("%s: exit %d, %q: want 5 and the reuse refusal said", what, res.Code, res.Reason())
				}
			}
		})
	}
}
