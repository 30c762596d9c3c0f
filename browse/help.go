package browse

import "strings"

// keys is every key the browser knows, as the help page lists them.
var keys = [][2]string{
	{"Up, Down, k, j", "move in a listing; scroll in the pager"},
	{"PgUp, PgDn, Space, b", "page up and down"},
	{"Home, End", "first and last line"},
	{"Enter, Right", "open the item under the cursor"},
	{"Left, Backspace, u", "back to the previous page"},
	{"f", "forward again"},
	{"g", "open a URL"},
	{"/", "search in the text (pager); find an item by name (listing)"},
	{"n, N", "next match (N: previous, pager)"},
	{"w", "wrap long lines on and off (pager)"},
	{"<, >", "scroll sideways when wrap is off (pager)"},
	{"r", "raw bytes as hex, and back to the text (pager)"},
	{"=", "URL and Gopher+ attributes of the item"},
	{"d", "download the item into the download directory"},
	{"a", "add a bookmark for the item (or the page)"},
	{"v", "view the bookmarks"},
	{"Esc", "cancel a fetch, a prompt or a form"},
	{"Tab", "next field of a form"},
	{"?, h, F1", "this help"},
	{"q, Ctrl-C", "quit"},
}

// helpText is the help page.
func helpText() string {
	var b strings.Builder
	b.WriteString("gofer browse: keys\n\n")
	for _, k := range keys {
		b.WriteString("  ")
		b.WriteString(k[0])
		b.WriteString(strings.Repeat(" ", max(1, 24-len(k[0]))))
		b.WriteString(k[1])
		b.WriteString("\n")
	}
	b.WriteString("\nSearch items (type 7) ask for their words; Gopher+ items marked ? open a form.\n")
	b.WriteString("Binary items and images are saved in the download directory, never over an existing file.\n")
	b.WriteString("telnet and tn3270 items suspend the browser for the session.\n")
	b.WriteString("Gemini pages show one row a line, their links to open; an input page asks on the bottom line;\n")
	b.WriteString("a server whose certificate changed asks y (pin the new one) or n (refuse it).\n")
	return b.String()
}

func (b *Browser) showHelp() {
	if b.cur != nil && b.cur.title == "Help" && b.cur.req.URL == "" {
		return
	}
	b.push(&page{title: "Help", kind: kindText, text: []byte(helpText()), match: -1, wrap: true})
}
