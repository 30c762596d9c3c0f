//go:build !unix

package gemini

// lockFile is a no-op where there is no flock: pins are still written
// aside and renamed into place, so a file is never torn.
func lockFile(path string) (func(), error) { return func() {}, nil }
