package dial

import (
	"crypto/tls"
	"testing"
)

func TestTLSConfig(t *testing.T) {
	if c := TLSConfig(nil, "127.0.0.21"); c.ServerName != "127.0.0.21" || c.InsecureSkipVerify {
		t.Errorf("from nil: %+v", c)
	}
	base := &tls.Config{InsecureSkipVerify: true}
	c := TLSConfig(base, "127.0.0.119")
	if c == base || !c.InsecureSkipVerify || c.ServerName != "127.0.0.119" || base.ServerName != "" {
		t.Errorf("copy of base: %+v (base %+v)", c, base)
	}
	if c := TLSConfig(&tls.Config{ServerName: "news.example.org"}, "127.0.0.119"); c.ServerName != "news.example.org" {
		t.Errorf("a name base gives is kept: %q", c.ServerName)
	}
}
