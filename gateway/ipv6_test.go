package gateway

import (
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// TestPortNoteIPv6: the page's port warning writes an IPv6 host in
// brackets, as its URL does, so that its port cannot read as part of the
// address.
func TestPortNoteIPv6(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"gopher://[::1]:7070/1/", "[::1] names port 7070, not gopher's default 70: whatever answers there may not be a gopher server."},
		{"gopher://127.0.0.71:7070/1/", "127.0.0.71 names port 7070, not gopher's default 70: whatever answers there may not be a gopher server."},
		{"http://[2001:db8::1]/", ""},
	} {
		u, err := schemes.Parse(tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if got := portNote(u); got != tc.want {
			t.Errorf("portNote(%s) = %q, want %q", tc.url, got, tc.want)
		}
	}
}
