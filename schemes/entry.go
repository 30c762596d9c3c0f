package schemes

import (
	"encoding/json"
	"strings"
	"time"
	"unicode/utf8"
)

// Entry types: one lower-case word each, the "type" of a --json listing
// entry (a contract with scripts: add, never rename).
const (
	TypeDir     = "dir"
	TypeFile    = "file"
	TypeText    = "text"
	TypeBinary  = "binary"
	TypeImage   = "image"
	TypeAudio   = "audio"
	TypeHTML    = "html"
	TypeSearch  = "search"
	TypeAsk     = "ask"
	TypeTelnet  = "telnet"
	TypeTN3270  = "tn3270"
	TypeInfo    = "info"
	TypeError   = "error"
	TypeLink    = "link"
	TypeGroup   = "group"
	TypeArticle = "article"
	TypeOther   = "other"
	// TypeUnparsed is a listing line in no form the scheme reads: Name
	// holds the raw line, and URL is empty. It is never content: a
	// renderer warns about it and lists it apart (--json "unparsed"), a
	// mirror counts it, and a walker that does neither skips it, so that
	// nothing a listing said is dropped without a word.
	TypeUnparsed = "unparsed"
)

// Time precisions of Entry.Precision, the "modified_precision" of a --json
// entry.
const (
	PrecisionDay    = "day"
	PrecisionMinute = "minute"
	PrecisionSecond = "second"
	// PrecisionAmbiguous: the listing wrote the date in an order of day,
	// month and year that neither it nor the server's clock decides
	// (numeric OS/400 dates), and the orders left read it as different
	// times; Modified is the reading in the first of them.
	PrecisionAmbiguous = "ambiguous"
)

// Entry is one item of a listing: a directory entry, a menu item, an article
// of a group or a group of a server. URL is the URL that fetches it. The
// fields every listing has are on Entry itself; what one scheme alone knows
// is in a view (Gopher, News, WAIS, Gemini), nil when the entry is not of
// that kind, as a URL has its per-scheme views (HTML, for a link of an
// HTML page, whatever its scheme).
type Entry struct {
	Name     string
	Type     string
	URL      string
	Size     int64 // -1 when unknown
	Modified time.Time
	// Precision says how far Modified is known: PrecisionDay or
	// PrecisionMinute for a listing that shows no more (an FTP LIST line),
	// "" or PrecisionSecond for a time known to the second.
	Precision string
	// Target is a symlink's target as the listing gives it (never followed).
	Target string
	// Version is a file's version where the listing numbers them (VMS
	// "NAME;N"): Name is then the plain name and URL names the version;
	// 0 when the listing gives none.
	Version int
	// Hash is the server's own checksum of the file, when the listing
	// gave one (an FTP MLSD hash fact) or the fetcher asked for it
	// (Request.ListHashes); zero otherwise.
	Hash ServerHash

	Gopher *GopherItem // an item of a Gopher menu
	News   *NewsItem   // an article of a group, or a group of a server
	WAIS   *WAISHit    // a hit of a WAIS search
	Gemini *GeminiLine // a line of a text/gemini page
	HTML   *HTMLLink   // a link of an HTML page
}

// GopherItem is what a Gopher menu line (RFC 1436 §3.8) says of its item
// beyond its name and type.
type GopherItem struct {
	// Type is the raw item type character ("0", "1", "i", "+", ...).
	Type string
	// Plus is the Gopher+ marker: "" for none, "+" for a Gopher+ item,
	// "?" for one that asks for input first.
	Plus string
	// Selector, Host and Port say where the item lives.
	Selector string
	Host     string
	Port     int
}

// NewsItem is what an NNTP server says of an article (the overview fields
// of RFC 3977 §8.3) or of a group (LIST ACTIVE and LIST NEWSGROUPS, RFC
// 3977 §7.6); a field the server did not send is zero.
type NewsItem struct {
	// Number is the article's number in its group.
	Number int64
	// Subject, From and Date are the article's header lines as the server
	// sent them (Entry.Modified is Date read as a time, when it reads).
	Subject string
	From    string
	Date    string
	// MessageID is the article's message-id without its angle brackets.
	MessageID string
	// References is the article's References header as the overview
	// gives it: the message-ids it follows up, oldest first, in angle
	// brackets and separated by white space (RFC 5536 §3.2.10).
	References string
	// Lines and Bytes are the article's size in lines and in octets as the
	// overview gives them.
	Lines int64
	Bytes int64
	// URL is the article's nntp URL by number on the server that listed
	// it (Entry.URL names it by message-id, on any server); "" for a group.
	URL string
	// Description is a group's one-line description.
	Description string
	// Low and High are a group's lowest and highest article numbers, and
	// Status its posting status ("y", "n", "m", ...).
	Low, High int64
	Status    string
}

