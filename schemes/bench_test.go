package schemes

import (
	"net/url"
	"testing"
)

// corpusStrings returns the corpus URLs both parsers accept as written
// (no wrapper, no white space), so both read the same bytes.
func corpusStrings(b *testing.B) []string {
	var out []string
	for _, c := range loadCorpus(b) {
		if c.Error != "" {
			continue
		}
		u, err := Parse(c.URL)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, u.String())
	}
	return out
}

func BenchmarkParse(b *testing.B) {
	urls := corpusStrings(b)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range urls {
			if _, err := Parse(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(urls)), "ns/url")
}

func BenchmarkNetURLParse(b *testing.B) {
	urls := corpusStrings(b)
	b.ResetTimer()
	for b.Loop() {
		for _, s := range urls {
			_, _ = url.Parse(s) // some RFC 1738 forms are not RFC 3986 URLs
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(urls)), "ns/url")
}
