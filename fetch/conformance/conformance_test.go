package conformance

import (
	"testing"

	"github.com/goferurl/gofer/fetch"
)

// adapters maps every scheme gofer ships to its adapter. A scheme
// registered in fetch without a line here fails TestConformance.
func adapters() map[string]Adapter {
	return map[string]Adapter{
		"file":     fileAdapter(),
		"ftp":      ftpAdapter(false),
		"ftps":     ftpAdapter(true),
		"gemini":   geminiAdapter(),
		"gopher":   gopherAdapter(false),
		"gophers":  gopherAdapter(true),
		"http":     httpAdapter(false),
		"https":    httpAdapter(true),
		"mailto":   mailtoAdapter(),
		"news":     newsAdapter(),
		"nntp":     nntpAdapter(false),
		"nntps":    nntpAdapter(true),
		"prospero": prosperoAdapter(),
		"rlogin":   handoffAdapter("rlogin"),
		"telnet":   telnetAdapter(),
		"tn3270":   handoffAdapter("tn3270"),
		"wais":     waisAdapter(),
	}
}

// TestConformance runs the suite against every scheme the default client
// registers.
func TestConformance(t *testing.T) {
	table := adapters()
	for _, scheme := range fetch.NewClient(fetch.Options{}).Schemes() {
		t.Run(scheme, func(t *testing.T) {
			a, ok := table[scheme]
			if !ok {
				t.Fatalf("scheme %s is registered but has no conformance adapter", scheme)
			}
			Run(t, scheme, a)
		})
	}
}
