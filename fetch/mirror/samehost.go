package mirror

import (
	"net/netip"
	"strings"
)

// sameHost reports whether two hosts name the same server: the same name
// in any case, or the same IP address however it is written (an IPv6
// address compressed or not, in either case: "::1", "0:0:0:0:0:0:0:1").
// A menu line or a link names an IPv6 server the way its server writes
// it, which need not be the way the starting URL did.
func sameHost(a, b string) bool {
	if strings.EqualFold(a, b) {
		return true
	}
	pa, err := netip.ParseAddr(a)
	if err != nil {
		return false
	}
	pb, err := netip.ParseAddr(b)
	return err == nil && pa == pb
}
