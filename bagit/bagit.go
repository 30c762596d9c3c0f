// Package bagit reads, checks and writes BagIt bags (RFC 8493).
//
// A bag is a directory holding a declaration (bagit.txt), a payload
// (data/), at least one payload manifest (manifest-ALG.txt: one line per
// payload file, its checksum then its path) and optional tag files:
// bag-info.txt (labelled metadata, among it Payload-Oxum, the payload's
// octet and file counts), fetch.txt (payload files still to be fetched)
// and tag manifests (tagmanifest-ALG.txt, checksums of the tag files).
//
// Validate checks any bag as RFC 8493 section 3 says a valid bag must be:
// the declaration's version and encoding, every manifest of every
// algorithm present (md5, sha1, sha256, sha512), each payload file
// listed in every payload manifest and each listed file present, every
// checksum, the tag manifests, the Payload-Oxum when there is one, and
// the files fetch.txt names. Problems are reported one at a time, each
// naming the file and what is wrong. Files are hashed as they are read
// (io.Reader), every algorithm in one pass, so memory does not grow with
// file sizes; what it holds grows with the number of manifest lines.
//
// Paths in manifests and fetch.txt are percent-encoded where RFC 8493
// section 2.1.3 says they must be: CR as %0D, LF as %0A and '%' as %25.
// EncodePath and DecodePath convert.
//
// The writing half (WriteDeclaration, WriteManifest, WriteBagInfo,
// WriteTagManifest) writes each tag file atomically: into a temporary
// file in the bag's directory, renamed over the old one, so a reader never
// sees half a manifest.
package bagit

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"hash"
	"strings"
)

// Version is the BagIt version this package writes.
const Version = "1.0"

// Names of the tag files and of the payload directory.
const (
	DeclarationFile = "bagit.txt"
	BagInfoFile     = "bag-info.txt"
	FetchFile       = "fetch.txt"
	PayloadDir      = "data"
)

// Algorithms are the checksum algorithms a manifest may use, as their
// manifest names spell them, strongest first.
var Algorithms = []string{"sha512", "sha256", "sha1", "md5"}

// NewHash returns a hash for a manifest algorithm name, nil for one this
// package does not know.
func NewHash(alg string) hash.Hash {
	switch alg {
	case "sha512":
		return sha512.New()
	case "sha256":
		return sha256.New()
	case "sha1":
		return sha1.New()
	case "md5":
		return md5.New()
	}
	return nil
}

// ManifestName and TagManifestName name the manifests of an algorithm.
func ManifestName(alg string) string    { return "manifest-" + alg + ".txt" }
func TagManifestName(alg string) string { return "tagmanifest-" + alg + ".txt" }

// EncodePath percent-encodes a path for a manifest or fetch.txt line:
// '%' as %25, LF as %0A, CR as %0D (RFC 8493 section 2.1.3).
func EncodePath(p string) string {
	if !strings.ContainsAny(p, "%\r\n") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '%':
			b.WriteString("%25")
		case '\n':
			b.WriteString("%0A")
		case '\r':
			b.WriteString("%0D")
		default:
			b.WriteByte(p[i])
		}
	}
	return b.String()
}

// DecodePath reverses EncodePath. Only %25, %0A and %0D are decoded (in
// either case of hex digit); any other '%' stays as it is, as RFC 8493
// asks of a reader meeting a bag written before the encoding was required.
func DecodePath(p string) string {
	if !strings.Contains(p, "%") {
		return p
	}
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			switch strings.ToUpper(p[i+1 : i+3]) {
			case "25":
				b.WriteByte('%')
				i += 2
				continue
			case "0A":
				b.WriteByte('\n')
				i += 2
				continue
			case "0D":
				b.WriteByte('\r')
				i += 2
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}
