package browse

// Browsing an archive (Config.Captured set, gofer browse --warc), every
// page comes from the captures its Client answers from, and each page's
// title says when it was captured; a link to what was not captured opens
// nothing, the Client's error saying "not captured" on the status line.

// offline reports whether the browser is browsing an archive.
func (b *Browser) offline() bool { return b.cfg.Captured != nil }

// opens reports whether the browser opens URLs of scheme itself: an
// archive's captured web pages too, in the pager, as text.
func (b *Browser) opens(scheme string) bool {
	return browsed(scheme) || b.offline() && (scheme == "http" || scheme == "https")
}

// capturedNote is what a page's title says of its capture, "" when the
// browser is not browsing an archive or the archive does not know.
func (b *Browser) capturedNote(url string) string {
	if !b.offline() || url == "" {
		return ""
	}
	t, ok := b.cfg.Captured(url)
	if !ok {
		return ""
	}
	return "captured " + t.UTC().Format("2006-01-02 15:04") + " UTC"
}
