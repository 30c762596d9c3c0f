package schemes

import (
	"encoding/json"
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
)

// Entry is one item of a listing: a directory entry, a menu item, an article
// of a group or a group of a server. URL is the URL that fetches it.
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

	// Gopher: the raw type character, the Gopher+ marker ("", "+" or "?"),
	// and where the item lives.
	Gopher     bool
	GopherType string
	Plus       string
	Selector   string
	Host       string
	Port       int

	// News: article number, overview fields, or a group's description.
	Number      int64
	Subject     string
	From        string
	Date        string
	MessageID   string
	Lines       int64
	Bytes       int64
	NNTPURL     string
	Description string
	Low, High   int64
	Status      string

	// WAIS: a search hit's relevance score and the document type the
	// server named (TEXT, HTML, ...), which its retrieval sends back.
	// Lines and Date carry the hit's line count and date.
	WAIS     bool
	Score    int64
	WAISType string

	// Gemini: the kind of a text/gemini line ("text", "link", "heading",
	// ...; see package gemini), "" for an entry that is no such line, and
	// a heading's level (1 to 3).
	Gemini string
	Level  int
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
}

// MarshalJSON writes the entry in the --json contract: numbers as numbers,
// times as RFC 3339, size only when known, gopher_type and plus on every
// Gopher entry, and raw_name (the name's bytes percent-encoded) when the
// name is not valid UTF-8.
func (e Entry) MarshalJSON() ([]byte, error) {
	j := entryJSON{
		Name: e.Name, Type: e.Type, URL: e.URL, Target: e.Target, Version: e.Version,
		Host: e.Host, Port: e.Port,
		Number: e.Number, Subject: e.Subject, From: e.From, Date: e.Date,
		MessageID: e.MessageID, Lines: e.Lines, Bytes: e.Bytes, NNTPURL: e.NNTPURL,
		Description: e.Description, Low: e.Low, High: e.High, Status: e.Status,
		Gemini: e.Gemini, Level: e.Level,
	}
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
	if e.WAIS {
		score := e.Score
		j.Score, j.WAISType = &score, e.WAISType
	}
	if e.Gopher {
		gt, plus, sel := e.GopherType, e.Plus, e.Selector
		j.GopherType, j.Plus, j.Selector = &gt, &plus, &sel
	}
	return json.Marshal(j)
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