// WAISHit is what a WAIS server says of one search hit.
type WAISHit struct {
	// Score is the hit's relevance as the server ranks it.
	Score int64
	// Type is the document type the server named (TEXT, HTML, ...), which
	// a retrieval of the document sends back.
	Type string
	// Lines is the document's line count, 0 when the server gave none, and
	// Date its date as the server wrote it.
	Lines int64
	Date  string
}

// GeminiLine is one line of a text/gemini page, as package gemini reads it.
type GeminiLine struct {
	// Kind is the kind of line: GeminiText, GeminiLink, GeminiHeading,
	// GeminiList, GeminiQuote, GeminiPreOpen, GeminiPre or GeminiPreEnd.
	Kind string
	// Level is a heading's level (1 to 3), 0 for any other line.
	Level int
	// Host is a link's host, "" for any other line.
	Host string
}

type entryJSON struct {
	Name        string  `json:"name"`
	RawName     string  `json:"raw_name,omitempty"`
	Type        string  `json:"type"`
	URL         string  `json:"url"`
	Size        *int64  `json:"size,omitempty"`
	Modified    *string `json:"modified,omitempty"`
	Precision   string  `json:"modified_precision,omitempty"`
	Target      string  `json:"target,omitempty"`
	Version     int     `json:"version,omitempty"`
	GopherType  *string `json:"gopher_type,omitempty"`
	Plus        *string `json:"plus,omitempty"`
	Selector    *string `json:"selector,omitempty"`
	Host        string  `json:"host,omitempty"`
	Port        int     `json:"port,omitempty"`
	Number      int64   `json:"number,omitempty"`
	Subject     string  `json:"subject,omitempty"`
	From        string  `json:"from,omitempty"`
	Date        string  `json:"date,omitempty"`
	MessageID   string  `json:"message_id,omitempty"`
	Lines       int64   `json:"lines,omitempty"`
	Bytes       int64   `json:"bytes,omitempty"`
	NNTPURL     string  `json:"nntp_url,omitempty"`
	Description string  `json:"description,omitempty"`
	Low         int64   `json:"low,omitempty"`
	High        int64   `json:"high,omitempty"`
	Status      string  `json:"status,omitempty"`
	Score       *int64  `json:"score,omitempty"`
	WAISType    string  `json:"wais_type,omitempty"`
	Gemini      string  `json:"gemini,omitempty"`
	Level       int     `json:"level,omitempty"`
	HTMLElement string  `json:"html_element,omitempty"`
	HTMLAttr    string  `json:"html_attr,omitempty"`
	// Hash is "ALG:HEX", the server's checksum of the file.
	Hash string `json:"hash,omitempty"`
}

