package prospero

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/goferurl/gofer/schemes"
	"github.com/goferurl/gofer/security"
)

func TestResolve(t *testing.T) {
	_, addr := startServer(t)
	tests := []struct{ hsoname, want string }{
		{"/ftp/README.txt", "ftp://127.0.0.21/%2Farchive/README.txt;type=i"},
		{"/ftp/name%20with%20space.txt", "ftp://127.0.0.21/%2Farchive/names/with%20space.txt;type=i"},
		{"/gopher/plain.txt", "gopher://127.0.0.71/0/archive/text/plain.txt"},
		{"/gopher/random-64k.bin", "gopher://127.0.0.71/9/archive/binary/random-64k.bin"},
		{"/badport", "ftp://127.0.0.21:25/%2Farchive/README.txt;type=i"},
	}
	for _, tt := range tests {
		resp, tr, err := fetch(t, "prospero://"+addr+"/"+tt.hsoname, 5*time.Second)
		if err != nil {
			t.Errorf("%s: %v", tt.hsoname, err)
			continue
		}
		if resp.Kind != schemes.KindRedirect || resp.Location != tt.want {
			t.Errorf("%s: kind %v location %q, want %q", tt.hsoname, resp.Kind, resp.Location, tt.want)
		}
		if !strings.Contains(tr.String(), "resolved prospero://"+addr+"/"+tt.hsoname+" to "+tt.want) {
			t.Errorf("%s: transcript does not name the resolved URL:\n%s", tt.hsoname, tr)
		}
		resp.Close()
	}
}

