package schemes

// GopherTypeWord maps a gopher type character onto gofer's entry type word
// (RFC 1436 §3.8 and the types Gopher+ and later practice added): what
// an item of a gopher URL (URL.Gopher.Type) is, known without a menu.
func GopherTypeWord(t byte) string {
	switch t {
	case '0':
		return TypeText
	case '1':
		return TypeDir
	case '3':
		return TypeError
	case '4', '5', '6', '9', 'd', 'P', ';':
		return TypeBinary
	case '7':
		return TypeSearch
	case '8':
		return TypeTelnet
	case 'T':
		return TypeTN3270
	case 'g', 'I', ':', 'p':
		return TypeImage
	case 's', '<':
		return TypeAudio
	case 'h':
		return TypeHTML
	case 'i':
		return TypeInfo
	}
	return TypeOther
}
