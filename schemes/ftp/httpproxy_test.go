package ftp

import (
	"context"
	"io"
	nethttp "net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/goferurl/gofer/dial"
	"github.com/goferurl/gofer/schemes"
)

// squidListing is the shape of squid 5's page for an FTP directory
// (written for this test after the page squid 5.7 serves): a table whose
// rows of class "entry" each link one name.
const squidListing = `<html><body id=ERR_DIR_LISTING><table id="dirlisting">
<tr><th><a href="../">Parent Directory</a> (<a href="/">Root Directory</a>)</th></tr>
<tr class="entry"><td class="icon"><a href="a%20b.txt"><img src="x.png" alt="[FILE]"></a></td><td class="filename"><a href="a%20b.txt">a b.txt</a></td><td class="date">Dec 20  1994</td><td class="size">      1k</td><td class="actions"><a href="a%20b.txt;type=i">get</a></td></tr>
<tr class="entry"><td class="icon"><a href="sub/"><img src="d.png" alt="[DIR]"></a></td><td class="filename"><a href="sub/">sub/</a></td><td class="date">Jan  2  2001</td><td class="size"></td></tr>
<tr class="entry"><td class="icon"><a href="cur"><img src="l.png" alt="[LINK]"></a></td><td class="filename"><a href="cur">cur</a> -&gt; <a href="2.3">2.3</a></td><td class="date">Dec 20  1994</td></tr>
<tr class="entry"><td class="filename"><a href="../evil">up</a></td></tr>
</table></body></html>`

func TestProxyListing(t *testing.T) {
	base, err := schemes.Parse("ftp://127.0.0.21/pub/")
	if err != nil {
		t.Fatal(err)
	}
	l, err := readProxyListing(strings.NewReader(squidListing), base, []string{"pub"}, 100)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range l.entries {
		got = append(got, e.Name+"|"+e.Type+"|"+e.URL+"|"+e.Modified.Format("2006-01-02"))
	}
	want := []string{
		"a b.txt|file|ftp://127.0.0.21/pub/a%20b.txt|1994-12-20",
		"sub|dir|ftp://127.0.0.21/pub/sub/|2001-01-02",
		"cur|link|ftp://127.0.0.21/pub/cur|1994-12-20",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := readProxyListing(strings.NewReader(squidListing), base, []string{"pub"}, 2); err == nil {
		t.Errorf("three entries under a limit of two: no error")
	}
}

// TestProxyLeavesSettingsAlone: a fetch through an HTTP proxy dials the
// proxy directly under a copy of the request's settings; the settings
// themselves, which every request of a client shares, still name the
// proxy, so that the next fetch goes through it too.
func TestProxyLeavesSettingsAlone(t *testing.T) {
	var asked atomic.Int32
	proxy := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		asked.Add(1)
		io.WriteString(w, "through the proxy\n")
	}))
	defer proxy.Close()
	d := &dial.Dialer{Proxy: proxy.URL}
	st := &schemes.Settings{Dialer: d}
	f := New()
	for i := range 2 {
		u, err := schemes.Parse("ftp://127.0.0.21/pub/file.txt")
		if err != nil {
			t.Fatal(err)
		}
		resp, err := f.Fetch(context.Background(), &schemes.Request{URL: u, Settings: st})
		if err != nil {
			t.Fatalf("fetch %d: %v", i+1, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "through the proxy\n" {
			t.Errorf("fetch %d: %q", i+1, b)
		}
		if st.Dialer != d {
			t.Fatalf("fetch %d changed the shared settings' dialer to %#v", i+1, st.Dialer)
		}
	}
	if asked.Load() != 2 {
		t.Errorf("the proxy was asked %d times, want 2", asked.Load())
	}
}
