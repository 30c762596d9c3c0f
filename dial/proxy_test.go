package dial

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// listen opens a loopback listener closed at the end of the test.
func listen(t *testing.T) net.Listener {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// serve runs handle for every connection accepted on l.
func serve(l net.Listener, handle func(net.Conn)) {
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				handle(c)
			}()
		}
	}()
}

// greetingServer sends a greeting line, then echoes.
func greetingServer(t *testing.T) string {
	l := listen(t)
	serve(l, func(c net.Conn) {
		io.WriteString(c, "220 hello\r\n")
		io.Copy(c, c)
	})
	return l.Addr().String()
}

// pipe copies both ways until either side ends.
func pipe(a, b net.Conn) {
	done := make(chan struct{}, 2)
	go func() { io.Copy(a, b); done <- struct{}{} }()
	go func() { io.Copy(b, a); done <- struct{}{} }()
	<-done
}

// targets records the addresses proxies were asked for.
type targets struct {
	mu   sync.Mutex
	list []string
}

func (r *targets) add(s string) { r.mu.Lock(); r.list = append(r.list, s); r.mu.Unlock() }

func (r *targets) get() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.list...)
}

// socksServer is a tiny SOCKS5 proxy (RFC 1928, RFC 1929) that connects
// every request to backend, whatever it names, and records the name.
func socksServer(t *testing.T, backend, user, pass string) (string, *targets) {
	l := listen(t)
	rec := &targets{}
	serve(l, func(c net.Conn) {
		r := bufio.NewReader(c)
		hdr := make([]byte, 2)
		if _, err := io.ReadFull(r, hdr); err != nil || hdr[0] != 5 {
			return
		}
		methods := make([]byte, hdr[1])
		io.ReadFull(r, methods)
		if user == "" {
			c.Write([]byte{5, 0})
		} else {
			if !strings.ContainsRune(string(methods), 2) {
				c.Write([]byte{5, 0xFF})
				return
			}
			c.Write([]byte{5, 2})
			ver, _ := r.ReadByte()
			ul, _ := r.ReadByte()
			u := make([]byte, ul)
			io.ReadFull(r, u)
			pl, _ := r.ReadByte()
			p := make([]byte, pl)
			io.ReadFull(r, p)
			if ver != 1 || string(u) != user || string(p) != pass {
				c.Write([]byte{1, 1})
				return
			}
			c.Write([]byte{1, 0})
		}
		req := make([]byte, 4)
		if _, err := io.ReadFull(r, req); err != nil || req[1] != 1 {
			return
		}
		var host string
		switch req[3] {
		case 1:
			ip := make([]byte, 4)
			io.ReadFull(r, ip)
			host = net.IP(ip).String()
		case 3:
			n, _ := r.ReadByte()
			name := make([]byte, n)
			io.ReadFull(r, name)
			host = string(name)
		case 4:
			ip := make([]byte, 16)
			io.ReadFull(r, ip)
			host = net.IP(ip).String()
		}
		pb := make([]byte, 2)
		io.ReadFull(r, pb)
		rec.add(net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(pb)))))
		b, err := net.Dial("tcp", backend)
		if err != nil {
			c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
			return
		}
		defer b.Close()
		c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0})
		pipe(c, b)
	})
	return l.Addr().String(), rec
}

// connectServer is a tiny HTTP CONNECT proxy connecting every tunnel to
// backend. It sends the backend's greeting in the same write as its own
// reply, as a fast proxy may. status, when not 200, is all it answers.
func connectServer(t *testing.T, backend, auth string, status int) (string, *targets) {
	l := listen(t)
	rec := &targets{}
	serve(l, func(c net.Conn) {
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil || req.Method != http.MethodConnect {
			return
		}
		rec.add(req.RequestURI)
		if auth != "" && req.Header.Get("Proxy-Authorization") != auth {
			io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\n\r\n")
			return
		}
		if status != 200 {
			io.WriteString(c, "HTTP/1.1 "+strconv.Itoa(status)+" "+http.StatusText(status)+"\r\n\r\n")
			return
		}
		b, err := net.Dial("tcp", backend)
		if err != nil {
			return
		}
		defer b.Close()
		greeting, _ := bufio.NewReader(b).ReadString('\n')
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n"+greeting)
		pipe(c, b)
	})
	return l.Addr().String(), rec
}

