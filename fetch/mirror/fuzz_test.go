package mirror

import (
	"net/url"
	"strings"
	"testing"
	"testing/iotest"
)

// FuzzParseLinks: HTML link extraction never panics, yields only absolute
// URLs (everything is resolved against the page), and gives the same links
// whether the page arrives whole or a byte at a time (it streams).
func FuzzParseLinks(f *testing.F) {
	for _, s := range []string{
		`<a href="a.txt">a</a><img src="i.png"><base href="http://127.0.0.1/other/"><a href="b">`,
		`<a href="%2e%2e/x">`, `<a href="javascript:alert(1)">`, `<a href=//127.0.0.9/x>`,
		`<area href="../../../etc/passwd"><link href="?q=1#f"><iframe src=""></iframe>`,
		`<a href="http://[::1]:80/">`, `<a hr`, `<base href="%zz"><a href="y">`,
		sampleHTTP().pages["/archive/"],
	} {
		f.Add(s)
	}
	base, err := url.Parse("http://127.0.0.1/archive/")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, page string) {
		var whole, bytewise []string
		parseLinks(strings.NewReader(page), base, func(u *url.URL) {
			if !u.IsAbs() {
				t.Errorf("relative link %q from %q", u, page)
			}
			whole = append(whole, u.String())
		})
		parseLinks(iotest.OneByteReader(strings.NewReader(page)), base, func(u *url.URL) {
			bytewise = append(bytewise, u.String())
		})
		if strings.Join(whole, "\n") != strings.Join(bytewise, "\n") {
			t.Errorf("streamed links differ:\n%q\n%q", whole, bytewise)
		}
	})
}
