package schemes

// Viewer is implemented by a Response.Info that names the forms in which
// an item can be fetched (a Gopher+ item's +VIEWS block, Gopher+ A3.0).
// Views returns nil when the Info names none. A user interface offers
// each view through it without knowing the scheme's Info type; a view is
// fetched by the item's URL with the view's Plus string as its Gopher+
// string.
type Viewer interface {
	Views() []ItemView
}

// ItemView is one form an item can be fetched in.
type ItemView struct {
	// MediaType is the view's MIME type; Language its language
	// ("En_US"), "" when none is given.
	MediaType string
	Language  string
	// Size is the advertised size in bytes, -1 when not given.
	Size int64
	// Plus is the Gopher+ string that asks for the view
	// ("+application/pdf Es_ES").
	Plus string
}
