package warc

import (
	"fmt"
	"net/textproto"
	"strings"
)

// Content types of Gemini's request and response records.
const (
	RequestGemini  = "application/gemini;msgtype=request"
	ResponseGemini = "application/gemini;msgtype=response"
)

// convention is what RECORDS.md names for the records of one protocol:
// the WARC-Protocol value its records start with, whether TLS is always
// under it, and the content types each record type may have (any
// non-empty one for a type mapped to nil).
type convention struct {
	protocol string
	tls      bool
	types    map[string][]string
}

var (
	ftpConvention    = map[string][]string{"resource": nil, "metadata": {TypeFTPConversation}, "revisit": {""}}
	gopherConvention = map[string][]string{"resource": nil, "metadata": {TypeGopherPlusAttrs}, "revisit": {""}}
	httpConvention   = map[string][]string{"request": {TypeHTTPRequest}, "response": {TypeHTTPResponse},
		"revisit": {TypeHTTPResponse, ""}}
	newsConvention   = map[string][]string{"resource": {"message/rfc822"}, "revisit": {""}}
	geminiConvention = map[string][]string{"request": {RequestGemini}, "response": {ResponseGemini}}
)

// conventions maps a target URI's scheme to its protocol's convention.
var conventions = map[string]convention{
	"ftp":     {"ftp", false, ftpConvention},
	"ftps":    {"ftp", true, ftpConvention},
	"gopher":  {"gopher", false, gopherConvention},
	"gophers": {"gopher", true, gopherConvention},
	"http":    {"http/", false, httpConvention},
	"https":   {"http/", true, httpConvention},
	"news":    {"nntp", false, newsConvention},
	"nntp":    {"nntp", false, newsConvention},
	"nntps":   {"nntp", true, newsConvention},
	"snews":   {"nntp", true, newsConvention},
	"gemini":  {"gemini", true, geminiConvention},
}

// normalType is a content type compared: lower case, no spaces.
func normalType(ct string) string {
	return strings.ToLower(strings.ReplaceAll(strings.ReplaceAll(ct, " ", ""), "\t", ""))
}

// targetScheme is the scheme of a record's target URI, lower case (a
// WARC/1.0 writer's URI in angle brackets too).
func targetScheme(uri string) string {
	uri = strings.TrimPrefix(uri, "<")
	s, _, ok := strings.Cut(uri, ":")
	if !ok {
		return ""
	}
	return strings.ToLower(s)
}

// conventionProblems lists how a record's header breaks the conventions
// for its protocol and type. Records gofer wrote (gofer) are held to all
// of them: a record type the convention has no place for, and a missing
// WARC-Protocol, are problems too; another tool's records only where they
// use a type the convention names.
func conventionProblems(h textproto.MIMEHeader, gofer bool) []string {
	var out []string
	typ := h.Get("WARC-Type")
	ct := normalType(h.Get("Content-Type"))
	if typ == "warcinfo" {
		if ct != "application/warc-fields" && h.Get("Content-Length") != "0" {
			out = append(out, fmt.Sprintf("warcinfo Content-Type %q, not application/warc-fields", h.Get("Content-Type")))
		}
		return out
	}
	scheme := targetScheme(h.Get("WARC-Target-URI"))
	conv, ok := conventions[scheme]
	if !ok {
		if ct == "" && h.Get("Content-Length") != "0" && typ != "revisit" {
			out = append(out, "no Content-Type")
		}
		return out
	}
	allowed, known := conv.types[typ]
	switch {
	case !known && gofer:
		out = append(out, fmt.Sprintf("a %s record is not one the conventions name for %s", typ, scheme))
	case known && allowed == nil:
		if ct == "" && h.Get("Content-Length") != "0" {
			out = append(out, "no Content-Type")
		}
	case known:
		match := false
		for _, a := range allowed {
			match = match || ct == normalType(a)
		}
		if !match {
			out = append(out, fmt.Sprintf("Content-Type %q is not one the conventions name for a %s record of %s (%s)",
				h.Get("Content-Type"), typ, scheme, strings.Join(nonEmpty(allowed), " or ")))
		}
	}
	protos := h.Values(FieldProtocol)
	if len(protos) == 0 {
		if gofer {
			out = append(out, "no WARC-Protocol")
		}
		return out
	}
	app := strings.ToLower(protos[0])
	if app != conv.protocol && !(strings.HasSuffix(conv.protocol, "/") && strings.HasPrefix(app, conv.protocol)) &&
		!(conv.protocol == "http/" && (app == "h2" || app == "h2c")) {
		out = append(out, fmt.Sprintf("WARC-Protocol %q first, not %s's %q", protos[0], scheme, strings.TrimSuffix(conv.protocol, "/")))
	}
	tls := false
	for _, p := range protos[1:] {
		if strings.HasPrefix(strings.ToLower(p), "tls/") {
			tls = true
		}
	}
	if conv.tls && !tls {
		out = append(out, fmt.Sprintf("no WARC-Protocol naming the TLS version under %s", scheme))
	}
	return out
}

func nonEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
