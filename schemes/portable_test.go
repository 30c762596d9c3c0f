package schemes

import "testing"

// A URL gofer prints must mean the same to an RFC 3986 parser (curl,
// wget): '?' would end its path, '#' start a fragment, ';' end an FTP
// segment (";type=") or start login options.
func TestFTPURLsEncodeOtherClientsDelimiters(t *testing.T) {
	for _, tc := range []struct {
		u    URL
		want string
	}{
		{URL{Scheme: "ftp", Host: "h", FTP: &FTP{Segments: []string{"names", "question?mark.txt"}}}, "ftp://h/names/question%3Fmark.txt"},
		{URL{Scheme: "ftp", Host: "h", FTP: &FTP{Segments: []string{"hash#frag", "semi;type=a"}}}, "ftp://h/hash%23frag/semi%3Btype=a"},
		{URL{Scheme: "ftp", Host: "h", FTP: &FTP{Segments: []string{"brackets[1] {x}", "100%"}}}, "ftp://h/brackets%5B1%5D%20%7Bx%7D/100%25"},
		{URL{Scheme: "ftp", Host: "h", User: "a;b?c", HasUser: true, FTP: &FTP{Segments: []string{"x"}}}, "ftp://a%3Bb%3Fc@h/x"},
	} {
		got := tc.u.String()
		if got != tc.want {
			t.Errorf("String() = %q, want %q", got, tc.want)
		}
		back, err := Parse(got)
		if err != nil || back.String() != got || back.User != tc.u.User || len(back.FTP.Segments) != len(tc.u.FTP.Segments) {
			t.Errorf("%q does not parse back to the same URL: %+v %v", got, back, err)
		}
	}
}