// TestRequestLines: what the server received is the documented message.
func TestRequestLines(t *testing.T) {
	srv, addr := startServer(t)
	resp, _, err := fetch(t, "prospero://"+addr+"//ftp/name%20with%20space.txt;OBJECT-VERSION=3;ID=a%20b", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	want := "VERSION 5 gofer\nAUTHENTICATE '' UNAUTHENTICATED tester\n" +
		"GET-OBJECT-INFO #ALL ASCII '/ftp/name with space.txt' 3\n" +
		"SELECT OBJECT FIELD ID SEQUENCE 'a b'\n"
	if got := srv.Requests(); len(got) != 1 || got[0] != want {
		t.Errorf("server received %q, want %q", got, want)
	}
}

// TestTranscript: -v shows each packet's header in words and its lines.
func TestTranscript(t *testing.T) {
	_, addr := startServer(t)
	resp, tr, err := fetch(t, "prospero://"+addr+"//gopher/plain.txt", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	for _, want := range []string{
		"> [ARDP packet 1/1 cid ",
		"> GET-OBJECT-INFO #ALL ASCII /gopher/plain.txt 0\n",
		"ack-requested",
		"< ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE GOPHER INTERNET-D 127.0.0.71 ASCII /archive/text/plain.txt 0\n",
		"> [ARDP control cid ",
		"received-through 1]",
	} {
		if !strings.Contains(tr.String(), want) {
			t.Errorf("transcript lacks %q:\n%s", want, tr)
		}
	}
}

// TestMultiPacket: a reply of many packets, sent last first, is put back in
// order before it is read (the access method is in the last packet).
func TestMultiPacket(t *testing.T) {
	_, addr := startServer(t)
	resp, tr, err := fetch(t, "prospero://"+addr+"//multi", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	resp.Close()
	if resp.Location != "ftp://127.0.0.21/%2Farchive/binary/random-64k.bin;type=i" {
		t.Errorf("location %q", resp.Location)
	}
	n := strings.Count(tr.String(), "< [ARDP packet ")
	if n < 10 {
		t.Errorf("%d reply packets, want a reply of many:\n%s", n, tr)
	}
	first := strings.Index(tr.String(), "< [ARDP packet ")
	if !strings.HasPrefix(tr.String()[first:], "< [ARDP packet "+itoa(n)+"/"+itoa(n)) {
		t.Errorf("the first packet received is not the last one sent first:\n%s", tr.String()[first:first+80])
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestLostPacket: the reply's only packet is lost once; the client sends
// its request again and the server's second transmission completes it.
func TestLostPacket(t *testing.T) {
	srv, addr := startServer(t)
	start := time.Now()
	resp, tr, err := fetch(t, "prospero://"+addr+"//lossy", 3*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, tr)
	}
	resp.Close()
	if resp.Location != "ftp://127.0.0.21/%2Farchive/text/plain.txt;type=i" {
		t.Errorf("location %q", resp.Location)
	}
	if srv.Dropped() != 1 {
		t.Errorf("server dropped %d packets, want 1", srv.Dropped())
	}
	if !strings.Contains(tr.String(), "no answer, sending the request again (try 2 of 4") {
		t.Errorf("transcript shows no retransmission:\n%s", tr)
	}
	// The first wait of a 3 s idle timeout is 200 ms.
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("recovery took %s", d)
	}
}

func TestRefused(t *testing.T) {
	_, addr := startServer(t)
	tests := []struct{ hsoname, want string }{
		{"/malformed", "malformed reply: ARDP header claims 63 octets, packet has 3"},
		{"/garbage", "not a Prospero reply line"},
		{"/missing", "FAILURE NOT-FOUND /missing"},
		{"/nomethod", "no access method gofer can follow: access method LOCAL names no protocol gofer speaks; access method NFS names no protocol gofer speaks"},
	}
	for _, tt := range tests {
		_, _, err := fetch(t, "prospero://"+addr+"/"+tt.hsoname, 5*time.Second)
		if !errors.Is(err, schemes.ErrRefused) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want ErrRefused saying %q", tt.hsoname, err, tt.want)
		}
	}
}

// TestSilent: a server that never answers is ErrTimeout after the first
// try and three retries, within the idle timeout.
func TestSilent(t *testing.T) {
	srv, addr := startServer(t)
	start := time.Now()
	_, tr, err := fetch(t, "prospero://"+addr+"//silent", 750*time.Millisecond)
	d := time.Since(start)
	if !errors.Is(err, schemes.ErrTimeout) || !strings.Contains(err.Error(), "no answer after 4 tries") {
		t.Fatalf("%v, want ErrTimeout after 4 tries", err)
	}
	if d < 700*time.Millisecond || d > 1500*time.Millisecond {
		t.Errorf("gave up after %s, want about the idle timeout (750ms)", d)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Errorf("server received the request %d times, want 4", n)
	}
	if strings.Count(tr.String(), "sending the request again") != 3 {
		t.Errorf("transcript:\n%s", tr)
	}
}

// TestCut: a reply that stops after its first packet is acknowledged as far
// as it came, then ErrTimeout.
func TestCut(t *testing.T) {
	_, addr := startServer(t)
	_, tr, err := fetch(t, "prospero://"+addr+"//cut", 750*time.Millisecond)
	if !errors.Is(err, schemes.ErrTimeout) || !strings.Contains(err.Error(), "reply stopped after packet 1 of") {
		t.Fatalf("%v, want ErrTimeout naming the packet", err)
	}
	if !strings.Contains(tr.String(), "reply stalled after packet 1, acknowledging it") {
		t.Errorf("transcript:\n%s", tr)
	}
}

// TestNoServer: nothing listens on the port: ErrTimeout, bounded by the
// idle timeout, whatever the host reports.
func TestNoServer(t *testing.T) {
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := pc.LocalAddr().String()
	pc.Close()
	start := time.Now()
	_, _, err = fetch(t, "prospero://"+addr+"//x", 600*time.Millisecond)
	if !errors.Is(err, schemes.ErrTimeout) {
		t.Fatalf("%v, want ErrTimeout", err)
	}
	if d := time.Since(start); d > 1500*time.Millisecond {
		t.Errorf("gave up after %s", d)
	}
}

// TestCancel: cancelling the context ends a wait at once with
// ErrInterrupted.
func TestCancel(t *testing.T) {
	_, addr := startServer(t)
	req, _ := request(t, "prospero://"+addr+"//silent", time.Minute)
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() {
		_, err := New().Fetch(ctx, req)
		res <- err
	}()
	cancel()
	select {
	case err := <-res:
		if !errors.Is(err, schemes.ErrInterrupted) {
			t.Errorf("%v, want ErrInterrupted", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the fetch did not end on cancel")
	}
}

// TestInjection: a line break in any part is refused before anything is
// sent.
func TestInjection(t *testing.T) {
	srv, addr := startServer(t)
	for _, raw := range []string{
		"prospero://" + addr + "//ftp/README.txt%0AGET-OBJECT-INFO",
		"prospero://" + addr + "//ftp/README.txt;ID=x%0Dy",
		"prospero://" + addr + "//ftp/README.txt%003%0A",
	} {
		_, _, err := fetch(t, raw, time.Second)
		if !errors.Is(err, security.ErrInjection) {
			t.Errorf("%s: %v, want ErrInjection", raw, err)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server received %d requests", n)
	}
}

func TestDirectory(t *testing.T) {
	srv, addr := startServer(t)
	resp, _, err := fetch(t, "prospero://"+addr+"//dir", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Close()
	if resp.Kind != schemes.KindListing {
		t.Fatalf("kind %v, want a listing", resp.Kind)
	}
	var got []string
	for {
		e, err := resp.Listing.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Name+" "+e.Type+" "+e.URL)
	}
	want := []string{
		"README.txt file prospero://" + addr + "//ftp/README.txt",
		"all-bytes.bin file prospero://" + addr + "//ftp/all-bytes.bin",
		"plain.txt file prospero://" + addr + "//gopher/plain.txt",
		"sub dir prospero://" + addr + "//dir/sub",
		"nginx link http://127.0.0.80/archive/README.txt",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.HasSuffix(reqs[1], "DIRECTORY ASCII /dir\nLIST ATTRIBUTES COMPONENTS\n") {
		t.Errorf("requests %q", reqs)
	}
}

func TestPlan(t *testing.T) {
	u, err := schemes.Parse("prospero://127.0.0.15//pros/a%20name%003;DESCRIPTION=it's")
	if err != nil {
		t.Fatal(err)
	}
	p, err := (&Fetcher{User: "someone"}).Plan(&schemes.Request{URL: u, Settings: &schemes.Settings{}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"VERSION 5 gofer",
		"AUTHENTICATE '' UNAUTHENTICATED someone",
		"GET-OBJECT-INFO #ALL ASCII '/pros/a name' 3",
		"SELECT OBJECT FIELD DESCRIPTION SEQUENCE 'it''s'",
	}
	if strings.Join(p.Requests, "\n") != strings.Join(want, "\n") {
		t.Errorf("plan:\n%s\nwant:\n%s", strings.Join(p.Requests, "\n"), strings.Join(want, "\n"))
	}
	if !strings.Contains(p.Notes["transport"], "UDP to 127.0.0.15:1525") {
		t.Errorf("notes %v", p.Notes)
	}
}

// TestServerWait: a server that says it needs a second is given that
// second before the request goes again, instead of the 200 ms first wait.
func TestServerWait(t *testing.T) {
	srv, addr := startServer(t)
	start := time.Now()
	resp, tr, err := fetch(t, "prospero://"+addr+"//busy", 3*time.Second)
	if err != nil {
		t.Fatalf("%v\n%s", err, tr)
	}
	resp.Close()
	if d := time.Since(start); d < 900*time.Millisecond {
		t.Errorf("the request went again after %s, before the server's 1 s", d)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server received the request %d times, want 2", n)
	}
	if !strings.Contains(tr.String(), "< [ARDP control cid ") || !strings.Contains(tr.String(), "wait 1s]") {
		t.Errorf("transcript:\n%s", tr)
	}
}
