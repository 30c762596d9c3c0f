package dial

import "testing"

// TestProxyForNamesTheScheme: ProxyFor names the proxy with the scheme
// its URL gives (socks5h stays socks5h), its default port, and never a
// user or password; "" where NO_PROXY sends the connection direct.
func TestProxyForNamesTheScheme(t *testing.T) {
	for _, tc := range []struct{ proxy, noProxy, addr, want string }{
		{"socks5://127.0.0.110:1080", "", "127.0.0.21:21", "socks5://127.0.0.110:1080"},
		{"socks5h://127.0.0.110", "", "localhost:21", "socks5h://127.0.0.110:1080"},
		{"SOCKS5H://u:secret@[::1]:1081", "", "[::1]:21", "socks5h://[::1]:1081"},
		{"http://127.0.0.89:3128", "", "127.0.0.21:21", "http://127.0.0.89:3128"},
		{"127.0.0.89", "", "127.0.0.21:21", "http://127.0.0.89:8080"},
		{"socks5h://127.0.0.110:1080", "127.0.0.21", "127.0.0.21:21", ""},
	} {
		d := &Dialer{Proxy: tc.proxy, NoProxy: tc.noProxy}
		got, err := d.ProxyFor(tc.addr)
		if err != nil || got != tc.want {
			t.Errorf("ProxyFor(%s) under %s: %q, %v; want %q", tc.addr, tc.proxy, got, err, tc.want)
		}
	}
}
