package gopher

import "github.com/goferurl/gofer/schemes"

// TypeWord maps a gopher type character onto gofer's entry type word
// (RFC 1436 §3.8 and the types Gopher+ and later practice added).
func TypeWord(t byte) string {
	switch t {
	case '0':
		return schemes.TypeText
	case '1':
		return schemes.TypeDir
	case '3':
		return schemes.TypeError
	case '4', '5', '6', '9', 'd', 'P', ';':
		return schemes.TypeBinary
	case '7':
		return schemes.TypeSearch
	case '8':
		return schemes.TypeTelnet
	case 'T':
		return schemes.TypeTN3270
	case 'g', 'I', ':', 'p':
		return schemes.TypeImage
	case 's', '<':
		return schemes.TypeAudio
	case 'h':
		return schemes.TypeHTML
	case 'i':
		return schemes.TypeInfo
	}
	return schemes.TypeOther
}

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
