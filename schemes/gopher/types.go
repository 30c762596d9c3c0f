package gopher

import "github.com/goferurl/gofer/schemes"

// TypeWord maps a gopher type character onto gofer's entry type word; it
// is schemes.GopherTypeWord.
func TypeWord(t byte) string { return schemes.GopherTypeWord(t) }

// isMenu reports whether a plain reply to an item of type t is a menu: a
// directory, or the result of a search (RFC 1436 §3.7).
func isMenu(t byte) bool { return t == '1' || t == '7' }

// isText reports whether a plain reply to an item of type t is text that
// ends at a lone "." line with leading dots doubled (RFC 1436 §3.8 "textfile
// entity"). Every other type is sent as it is until the server closes.
func isText(t byte) bool { return t == '0' || t == '3' }

// mediaType is the MIME type a gopher type implies, "" when it implies none.
func mediaType(t byte) string {
	switch t {
	case '0':
		return "text/plain"
	case '1', '7':
		return "application/gopher-menu"
	case 'g':
		return "image/gif"
	case 'h':
		return "text/html"
	}
	return ""
}
