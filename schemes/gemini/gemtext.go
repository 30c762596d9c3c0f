package gemini

import (
	"bufio"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// Line kinds of a text/gemini document: the Entry.Gemini.Kind of the
// entries of a page's Listing, as the contract names them.
const (
	LineText    = schemes.GeminiText
	LineLink    = schemes.GeminiLink
	LineHeading = schemes.GeminiHeading // "#", "##" or "###": Level says which
	LineList    = schemes.GeminiList    // "* "
	LineQuote   = schemes.GeminiQuote   // ">"
	LinePreOpen = schemes.GeminiPreOpen
	LinePre     = schemes.GeminiPre // a line of a preformatted block, verbatim
	LinePreEnd  = schemes.GeminiPreEnd
)

// Line is one line of a text/gemini document.
type Line struct {
	Kind string
	// Text is the line's text without its marker (a heading's "#", a list
	// item's "* ", a quote's ">"); a link's label; a preformatted line or
	// an opening toggle's alt text verbatim.
	Text string
	// Target is a link's URL as written (perhaps relative).
	Target string
	// Level is a heading's level, 1 to 3.
	Level int
	// Raw is the line as the document has it, without its line end.
	Raw string
}

// Scanner reads a text/gemini document line by line, keeping track of
// preformatted blocks. Lines longer than its limit are cut there.
type Scanner struct {
	br   *bufio.Reader
	max  int
	pre  bool
	line Line
	err  error
}

// NewScanner reads r; maxLine bounds a line (0: schemes.DefaultMaxLineLength).
func NewScanner(r io.Reader, maxLine int) *Scanner {
	if maxLine <= 0 {
		maxLine = schemes.DefaultMaxLineLength
	}
	return &Scanner{br: bufio.NewReader(r), max: maxLine}
}

// Scan advances to the next line; false at the end or on an error (Err).
func (s *Scanner) Scan() bool {
	raw, err := s.readLine()
	if err != nil {
		if err != io.EOF {
			s.err = err
		}
		return false
	}
	s.line = s.parse(raw)
	return true
}

// Line is the line Scan found.
func (s *Scanner) Line() Line { return s.line }

// Err is the read error that ended the scan, nil at a clean end.
func (s *Scanner) Err() error { return s.err }

// readLine returns the next line without its line end (CR LF or LF, one
// of them); io.EOF at the end. A line longer than the limit is returned
// cut there, its rest skipped.
func (s *Scanner) readLine() (string, error) {
	var b []byte
	over := false
	for {
		chunk, err := s.br.ReadSlice('\n')
		if !over {
			b = append(b, chunk...)
			// Room for the limit and a line end: what is beyond is cut.
			if len(b) > s.max+2 {
				b, over = b[:s.max], true
			}
		}
		switch err {
		case nil, io.EOF:
			if err == io.EOF && len(b) == 0 {
				return "", io.EOF
			}
			line := string(b)
			if !over {
				line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
			}
			if len(line) > s.max {
				line = line[:s.max]
			}
			return line, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return "", err
		}
	}
}

// parse reads one line as the gemtext rules say: inside a preformatted
// block every line but the closing toggle is verbatim.
func (s *Scanner) parse(raw string) Line {
	if strings.HasPrefix(raw, "```") {
		s.pre = !s.pre
		if s.pre {
			return Line{Kind: LinePreOpen, Text: strings.TrimSpace(raw[3:]), Raw: raw}
		}
		return Line{Kind: LinePreEnd, Raw: raw}
	}
	if s.pre {
		return Line{Kind: LinePre, Text: raw, Raw: raw}
	}
	return ParseLine(raw)
}

// ParseLine reads one line outside a preformatted block.
func ParseLine(raw string) Line {
	l := Line{Kind: LineText, Text: raw, Raw: raw}
	switch {
	case strings.HasPrefix(raw, "=>"):
		rest := strings.TrimLeft(raw[2:], " \t")
		end := strings.IndexAny(rest, " \t")
		if end < 0 {
			end = len(rest)
		}
		if end == 0 {
			return l // "=>" alone is text
		}
		l.Kind, l.Target = LineLink, rest[:end]
		l.Text = strings.TrimSpace(rest[end:])
	case strings.HasPrefix(raw, "###"):
		l.Kind, l.Level, l.Text = LineHeading, 3, strings.TrimSpace(raw[3:])
	case strings.HasPrefix(raw, "##"):
		l.Kind, l.Level, l.Text = LineHeading, 2, strings.TrimSpace(raw[2:])
	case strings.HasPrefix(raw, "#"):
		l.Kind, l.Level, l.Text = LineHeading, 1, strings.TrimSpace(raw[1:])
	case strings.HasPrefix(raw, "* "):
		l.Kind, l.Text = LineList, raw[2:]
	case strings.HasPrefix(raw, ">"):
		l.Kind, l.Text = LineQuote, strings.TrimSpace(raw[1:])
	}
	return l
}

// Resolve returns a link's target as an absolute URL, resolved against
// the page's URL base (RFC 3986 §5); "" when it cannot be read.
func Resolve(base *url.URL, target string) string {
	ref, err := url.Parse(target)
	if err != nil {
		return ""
	}
	if base == nil {
		if !ref.IsAbs() {
			return ""
		}
		return ref.String()
	}
	return base.ResolveReference(ref).String()
}

// listing is a page's lines as Entries.
type listing struct {
	sc    *Scanner
	base  *url.URL
	body  io.Closer
	limit int
	n     int
}

// NewListing reads the text/gemini document r, the page at pageURL, as a
// Listing with one Entry per line: Entry.Gemini holds the line's kind
// (Line* constants), a heading's level and a link's host; Name is its text
// (a heading's and a quote's without their marker, a preformatted line
// verbatim), and a link's URL its target resolved against pageURL with
// Type guessed from it. Closing the listing
// closes r if it is an io.Closer. maxLine and maxEntries bound a line and
// the number of lines (0: the schemes defaults).
func NewListing(r io.Reader, pageURL string, maxLine, maxEntries int) schemes.Listing {
	base, err := url.Parse(pageURL)
	if err != nil {
		base = nil
	}
	l := &listing{sc: NewScanner(r, maxLine), base: base, limit: maxEntries}
	if l.limit <= 0 {
		l.limit = schemes.DefaultMaxEntries
	}
	if c, ok := r.(io.Closer); ok {
		l.body = c
	}
	return l
}

func (l *listing) Next() (schemes.Entry, error) {
	if !l.sc.Scan() {
		if err := l.sc.Err(); err != nil {
			return schemes.Entry{}, err
		}
		return schemes.Entry{}, io.EOF
	}
	if l.n++; l.n > l.limit {
		return schemes.Entry{}, schemes.Errorf(schemes.ErrTooLarge, "gemini page of more than %d lines", l.limit)
	}
	return l.entry(l.sc.Line()), nil
}

func (l *listing) Close() error {
	if l.body != nil {
		return l.body.Close()
	}
	return nil
}

// entry is a line as an Entry.
func (l *listing) entry(ln Line) schemes.Entry {
	e := schemes.Entry{Name: ln.Text, Type: schemes.TypeInfo, Size: -1, Gemini: &schemes.GeminiLine{Kind: ln.Kind, Level: ln.Level}}
	if ln.Kind != LineLink {
		return e
	}
	e.URL = Resolve(l.base, ln.Target)
	if e.Name == "" {
		e.Name = ln.Target
	}
	e.Type = LinkType(e.URL)
	if u, err := url.Parse(e.URL); err == nil {
		e.Gemini.Host = u.Hostname()
	}
	return e
}

// LinkType guesses the entry type of a link from its URL: a gemini URL
// whose path ends in '/' or ".gmi", or has no extension, is a page
// (schemes.TypeDir: a listing to walk); a file's extension names its
// type; a URL of another scheme is a schemes.TypeLink.
func LinkType(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme == "" {
		return schemes.TypeLink
	}
	if !strings.EqualFold(u.Scheme, "gemini") {
		if strings.EqualFold(u.Scheme, "http") || strings.EqualFold(u.Scheme, "https") {
			return schemes.TypeHTML
		}
		return schemes.TypeLink
	}
	p := u.Path
	if p == "" || strings.HasSuffix(p, "/") {
		return schemes.TypeDir
	}
	switch ext := strings.ToLower(path.Ext(p)); ext {
	case "", ".gmi", ".gemini":
		return schemes.TypeDir
	case ".txt", ".md", ".text", ".csv", ".log", ".conf":
		return schemes.TypeText
	case ".html", ".htm":
		return schemes.TypeHTML
	case ".gif", ".png", ".jpg", ".jpeg", ".webp", ".svg", ".bmp":
		return schemes.TypeImage
	case ".mp3", ".ogg", ".wav", ".flac", ".opus":
		return schemes.TypeAudio
	}
	return schemes.TypeBinary
}
