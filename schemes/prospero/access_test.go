package prospero

import (
	"strings"
	"testing"
)

func TestAccessMethodURL(t *testing.T) {
	tests := []struct {
		values []string
		want   string
	}{
		{[]string{"AFTP", "INTERNET-D", "ftp.example", "ASCII", "/pub/a.txt", "TEXT"}, "ftp://ftp.example/%2Fpub/a.txt;type=a"},
		{[]string{"FTP", "INTERNET-D", "10.0.0.1(2121)", "ASCII", "pub/b.bin", "BINARY"}, "ftp://10.0.0.1:2121/pub/b.bin;type=i"},
		{[]string{"AFTP", "", "", "", "", "BINARY"}, "ftp://server.example/%2Fobj;type=i"},
		{[]string{"AFTP", "INTERNET-D", "h(21)", "ASCII", "/x", "BINARY"}, "ftp://h/%2Fx;type=i"},
		{[]string{"GOPHER", "INTERNET-D", "g:7070", "ASCII", "/sel tab", "1"}, "gopher://g:7070/1/sel%20tab"},
		{[]string{"GOPHER", "INTERNET-D", "g", "ASCII", "0/about"}, "gopher://g/00/about"},
		{[]string{"WAIS", "INTERNET-D", "w", "ASCII", "db"}, "wais://w/db"},
		{[]string{"WAIS", "INTERNET-D", "w", "ASCII", "db", "TEXT", "1=x;"}, "wais://w/db/TEXT/1=x;"},
		{[]string{"HTTP", "INTERNET-D", "www(8080)", "ASCII", "/a b/c"}, "http://www:8080/a%20b/c"},
		{[]string{"NNTP", "INTERNET-D", "news", "ASCII", "comp.misc/12"}, "nntp://news/comp.misc/12"},
		{[]string{"NNTP", "INTERNET-D", "news", "ASCII", "<id@host>"}, "news:id@host"},
	}
	for _, tt := range tests {
		m, err := accessMethod(Attribute{Name: "ACCESS-METHOD", Values: tt.values})
		if err != nil {
			t.Fatal(err)
		}
		got, err := m.URL("server.example", "/obj")
		if err != nil || got != tt.want {
			t.Errorf("%q: %q, %v; want %q", tt.values, got, err, tt.want)
		}
	}
}

func TestAccessMethodUnusable(t *testing.T) {
	tests := []struct {
		values []string
		want   string
	}{
		{[]string{"LOCAL", "", "", "", ""}, "names no protocol"},
		{[]string{"AFS", "", "", "", ""}, "names no protocol"},
		{[]string{"AFTP", "DECNET", "h", "ASCII", "/x"}, "host of type DECNET"},
		{[]string{"AFTP", "INTERNET-D", "h(99999)", "ASCII", "/x"}, "not a port number"},
		{[]string{"AFTP", "INTERNET-D", "h(1", "ASCII", "/x"}, "not a host name"},
		{[]string{"GOPHER", "INTERNET-D", "g", "ASCII", "/x", "ab"}, "item type"},
		{[]string{"NNTP", "INTERNET-D", "n", "ASCII", "g/x"}, "article"},
	}
	for _, tt := range tests {
		m, err := accessMethod(Attribute{Values: tt.values})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := m.URL("s", "/o"); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want an error saying %q", tt.values, err, tt.want)
		}
	}
	if _, err := accessMethod(Attribute{Values: []string{"AFTP", "", ""}}); err == nil {
		t.Error("a three-element access method is accepted")
	}
}
