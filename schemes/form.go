package schemes

// Former is implemented by a Response.Info that carries a form the server
// asks a person to fill before it answers (a Gopher+ item's +ASK block,
// Gopher+ §2.8). Form returns nil when the Info holds none. A user
// interface draws the form through it without knowing the scheme's Info
// type, and sends the answers back as Request.Form, "N=VALUE" with N a
// field's Position.
type Former interface {
	Form() *Form
}

// Form is a form as a person sees it: its fields in the server's order.
type Form struct {
	Fields []FormField
}

// FieldKind says how a field is answered, and so how it is drawn.
type FieldKind int

// Field kinds. Gopher+ Ask, AskF and ChooseF are FieldLine, AskP
// FieldSecret, AskL FieldLines, Choose (and Select with choices)
// FieldChoice, Select FieldCheck, Note FieldNote.
const (
	FieldLine   FieldKind = iota // one line of text
	FieldSecret                  // one line, not echoed
	FieldLines                   // several lines
	FieldChoice                  // one of Choices
	FieldCheck                   // yes or no: "1" or "0"
	FieldNote                    // text for the person; no answer
)

// FormField is one field of a Form.
type FormField struct {
	Kind     FieldKind
	Question string
	// Default is the answer when none is given.
	Default string
	Choices []string
	// Position is the field's 1-based number among the fields that take an
	// answer; 0 for a FieldNote.
	Position int
}
