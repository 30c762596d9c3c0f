package schemes

import (
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// corpusCase is one entry of testdata/urls.json.
type corpusCase struct {
	URL         string         `json:"url"`
	Source      string         `json:"source"`
	Error       string         `json:"error"`
	Scheme      string         `json:"scheme"`
	Host        string         `json:"host"`
	Port        *int           `json:"port"`
	User        string         `json:"user"`
	HasUser     bool           `json:"has_user"`
	HasPassword bool           `json:"has_password"`
	Parts       map[string]any `json:"parts"`
}

func loadCorpus(tb testing.TB) []corpusCase {
	tb.Helper()
	b, err := os.ReadFile("../testdata/urls.json")
	if err != nil {
		tb.Fatal(err)
	}
	var f struct {
		URLs []corpusCase `json:"urls"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		tb.Fatal(err)
	}
	if len(f.URLs) == 0 {
		tb.Fatal("empty corpus")
	}
	return f.URLs
}

// partsOf is the typed view of u in the corpus's JSON vocabulary.
func partsOf(u *URL) map[string]any {
	m := map[string]any{}
	if u.HasFragment {
		m["fragment"] = u.Fragment
	}
	switch {
	case u.FTP != nil:
		segs := []any{}
		for _, s := range u.FTP.Segments {
			segs = append(segs, s)
		}
		m["segments"] = segs
		m["type_code"] = ""
		if u.FTP.TypeCode != 0 {
			m["type_code"] = string(rune(u.FTP.TypeCode))
		}
	case u.HTTP != nil:
		m["path"] = u.HTTP.Path
		if u.HTTP.HasSearch {
			m["search"] = u.HTTP.Search
		}
	case u.Gopher != nil:
		g := u.Gopher
		m["gopher_type"] = string(rune(g.Type))
		m["selector"] = g.Selector
		if g.HasSearch {
			m["search"] = g.Search
		}
		if g.HasPlus {
			m["plus"] = g.PlusString
		}
	case u.Mailto != nil:
		m["addr"] = u.Mailto.Addr
	case u.News != nil:
		switch {
		case u.News.All:
			m["all"] = true
		case u.News.MessageID != "":
			m["message_id"] = u.News.MessageID
		default:
			m["group"] = u.News.Group
		}
	case u.NNTP != nil:
		m["group"] = u.NNTP.Group
		m["article"] = float64(u.NNTP.Article)
	case u.WAIS != nil:
		w := u.WAIS
		m["database"] = w.Database
		if w.HasSearch {
			m["search"] = w.Search
		}
		if w.WType != "" || w.WPath != "" {
			m["wtype"], m["wpath"] = w.WType, w.WPath
		}
	case u.File != nil:
		m["path"] = u.File.Path
		m["local"] = u.Local()
	case u.Prospero != nil:
		p := u.Prospero
		m["hsoname"] = p.HSOName
		if p.HasVersion {
			m["version"] = p.Version
		}
		if len(p.Fields) > 0 {
			var fs []any
			for _, f := range p.Fields {
				fs = append(fs, []any{f.Name, f.Value})
			}
			m["fields"] = fs
		}
	case u.Opaque != "":
		m["opaque"] = u.Opaque
	}
	return m
}

// TestCorpus parses every URL example of the seed documents and compares
// its parts with testdata/urls.json.
func TestCorpus(t *testing.T) {
	for _, c := range loadCorpus(t) {
		u, err := Parse(c.URL)
		if c.Error != "" {
			if err == nil || !strings.Contains(err.Error(), c.Error) {
				t.Errorf("%q (%s): err %v, want %q", c.URL, c.Source, err, c.Error)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q (%s): %v", c.URL, c.Source, err)
			continue
		}
		if u.Scheme != c.Scheme || u.Host != c.Host || u.User != c.User ||
			(c.Port != nil && u.EffectivePort() != *c.Port) ||
			u.HasPassword != c.HasPassword || (c.HasUser && !u.HasUser) {
			t.Errorf("%q (%s): scheme %q host %q port %d user %q password %v", c.URL, c.Source,
				u.Scheme, u.Host, u.EffectivePort(), u.User, u.HasPassword)
		}
		if got := partsOf(u); !reflect.DeepEqual(got, c.Parts) {
			t.Errorf("%q (%s):\n parts %#v\n want  %#v", c.URL, c.Source, got, c.Parts)
		}
	}
}
