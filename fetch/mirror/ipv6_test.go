package mirror

import (
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestStateKeysIPv6: the state's per-server keys write an IPv6 address in
// brackets, as a URL does, so that "::1" on port 21 cannot read as some
// other address and port; IPv4 and name keys are as they always were.
func TestStateKeysIPv6(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"ftp://127.0.0.21/pub/", "connlimit:ftp://127.0.0.21:21"},
		{"ftp://[::1]/pub/", "connlimit:ftp://[::1]:21"},
		{"gopher://[2001:DB8::7]:7070/1/", "connlimit:gopher://[2001:db8::7]:7070"},
	} {
		u, err := schemes.Parse(tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if got := connLimitKey(u); got != tc.want {
			t.Errorf("connLimitKey(%s) = %q, want %q", tc.url, got, tc.want)
		}
	}
	for _, tc := range []struct {
		s    site
		want string
	}{
		{site{scheme: "ftp", host: "127.0.0.21", port: 21}, "zone:ftp://127.0.0.21:21"},
		{site{scheme: "ftp", host: "::1", port: 21}, "zone:ftp://[::1]:21"},
	} {
		e := &ftpWalker{engine: &engine{site: tc.s}}
		if got := e.zoneKey(); got != tc.want {
			t.Errorf("zoneKey of %s %s %d = %q, want %q", tc.s.scheme, tc.s.host, tc.s.port, got, tc.want)
		}
	}
}

func TestSameHost(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want bool
	}{
		{"Example.ORG", "example.org", true},
		{"::1", "::1", true},
		{"::1", "0:0:0:0:0:0:0:1", true},
		{"2001:DB8::7", "2001:db8:0::7", true},
		{"127.0.0.71", "127.0.0.71", true},
		{"::1", "::2", false},
		{"127.0.0.1", "::ffff:127.0.0.1", false},
		{"example.org", "example.com", false},
		{"::1", "localhost", false},
	} {
		if got := sameHost(tc.a, tc.b); got != tc.want {
			t.Errorf("sameHost(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}
