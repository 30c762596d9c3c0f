package integration_test

// The mirror's choice of connections per server (mirror.HostStreams in the
// --json summary): without -j it starts at 4 and measures, against a
// server that caps connections per client it drops to the server's limit,
// and with -j it keeps to the count given.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/integration/itest"
)

// mirrorStreams mirrors u with args and returns the summary's one streams entry.
func mirrorStreams(t *testing.T, u string, args ...string) (mirror.Summary, mirror.HostStreams) {
	t.Helper()
	dir := t.TempDir()
	r := itest.Run(t, nil, nil, append(append([]string{"mirror", "-q", "--json"}, args...), u, dir)...)
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	var sum mirror.Summary
	if err := json.Unmarshal([]byte(r.Stdout), &sum); err != nil {
		t.Fatalf("summary: %v\n%s", err, r.Stdout)
	}
	if len(sum.Streams) != 1 {
		t.Fatalf("summary streams %+v, want one server", sum.Streams)
	}
	if diff := itest.DiffSubtree(t, dir, "tree/d01/", ".gofer"); len(diff) > 0 {
		t.Errorf("mirrored tree differs from the manifest: %v", diff[:min(len(diff), 5)])
	}
	return sum, sum.Streams[0]
}

func TestMirrorStreamsAdaptiveVsftpd(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	_, h := mirrorStreams(t, "ftp://"+itest.FTPHost+"/archive/tree/d01/")
	if h.Host != itest.FTPHost+":21" || !h.Adaptive || h.Start != mirror.DefaultJobs || h.Ceiling != mirror.DefaultMaxPerHost {
		t.Errorf("streams %+v, want adaptive from %d up to %d for %s:21", h, mirror.DefaultJobs, mirror.DefaultMaxPerHost, itest.FTPHost)
	}
	if h.Used < 1 || h.Used > h.Ceiling || h.Peak > h.Ceiling || h.ServerLimit != 0 || h.Reason == "" || h.FirstReplyMS <= 0 || h.ItemsPerSecond <= 0 {
		t.Errorf("streams %+v: a count outside 1..ceiling, a limit vsftpd does not have, or no measurement", h)
	}
	t.Logf("vsftpd: %d streams (peak %d): %s; steps %q", h.Used, h.Peak, h.Reason, h.Steps)
}

func TestMirrorStreamsServerLimit(t *testing.T) {
	itest.Parallel(t, itest.ProFTPDLimitedHost)
	itest.Require(t, itest.ProFTPDLimitedHost+":21")
	sum, h := mirrorStreams(t, "ftp://"+itest.ProFTPDLimitedHost+"/archive/tree/d01/")
	limit := itest.FTPMoreLimitPerHost
	if h.ServerLimit != limit || h.Used != limit || sum.HostConnections != limit || !strings.Contains(h.Reason, "allows") {
		t.Errorf("streams %+v (host_connections %d), want the server's limit of %d used, and said why", h, sum.HostConnections, limit)
	}
	t.Logf("ProFTPD with MaxClientsPerHost %d: %d streams: %s", limit, h.Used, h.Reason)
}

func TestMirrorStreamsFixedJobs(t *testing.T) {
	itest.Parallel(t)
	itest.Require(t, ftpServer)
	_, h := mirrorStreams(t, "ftp://"+itest.FTPHost+"/archive/tree/d01/", "-j", "3")
	if h.Adaptive || h.Start != 3 || h.Used != 3 || h.Peak > 3 || len(h.Steps) != 0 {
		t.Errorf("streams %+v, want 3 fixed", h)
	}
}
