package http

import (
	"errors"
	nethttp "net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/goferurl/gofer/schemes"
)

// A refusal carries its status: 5xx and 429 are worth another try, 404 is not.
func TestStatusRefusalsSayWhetherTransient(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		code, _ := strconv.Atoi(r.URL.Path[1:])
		w.WriteHeader(code)
	}))
	defer srv.Close()
	f := New()
	defer f.Close()
	for code, transient := range map[int]bool{404: false, 403: false, 429: true, 500: true, 503: true} {
		_, _, err := fetch(t, f, &schemes.Request{URL: urlFor(t, srv, "/"+strconv.Itoa(code), "", false), Settings: &schemes.Settings{}})
		var re *schemes.ReplyError
		if !errors.Is(err, schemes.ErrRefused) || !errors.As(err, &re) || re.Code != code {
			t.Errorf("%d: error %v carries no reply %d", code, err, code)
			continue
		}
		if schemes.Transient(err) != transient {
			t.Errorf("%d: Transient = %v, want %v", code, !transient, transient)
		}
	}
}
