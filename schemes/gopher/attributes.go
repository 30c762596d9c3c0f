package gopher

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// Attributes is a Gopher+ attribute reply (Gopher+ §2.5, §2.7): one item's
// blocks for "!", every item's blocks for a directory's "$".
type Attributes struct {
	Items []*Item `json:"items"`
}

// Item is the attribute blocks of one item. +INFO, +ADMIN, +VIEWS,
// +ABSTRACT and +ASK are parsed (Gopher+ Appendix I, §2.8); every other
// block is kept as it came in Blocks.
type Item struct {
	// Info is the item's descriptor from its +INFO block.
	Info  *schemes.Entry `json:"info,omitempty"`
	Admin *Admin         `json:"admin,omitempty"`
	Views []View         `json:"views,omitempty"`
	// Abstract is the +ABSTRACT text, lines joined with "\n";
	// AbstractRef the item holding a longer one, when the block names one.
	Abstract    string         `json:"abstract,omitempty"`
	AbstractRef *schemes.Entry `json:"abstract_ref,omitempty"`
	Ask         *Form          `json:"ask,omitempty"`
	Blocks      []Block        `json:"blocks,omitempty"`
}

// Admin is a +ADMIN block (Gopher+ A2.0).
type Admin struct {
	// Admin is the "Admin:" line as given; Email the address inside its angle brackets.
	Admin string `json:"admin,omitempty"`
	Email string `json:"email,omitempty"`
	// ModDate is the "Mod-Date:" time, from its <YYYYMMDDhhmmss> part; the
	// spec gives no zone, so it is read as UTC.
	ModDate *time.Time `json:"mod_date,omitempty"`
	// Fields are every line of the block in order, these two included.
	Fields []Field `json:"fields,omitempty"`
}

// Field is one "Name: value" line of a block.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// View is one line of a +VIEWS block (Gopher+ A3.0): a MIME type, an
// optional language (ISO 639 + ISO 3166, "En_US") and an optional size.
type View struct {
	Type     string `json:"type"`
	Language string `json:"language,omitempty"`
	// Size is the advertised size in bytes ("<10k>" is 10240), nil when not given.
	Size     *int64 `json:"size,omitempty"`
	SizeText string `json:"size_text,omitempty"`
}

// PlusString is the Gopher+ string that asks for this view ("+type lang").
func (v View) PlusString() string {
	if v.Language != "" {
		return "+" + v.Type + " " + v.Language
	}
	return "+" + v.Type
}

// Block is an attribute block gofer does not interpret.
type Block struct {
	// Name is the block's name without its "+".
	Name string `json:"name"`
	// Descriptor is what follows the name on its own line.
	Descriptor string   `json:"descriptor,omitempty"`
	Lines      []string `json:"lines,omitempty"`
}

// ParseAttributes parses attribute blocks: a "+NAME:" line starts a block,
// lines starting with a space are its content, and each +INFO starts the
// next item. host and port fill in descriptors that leave them out. Lines
// end in CR LF or LF.
func ParseAttributes(text, host string, port int) *Attributes {
	a := &Attributes{Items: []*Item{}}
	var item *Item
	var name, desc string
	var lines []string
	flush := func() {
		if name == "" {
			return
		}
		if item == nil || name == "INFO" {
			item = &Item{}
			a.Items = append(a.Items, item)
		}
		item.add(name, desc, lines, host, port)
		name, desc, lines = "", "", nil
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSuffix(line, "\r")
		switch {
		case strings.HasPrefix(line, "+"):
			flush()
			name, desc = splitBlockName(line[1:])
			if name == "" {
				name = "?"
			}
		case strings.TrimSpace(line) == "":
		case name != "":
			lines = append(lines, strings.TrimPrefix(line, " "))
		}
	}
	flush()
	return a
}

// splitBlockName splits "NAME: descriptor" (the colon is sometimes missing).
func splitBlockName(s string) (name, desc string) {
	i := strings.IndexAny(s, ": ")
	if i < 0 {
		return s, ""
	}
	name, rest := s[:i], s[i:]
	rest = strings.TrimPrefix(rest, ":")
	return name, strings.TrimSpace(rest)
}

func (it *Item) add(name, desc string, lines []string, host string, port int) {
	switch name {
	case "INFO":
		if desc != "" {
			e := ParseItem(desc, host, port)
			it.Info = &e
		}
	case "ADMIN":
		it.Admin = parseAdmin(lines)
	case "VIEWS":
		for _, l := range lines {
			if v, ok := parseView(l); ok {
				it.Views = append(it.Views, v)
			}
		}
	case "ABSTRACT":
		it.Abstract = strings.Join(lines, "\n")
		if desc != "" {
			e := ParseItem(desc, host, port)
			it.AbstractRef = &e
		}
	case "ASK":
		it.Ask = ParseForm(lines)
	default:
		it.Blocks = append(it.Blocks, Block{Name: name, Descriptor: desc, Lines: lines})
	}
}

