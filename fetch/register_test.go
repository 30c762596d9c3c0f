package fetch

import (
	"context"
	"testing"
)

// Register takes a scheme in any case, as lookups and URLs do: a fetcher
// registered as "X-Test" serves x-test: URLs, is found as "x-test", and a
// second registration in another case is the duplicate it is.
func TestRegisterLowersScheme(t *testing.T) {
	c := newClient(Options{})
	f := newFake()
	c.Register("X-Test", f)
	if c.Fetcher("x-test") != f {
		t.Fatalf("Fetcher(%q) is not the fetcher registered as %q", "x-test", "X-Test")
	}
	f.body("x-test://127.0.0.1/a", "contents")
	resp, err := c.Get(context.Background(), "X-TEST://127.0.0.1/a")
	if err != nil {
		t.Fatal(err)
	}
	if got := readAll(t, resp); got != "contents" {
		t.Errorf("body %q, want %q", got, "contents")
	}
	defer func() {
		if recover() == nil {
			t.Error("registering x-test after X-Test did not panic")
		}
	}()
	c.Register("x-test", f)
}