// MarshalJSON writes the entry in the --json contract: numbers as numbers,
// times as RFC 3339, size only when known, gopher_type and plus on every
// Gopher entry, score on every WAIS hit, and raw_name (the name's bytes
// percent-encoded) when the name is not valid UTF-8. The views' fields are
// written flat, beside the entry's own.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryJSON{Name: e.Name, Type: e.Type, URL: e.URL, Target: e.Target, Version: e.Version}
	if !utf8.ValidString(e.Name) {
		// JSON strings are Unicode: a Latin-1 or otherwise non-UTF-8 name
		// would lose its bytes to U+FFFD, so they travel percent-encoded too.
		j.RawName = Escape(e.Name)
	}
	if e.Size >= 0 {
		size := e.Size
		j.Size = &size
	}
	if !e.Modified.IsZero() {
		m := e.Modified.UTC().Format(time.RFC3339)
		j.Modified = &m
		j.Precision = e.TimePrecision()
	}
	if g := e.Gopher; g != nil {
		gt, plus, sel := g.Type, g.Plus, g.Selector
		j.GopherType, j.Plus, j.Selector = &gt, &plus, &sel
		j.Host, j.Port = g.Host, g.Port
	}
	if n := e.News; n != nil {
		j.Number, j.Subject, j.From, j.Date = n.Number, n.Subject, n.From, n.Date
		j.MessageID, j.Lines, j.Bytes, j.NNTPURL = n.MessageID, n.Lines, n.Bytes, n.URL
		j.Description, j.Low, j.High, j.Status = n.Description, n.Low, n.High, n.Status
	}
	if w := e.WAIS; w != nil {
		score := w.Score
		j.Score, j.WAISType = &score, w.Type
		j.Lines, j.Date = w.Lines, w.Date
	}
	if g := e.Gemini; g != nil {
		j.Gemini, j.Level, j.Host = g.Kind, g.Level, g.Host
	}
	if h := e.HTML; h != nil {
		j.HTMLElement, j.HTMLAttr = h.Element, h.Attr
	}
	if e.Hash.Alg != "" {
		j.Hash = e.Hash.Alg + ":" + e.Hash.Hex
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads an entry in the form MarshalJSON writes: the name
// from raw_name when there is one, Size -1 when size is absent, and each
// view set when the JSON carries its fields (gopher_type for Gopher, score
// for WAIS, gemini for Gemini, html_element for HTML, any article or group
// field for News).
func (e *Entry) UnmarshalJSON(b []byte) error {
	var j entryJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	d := Entry{Name: j.Name, Type: j.Type, URL: j.URL, Size: -1, Target: j.Target, Version: j.Version}
	if j.RawName != "" {
		d.Name = Decode(j.RawName)
	}
	if j.Size != nil {
		d.Size = *j.Size
	}
	if j.Modified != nil {
		t, err := time.Parse(time.RFC3339, *j.Modified)
		if err != nil {
			return err
		}
		d.Modified, d.Precision = t, j.Precision
	}
	if j.GopherType != nil && j.Gemini == "" {
		d.Gopher = &GopherItem{Type: *j.GopherType, Host: j.Host, Port: j.Port}
		if j.Plus != nil {
			d.Gopher.Plus = *j.Plus
		}
		if j.Selector != nil {
			d.Gopher.Selector = *j.Selector
		}
	}
	n := NewsItem{Number: j.Number, Subject: j.Subject, From: j.From, MessageID: j.MessageID,
		Bytes: j.Bytes, URL: j.NNTPURL, Description: j.Description, Low: j.Low, High: j.High, Status: j.Status}
	if j.Score != nil {
		// A hit's lines and date are its own, not an article's.
		d.WAIS = &WAISHit{Score: *j.Score, Type: j.WAISType, Lines: j.Lines, Date: j.Date}
	} else {
		n.Lines, n.Date = j.Lines, j.Date
	}
	if n != (NewsItem{}) {
		d.News = &n
	}
	if j.Gemini != "" {
		d.Gemini = &GeminiLine{Kind: j.Gemini, Level: j.Level, Host: j.Host}
	}
	if j.HTMLElement != "" {
		d.HTML = &HTMLLink{Element: j.HTMLElement, Attr: j.HTMLAttr}
	}
	if alg, hex, ok := strings.Cut(j.Hash, ":"); ok {
		d.Hash = ServerHash{Alg: alg, Hex: hex}
	}
	*e = d
	return nil
}

// TimePrecision is Precision with the default filled in: PrecisionSecond
// when the entry names none.
func (e Entry) TimePrecision() string {
	if e.Precision == "" {
		return PrecisionSecond
	}
	return e.Precision
}

// FormatModified writes Modified (in UTC) only as far as it is known:
// "2006-01-02", "2006-01-02 15:04" or "2006-01-02 15:04:05"; "" when unknown.
func (e Entry) FormatModified() string {
	if e.Modified.IsZero() {
		return ""
	}
	t := e.Modified.UTC()
	switch e.Precision {
	case PrecisionDay:
		return t.Format(time.DateOnly)
	case PrecisionMinute:
		return t.Format("2006-01-02 15:04")
	}
	return t.Format(time.DateTime)
}
