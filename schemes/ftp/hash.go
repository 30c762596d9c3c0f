package ftp

import (
	"encoding/hex"
	"strings"

	"github.com/goferurl/gofer/schemes"
)

// Server-side checksums. Many servers hash a file for the client, so that
// a copy can be proved without reading it back:
//
//   - HASH (the IETF draft draft-bryan-ftp-hash), announced in FEAT as
//     "HASH SHA-256;SHA-1*;MD5" (the '*' marks the algorithm in use,
//     changed with "OPTS HASH ALG"), answered "213 ALG START-END HEX NAME";
//   - XSHA512, XSHA256, XSHA1, XMD5 and XCRC (ProFTPD's mod_digest,
//     FileZilla Server, Serv-U), answered "250 HEX" or "213 HEX";
//   - MD5 (the draft draft-twine-ftpmd5), answered "251 NAME HEX".
//
// When Request.Hash asks for it (a resumed transfer too: the hash is of
// the whole file), the strongest hash the server offers is
// asked for with the file's other metadata, before the RETR, so that with
// pipelining it costs no round trip: SHA-512, then SHA-256, SHA-1, MD5 and
// CRC32; at one strength HASH before the X-commands, and no X-command for
// a name holding a space (some servers take only its first word). A reply
// in no form above leaves the hash unknown; the transfer goes on.

// Some servers write a file's hash among its MLSD facts (RFC 3659 §7 lets
// a server add facts of its own, "x." ones among them), which costs no
// command at all: "x.sha256=HEX", "x.sha1=HEX", "x.md5=HEX" and their kin,
// "x.hash=ALG:HEX", and the HASH draft's "hash=ALG:HEX". hashFact reads
// them; a value in no such form is left unread.

// factAlgs names the algorithm of each "x." fact.
var factAlgs = map[string]string{
	"x.sha512": "SHA-512", "x.sha-512": "SHA-512",
	"x.sha256": "SHA-256", "x.sha-256": "SHA-256",
	"x.sha1": "SHA-1", "x.sha-1": "SHA-1",
	"x.md5":   "MD5",
	"x.crc32": "CRC32", "x.crc": "CRC32",
}

// hashFact reads one MLSD fact (name k, value v) that carries a hash.
func hashFact(k, v string) (schemes.ServerHash, bool) {
	k = strings.ToLower(k)
	alg, hexv := factAlgs[k], v
	if k == "hash" || k == "x.hash" {
		a, d, ok := strings.Cut(v, ":")
		if !ok {
			return schemes.ServerHash{}, false
		}
		alg, hexv = strings.ToUpper(a), d
	}
	for _, a := range hashAlgs {
		if a.alg == alg {
			if d := digest(hexv, a.digits); d != "" {
				return schemes.ServerHash{Alg: alg, Hex: d}, true
			}
		}
	}
	return schemes.ServerHash{}, false
}

// stronger reports whether algorithm a ranks above b ("" ranks last).
func stronger(a, b string) bool {
	for _, x := range hashAlgs {
		switch x.alg {
		case b:
			return false
		case a:
			return true
		}
	}
	return false
}

// hashFeatures is what FEAT said of checksums.
type hashFeatures struct {
	hash []string        // algorithms HASH offers, upper case
	cur  string          // the one HASH uses now
	cmds map[string]bool // XSHA512, XSHA256, XSHA1, XMD5, XCRC, MD5
}

// hashAlgs are the algorithms, strongest first, with the X-command for
// each and its digest length in hexadecimal digits.
var hashAlgs = []struct {
	alg, cmd string
	digits   int
}{
	{"SHA-512", "XSHA512", 128},
	{"SHA-256", "XSHA256", 64},
	{"SHA-1", "XSHA1", 40},
	{"MD5", "XMD5", 32},
	{"CRC32", "XCRC", 8},
}

