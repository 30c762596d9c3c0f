package schemes

import (
	"encoding/json"
	"os"
	"testing"
)

// TestResolve runs testdata/resolve.json: RFC 1630's magic://a/b/c//d/e/f
// table and the same rules on real schemes.
func TestResolve(t *testing.T) {
	b, err := os.ReadFile("../testdata/urls/resolve.json")
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Cases []struct{ Base, Ref, Resolved, Source string }
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) < 10 {
		t.Fatalf("only %d cases", len(f.Cases))
	}
	for _, c := range f.Cases {
		base := mustParse(t, c.Base)
		got, err := base.Resolve(c.Ref)
		if err != nil {
			t.Errorf("%s + %q (%s): %v", c.Base, c.Ref, c.Source, err)
			continue
		}
		if got.String() != c.Resolved {
			t.Errorf("%s + %q (%s) = %s, want %s", c.Base, c.Ref, c.Source, got, c.Resolved)
		}
	}
}

func TestResolveKeepsAuthority(t *testing.T) {
	// ".." never climbs out of the path into the host.
	got, err := mustParse(t, "http://h/a").Resolve("../../../x")
	if err != nil {
		t.Fatal(err)
	}
	if got.Host != "h" || got.HTTP.Path != "/x" {
		t.Errorf("got host %q path %q", got.Host, got.HTTP.Path)
	}
}

// FuzzResolve: resolving any reference against corpus URLs never panics,
// and what it gives is a URL that survives a round trip.
func FuzzResolve(f *testing.F) {
	for _, r := range []string{"g", "/g", "//g", "../g", "g:h", "?x", "#y", "", "./a/../../b", "///x"} {
		f.Add(uint8(0), r)
	}
	bases := []*URL{}
	for _, c := range loadCorpus(f) {
		if u, err := Parse(c.URL); err == nil {
			bases = append(bases, u)
		}
	}
	f.Fuzz(func(t *testing.T, i uint8, ref string) {
		got, err := bases[int(i)%len(bases)].Resolve(ref)
		if err != nil {
			return
		}
		checkRoundTrip(t, got.String())
	})
}
