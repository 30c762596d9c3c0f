package main

import (
	"testing"

	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/schemes"
)

func TestMirrorExitCode(t *testing.T) {
	timeout := mirror.Failure{URL: "ftp://127.0.0.21/a", Err: schemes.Errorf(schemes.ErrTimeout, "slow")}
	missing := mirror.Failure{URL: "ftp://127.0.0.21/b", Err: schemes.Errorf(schemes.ErrRefused, "550")}
	cases := []struct {
		name string
		sum  mirror.Summary
		want int
	}{
		{"clean", mirror.Summary{New: 3}, 0},
		{"refusal only", mirror.Summary{Refused: 1}, 3},
		{"most severe failure", mirror.Summary{Failed: 2, Failures: []mirror.Failure{missing, timeout}}, 7},
		{"refusal outranks failures", mirror.Summary{Refused: 1, Failed: 1, Failures: []mirror.Failure{missing}}, 3},
		{"unlisted failure", mirror.Summary{Failed: 1}, 1},
		{"unparsed listing line", mirror.Summary{New: 3, Unparsed: 1}, 5},
		{"timeout outranks unparsed", mirror.Summary{Unparsed: 2, Failed: 1, Failures: []mirror.Failure{timeout}}, 7},
		{"refusal outranks unparsed", mirror.Summary{Unparsed: 1, Refused: 1}, 3},
	}
	for _, c := range cases {
		if got := mirrorExitCode(&c.sum); got != c.want {
			t.Errorf("%s: exit %d, want %d", c.name, got, c.want)
		}
	}
}
