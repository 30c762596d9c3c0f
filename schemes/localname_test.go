package schemes

import "testing"

func TestLocalName(t *testing.T) {
	for _, tc := range []struct{ url, want string }{
		{"ftp://h/pub/a%2Fb.txt;type=i", "a/b.txt"}, // decoded: the safe-name rule refuses it later
		{"ftp://h/pub/file.tar.gz", "file.tar.gz"},
		{"ftp://h/pub/", ""},
		{"ftp://h", ""},
		{"http://h/docs/a%20b.html?x=1", "a b.html"},
		{"http://h/", ""},
		{"http://h", ""},
		{"gopher://h/0/docs/readme.txt", "readme.txt"},
		{"gopher://h/9plain", "plain"},
		{"gopher://h/", ""},
		{"file:///etc/motd", "motd"},
		{"file:///etc/", ""},
		{"news:1234@example.org", "1234@example.org"},
		{"news:comp.lang.go", ""},
		{"nntp://h/comp.lang.go/42", "42"},
		{"nntp://h/comp.lang.go", ""},
		{"telnet://h/", ""},
		{"x-greet:world", ""},
	} {
		u, err := Parse(tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.url, err)
		}
		if got := u.LocalName(); got != tc.want {
			t.Errorf("%s: LocalName() = %q, want %q", tc.url, got, tc.want)
		}
	}
}