func parseAdmin(lines []string) *Admin {
	ad := &Admin{}
	for _, l := range lines {
		n, v, _ := strings.Cut(l, ":")
		n, v = strings.TrimSpace(n), strings.TrimSpace(v)
		ad.Fields = append(ad.Fields, Field{Name: n, Value: v})
		switch strings.ToLower(n) {
		case "admin":
			ad.Admin = v
			ad.Email = angle(v)
		case "mod-date":
			if t, err := time.Parse("20060102150405", angle(v)); err == nil {
				ad.ModDate = &t
			}
		}
	}
	return ad
}

// angle returns the text inside the last <...> of s, or "".
func angle(s string) string {
	j := strings.LastIndexByte(s, '>')
	if j < 0 {
		return ""
	}
	i := strings.LastIndexByte(s[:j], '<')
	if i < 0 {
		return ""
	}
	return s[i+1 : j]
}

// parseView parses " Content-Type[ lang]: [<size>]".
func parseView(l string) (View, bool) {
	l = strings.TrimSpace(l)
	label, size, _ := strings.Cut(l, ":")
	f := strings.Fields(label)
	if len(f) == 0 {
		return View{}, false
	}
	v := View{Type: f[0], Language: strings.Join(f[1:], " ")}
	if s := angle(size); s != "" {
		v.SizeText = s
		if n, ok := parseSize(s); ok {
			v.Size = &n
		}
	}
	return v, true
}

// parseSize reads "10k", "45K", "1.5M", "300": k, M and G are binary multiples.
func parseSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	mult := 1.0
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult = 1 << 10
		case 'm', 'M':
			mult = 1 << 20
		case 'g', 'G':
			mult = 1 << 30
		case 'b', 'B':
		default:
			mult = 0
		}
		if mult != 0 {
			s = s[:len(s)-1]
		} else {
			mult = 1
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || f > 1<<53 {
		return 0, false
	}
	return int64(f * mult), true
}

var _ schemes.EntriesInfo = (*Attributes)(nil)

// Entries returns the descriptor of every item that has a +INFO block,
// with Modified set from its +ADMIN Mod-Date when it gives one.
func (a *Attributes) Entries() []schemes.Entry {
	if a == nil {
		return nil
	}
	out := make([]schemes.Entry, 0, len(a.Items))
	for _, it := range a.Items {
		if it.Info == nil {
			continue
		}
		e := *it.Info
		if it.Admin != nil && it.Admin.ModDate != nil {
			e.Modified = *it.Admin.ModDate
		}
		out = append(out, e)
	}
	return out
}

// WriteText writes the attributes for a person to read.
func (a *Attributes) WriteText(w io.Writer) error {
	var b strings.Builder
	for i, it := range a.Items {
		if i > 0 {
			b.WriteByte('\n')
		}
		it.writeText(&b)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func (it *Item) writeText(b *strings.Builder) {
	if e := it.Info; e != nil {
		fmt.Fprintf(b, "%s  [%s]", e.Name, e.Type)
		if e.URL != "" {
			fmt.Fprintf(b, "  %s", e.URL)
		}
		b.WriteByte('\n')
	}
	if ad := it.Admin; ad != nil {
		b.WriteString("Admin:\n")
		for _, f := range ad.Fields {
			fmt.Fprintf(b, "  %s: %s\n", f.Name, f.Value)
		}
		if ad.ModDate != nil {
			fmt.Fprintf(b, "  (modified %s)\n", ad.ModDate.Format(time.RFC3339))
		}
	}
	if len(it.Views) > 0 {
		b.WriteString("Views:\n")
		for _, v := range it.Views {
			fmt.Fprintf(b, "  %s", v.Type)
			if v.Language != "" {
				fmt.Fprintf(b, " (%s)", v.Language)
			}
			if v.Size != nil {
				fmt.Fprintf(b, "  %d bytes", *v.Size)
			}
			b.WriteByte('\n')
		}
	}
	if it.Abstract != "" || it.AbstractRef != nil {
		b.WriteString("Abstract:\n")
		for _, l := range strings.Split(it.Abstract, "\n") {
			if l != "" {
				fmt.Fprintf(b, "  %s\n", l)
			}
		}
		if it.AbstractRef != nil {
			fmt.Fprintf(b, "  (more: %s)\n", it.AbstractRef.URL)
		}
	}
	if it.Ask != nil {
		b.WriteString("Form:\n")
		it.Ask.writeText(b)
	}
	for _, bl := range it.Blocks {
		fmt.Fprintf(b, "+%s:", bl.Name)
		if bl.Descriptor != "" {
			fmt.Fprintf(b, " %s", bl.Descriptor)
		}
		b.WriteByte('\n')
		for _, l := range bl.Lines {
			fmt.Fprintf(b, "  %s\n", l)
		}
	}
}

var _ schemes.Viewer = (*Attributes)(nil)

// Views returns the first item's +VIEWS that names any, for a user
// interface, or nil when no item has one.
func (a *Attributes) Views() []schemes.ItemView {
	if a == nil {
		return nil
	}
	for _, it := range a.Items {
		if len(it.Views) == 0 {
			continue
		}
		out := make([]schemes.ItemView, 0, len(it.Views))
		for _, v := range it.Views {
			iv := schemes.ItemView{MediaType: v.Type, Language: v.Language, Size: -1, Plus: v.PlusString()}
			if v.Size != nil {
				iv.Size = *v.Size
			}
			out = append(out, iv)
		}
		return out
	}
	return nil
}