// talk reads the greeting and checks an echo through conn.
func talk(t *testing.T, conn net.Conn) {
	t.Helper()
	defer conn.Close()
	r := bufio.NewReader(conn)
	line, err := r.ReadString('\n')
	if err != nil || line != "220 hello\r\n" {
		t.Fatalf("greeting %q, %v", line, err)
	}
	io.WriteString(conn, "ping\n")
	line, err = r.ReadString('\n')
	if err != nil || line != "ping\n" {
		t.Fatalf("echo %q, %v", line, err)
	}
}

func TestSOCKS5(t *testing.T) {
	backend := greetingServer(t)
	proxyAddr, rec := socksServer(t, backend, "", "")
	d := &Dialer{Proxy: "socks5://" + proxyAddr}
	// The target name is handed to the proxy unresolved: no DNS query
	// leaves this machine for it.
	conn, err := d.DialContext(context.Background(), "tcp", "gofer.invalid:70")
	if err != nil {
		t.Fatal(err)
	}
	talk(t, conn)
	if got := rec.get(); len(got) != 1 || got[0] != "gofer.invalid:70" {
		t.Errorf("proxy was asked for %q, want gofer.invalid:70", got)
	}
}

func TestSOCKS5Auth(t *testing.T) {
	backend := greetingServer(t)
	proxyAddr, rec := socksServer(t, backend, "alice", "s3cret")
	d := &Dialer{Proxy: "socks5h://alice:s3cret@" + proxyAddr}
	conn, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:21")
	if err != nil {
		t.Fatal(err)
	}
	talk(t, conn)
	if got := rec.get(); len(got) != 1 || got[0] != "127.0.0.1:21" {
		t.Errorf("proxy was asked for %q", got)
	}

	d = &Dialer{Proxy: "socks5://alice:wrong@" + proxyAddr}
	_, err = d.DialContext(context.Background(), "tcp", "127.0.0.1:21")
	if !errors.Is(err, schemes.ErrAuth) {
		t.Errorf("wrong password: %v, want ErrAuth", err)
	}
	d = &Dialer{Proxy: "socks5://" + proxyAddr}
	if _, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:21"); !errors.Is(err, schemes.ErrAuth) {
		t.Errorf("no credentials for a proxy that needs them: %v, want ErrAuth", err)
	}
}

func TestHTTPConnect(t *testing.T) {
	backend := greetingServer(t)
	// "alice:s3cret" in Basic form.
	proxyAddr, rec := connectServer(t, backend, "Basic YWxpY2U6czNjcmV0", 200)
	d := &Dialer{Proxy: "http://alice:s3cret@" + proxyAddr}
	conn, err := d.DialContext(context.Background(), "tcp", "127.0.0.119:119")
	if err != nil {
		t.Fatal(err)
	}
	talk(t, conn) // the greeting came in the proxy's reply and was kept
	if got := rec.get(); len(got) != 1 || got[0] != "127.0.0.119:119" {
		t.Errorf("proxy was asked for %q", got)
	}

	d = &Dialer{Proxy: "http://alice:wrong@" + proxyAddr}
	_, err = d.DialContext(context.Background(), "tcp", "127.0.0.119:119")
	if !errors.Is(err, schemes.ErrAuth) || strings.Contains(err.Error(), "wrong") {
		t.Errorf("wrong password: %v, want ErrAuth without the password", err)
	}

	unauthorized, _ := connectServer(t, backend, "", 401) // tinyproxy's answer to a bad login
	d = &Dialer{Proxy: "http://alice:wrong@" + unauthorized}
	if _, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:70"); !errors.Is(err, schemes.ErrAuth) {
		t.Errorf("401 from the proxy: %v, want ErrAuth", err)
	}

	forbidden, _ := connectServer(t, backend, "", 403)
	d = &Dialer{Proxy: forbidden} // a bare host:port is an http proxy
	if _, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:70"); !errors.Is(err, schemes.ErrConnect) || !strings.Contains(err.Error(), "403") {
		t.Errorf("403 from the proxy: %v, want ErrConnect naming it", err)
	}
}

func TestProxyRefusesUnknownScheme(t *testing.T) {
	d := &Dialer{Proxy: "ftp://me:s3cret@127.0.0.1:21"}
	_, err := d.DialContext(context.Background(), "tcp", "127.0.0.1:70")
	if !errors.Is(err, schemes.ErrUsage) || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("ftp proxy: %v, want ErrUsage with the password masked", err)
	}
}