// note reads one FEAT line's words.
func (h *hashFeatures) note(f []string) {
	name := strings.ToUpper(f[0])
	switch name {
	case "HASH":
		if len(f) < 2 {
			return
		}
		h.hash = nil
		for a := range strings.SplitSeq(f[1], ";") {
			a = strings.ToUpper(strings.TrimSpace(a))
			if cur, ok := strings.CutSuffix(a, "*"); ok {
				a, h.cur = cur, cur
			}
			if a != "" {
				h.hash = append(h.hash, a)
			}
		}
	case "XSHA512", "XSHA256", "XSHA1", "XMD5", "XCRC", "MD5":
		if h.cmds == nil {
			h.cmds = map[string]bool{}
		}
		h.cmds[name] = true
	}
}

// hashSteps adds the commands that ask the server for the file's hash.
func (r *retrieval) hashSteps() {
	if !r.req.Hash {
		return
	}
	r.steps = append(r.steps, r.c.hashSteps(r.name, func(h schemes.ServerHash) { r.hash = h })...)
}

// offersHash reports whether c's server offers a hash in any form.
func (c *conn) offersHash() bool {
	return len(c.hashes.hash) > 0 || len(c.hashes.cmds) > 0
}

// hashSteps are the commands that ask c's server for the strongest hash
// it offers of the file name (in the connection's directory), set called
// with the answer; none when it offers none that can name it.
func (c *conn) hashSteps(name string, set func(schemes.ServerHash)) []step {
	h := &c.hashes
	for _, a := range hashAlgs {
		switch {
		case contains(h.hash, a.alg):
			var steps []step
			if h.cur != a.alg {
				alg := a.alg
				steps = append(steps, step{line: "OPTS HASH " + alg, then: func(code int, _ string) error {
					if code/100 == 2 {
						h.cur = alg
					}
					return nil
				}})
				// Asked once per connection, whatever the answer.
				h.cur = alg
			}
			return append(steps, step{line: "HASH " + name, then: func(code int, msg string) error {
				if code/100 == 2 {
					if sh := parseHASH(msg); sh.Alg != "" {
						set(sh)
					}
				}
				return nil
			}})
		case strings.Contains(name, " "):
			// An X-command's argument may be cut at its first space.
		case h.cmds[a.cmd] || (a.alg == "MD5" && h.cmds["MD5"]):
			cmd, alg, digits := a.cmd, a.alg, a.digits
			if !h.cmds[cmd] {
				cmd = "MD5"
			}
			return []step{{line: cmd + " " + name, then: func(code int, msg string) error {
				if code/100 == 2 {
					if d := lastDigest(msg, digits); d != "" {
						set(schemes.ServerHash{Alg: alg, Hex: d})
					}
				}
				return nil
			}}}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// parseHASH reads "ALG START-END HEX NAME", the last line of a reply
// that may begin with others (ProFTPD's "213-Computing SHA-512 digest"):
// the hash of the whole file only (START 0; a range HASH could be asked
// for does not prove a file).
func parseHASH(msg string) schemes.ServerHash {
	lines := strings.Split(strings.TrimSpace(msg), "\n")
	last := lines[len(lines)-1]
	if len(last) > 4 && (last[3] == ' ' || last[3] == '-') && strings.Trim(last[:3], "0123456789") == "" {
		last = last[4:]
	}
	f := strings.Fields(last)
	if len(f) < 3 || !strings.HasPrefix(f[1], "0-") {
		return schemes.ServerHash{}
	}
	alg := strings.ToUpper(f[0])
	for _, a := range hashAlgs {
		if a.alg == alg {
			if d := digest(f[2], a.digits); d != "" {
				return schemes.ServerHash{Alg: alg, Hex: d}
			}
		}
	}
	return schemes.ServerHash{}
}

// lastDigest finds the digest in an X-command's or MD5's reply: the last
// word that is one.
func lastDigest(msg string, digits int) string {
	f := strings.Fields(msg)
	for i := len(f) - 1; i >= 0; i-- {
		if d := digest(f[i], digits); d != "" {
			return d
		}
	}
	return ""
}

// digest is w in lower case when it is a digest of that many hex digits
// (a CRC of fewer: its leading zeros left out, put back).
func digest(w string, digits int) string {
	if len(w) > digits || (len(w) != digits && digits != 8) || len(w) == 0 {
		return ""
	}
	w = strings.Repeat("0", digits-len(w)) + w
	if _, err := hex.DecodeString(w); err != nil {
		return ""
	}
	return strings.ToLower(w)
}
