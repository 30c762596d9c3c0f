package mirror

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"hash/crc32"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/schemes"
)

// Proof by the server. Where the server hashes a file for the client (FTP
// HASH and its kin; the fetcher asks with the file, Response.Hash), the
// mirror computes the same algorithm over the bytes it writes and compares:
// bytes the server's checksum disowns are never installed under the
// file's name; they are fetched again from the start (Options.Retries
// times), then the file is a failure refused by the server's own word
// (schemes.ErrRefused), and a later run fetches it again. Summary.Verified
// counts the files proven, per algorithm; Summary.Unverified those
// transferred without a checksum to prove them.

// Options.Verify values.
const (
	// VerifyAuto ("" too) proves each file the server offers a checksum of.
	VerifyAuto = "auto"
	// VerifyAlways requires a proof: a file the server gives no checksum
	// of is a failure (schemes.ErrRefused), not kept.
	VerifyAlways = "always"
	// VerifyNever asks for no checksum.
	VerifyNever = "never"
)

// errMismatch says the bytes received are not those the server's
// checksum describes; errUnproven that a proof was required and the
// server gave none.
var (
	errMismatch = errors.New("the server's checksum does not match the bytes received")
	errUnproven = errors.New("the server gave no checksum of it to prove it by")
)

// serverHash is the hash to compute alongside sha256 for resp's checksum,
// nil when there is none to compare with.
func (e *engine) serverHash(resp *fetch.Response) hash.Hash {
	if e.opts.Verify == VerifyNever {
		return nil
	}
	return newHash(resp.Hash.Alg)
}

// newHash is a hash of the algorithm a server names (schemes.ServerHash),
// nil for one gofer does not compute.
func newHash(alg string) hash.Hash {
	switch alg {
	case "SHA-512":
		return sha512.New()
	case "SHA-256":
		return sha256.New()
	case "SHA-1":
		return sha1.New()
	case "MD5":
		return md5.New()
	case "CRC32":
		return crc32.NewIEEE()
	}
	return nil
}

// verify compares the bytes received (vh) with the server's checksum and
// counts the outcome.
func (e *engine) verify(j job, resp *fetch.Response, vh hash.Hash) error {
	if e.opts.Verify == VerifyNever {
		return nil
	}
	if vh == nil {
		if e.opts.Verify == VerifyAlways {
			return schemes.Errorf(schemes.ErrRefused, "%s: %w", j.URL, errUnproven)
		}
		e.count(&e.sum.Unverified)
		return nil
	}
	if got := hex.EncodeToString(vh.Sum(nil)); got != resp.Hash.Hex {
		return fmt.Errorf("%s: %s %s, the bytes received %s: %w", j.URL, resp.Hash.Alg, resp.Hash.Hex, got, errMismatch)
	}
	e.mu.Lock()
	e.sum.Verified++
	if e.sum.VerifyAlgorithms == nil {
		e.sum.VerifyAlgorithms = map[string]int64{}
	}
	e.sum.VerifyAlgorithms[resp.Hash.Alg]++
	e.mu.Unlock()
	return nil
}

// countRetryKind counts one try again of a kind retryKind does not name.
func (e *engine) countRetryKind(kind string) {
	e.mu.Lock()
	e.sum.Retries++
	if e.sum.RetriesByKind == nil {
		e.sum.RetriesByKind = map[string]int64{}
	}
	e.sum.RetriesByKind[kind]++
	e.mu.Unlock()
}