// TestEnvironment: <scheme>_proxy before ALL_PROXY, NO_PROXY for direct.
func TestEnvironment(t *testing.T) {
	backend := greetingServer(t)
	socksAddr, socksRec := socksServer(t, backend, "", "")
	httpAddr, httpRec := connectServer(t, backend, "", 200)
	env := map[string]string{
		"gopher_proxy": "socks5://" + socksAddr,
		"ALL_PROXY":    "http://" + httpAddr,
		"NO_PROXY":     "127.0.0.9, .direct.invalid",
	}
	base := &Dialer{Environment: true, Getenv: func(k string) string { return env[k] }}

	conn, err := base.For("gopher").DialContext(context.Background(), "tcp", "127.0.0.70:70")
	if err != nil {
		t.Fatal(err)
	}
	talk(t, conn)
	conn, err = base.For("ftp").DialContext(context.Background(), "tcp", "127.0.0.21:21")
	if err != nil {
		t.Fatal(err)
	}
	talk(t, conn)
	if s, h := socksRec.get(), httpRec.get(); len(s) != 1 || s[0] != "127.0.0.70:70" || len(h) != 1 || h[0] != "127.0.0.21:21" {
		t.Errorf("socks saw %q, http saw %q; want gopher through socks, ftp through ALL_PROXY", s, h)
	}

	// NO_PROXY: direct, so the backend is dialed itself.
	_, port, _ := net.SplitHostPort(backend)
	conn, err = base.For("gopher").DialContext(context.Background(), "tcp", "127.0.0.9:"+port)
	if err == nil {
		talk(t, conn)
	}
	if len(socksRec.get()) != 1 {
		t.Errorf("a NO_PROXY host went through the proxy")
	}

	// Without Environment the variables are ignored.
	plain := &Dialer{Getenv: base.Getenv}
	conn, err = plain.DialContext(context.Background(), "tcp", backend)
	if err != nil {
		t.Fatal(err)
	}
	talk(t, conn)
	if len(socksRec.get())+len(httpRec.get()) != 2 {
		t.Errorf("the environment was used without Environment")
	}
}

func TestBypass(t *testing.T) {
	tests := []struct {
		noProxy, addr string
		want          bool
	}{
		{"", "127.0.0.1:70", false},
		{"*", "127.0.0.1:70", true},
		{"127.0.0.1", "127.0.0.1:70", true},
		{"127.0.0.0/8", "127.0.0.70:70", true},
		{"10.0.0.0/8", "127.0.0.70:70", false},
		{"example.invalid", "ftp.example.invalid:21", true},
		{".example.invalid", "example.invalid:21", true},
		{"example.invalid", "badexample.invalid:21", false},
		{"a.invalid,b.invalid", "B.INVALID:21", true},
		{"b.invalid:21", "b.invalid:21", true},
		{"b.invalid:21", "b.invalid:70", false},
		{"::1", "[::1]:70", true},
	}
	for _, tt := range tests {
		if got := bypass(tt.noProxy, tt.addr); got != tt.want {
			t.Errorf("bypass(%q, %q) = %v, want %v", tt.noProxy, tt.addr, got, tt.want)
		}
	}
}

func TestCounter(t *testing.T) {
	backend := greetingServer(t)
	var c Counter
	d := &Dialer{Counter: &c}
	conn, err := d.DialContext(context.Background(), "tcp", backend)
	if err != nil {
		t.Fatal(err)
	}
	talk(t, conn)
	if c.Read() != int64(len("220 hello\r\nping\n")) || c.Written() != int64(len("ping\n")) {
		t.Errorf("counted %d read, %d written", c.Read(), c.Written())
	}
}

// TestProxiedRemoteAddr: a tunnelled connection names the target as its
// peer, so that FTP's passive address check compares with the server, not
// the proxy.
func TestProxiedRemoteAddr(t *testing.T) {
	backend := greetingServer(t)
	socksAddr, _ := socksServer(t, backend, "", "")
	httpAddr, _ := connectServer(t, backend, "", 200)
	for _, p := range []string{"socks5://" + socksAddr, "http://" + httpAddr} {
		d := &Dialer{Proxy: p}
		conn, err := d.DialContext(context.Background(), "tcp", "127.0.0.21:21")
		if err != nil {
			t.Fatal(err)
		}
		ta, ok := conn.RemoteAddr().(*net.TCPAddr)
		if !ok || ta.String() != "127.0.0.21:21" {
			t.Errorf("%s: RemoteAddr %v, want the target 127.0.0.21:21", p, conn.RemoteAddr())
		}
		talk(t, conn)
		conn, err = d.DialContext(context.Background(), "tcp", "ftp.invalid:21")
		if err != nil {
			t.Fatal(err)
		}
		if got := conn.RemoteAddr().String(); got != "ftp.invalid:21" {
			t.Errorf("%s: RemoteAddr %q, want ftp.invalid:21", p, got)
		}
		talk(t, conn)
	}
}
