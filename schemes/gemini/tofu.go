package gemini

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// KnownHosts pins the certificate each Gemini server first presented
// (trust on first use). With a Path the pins live in that file, one line
// per server:
//
//	HOST:PORT SHA256:HEX EXPIRY
//
// EXPIRY being the certificate's NotAfter in RFC 3339; lines starting with
// '#' are comments. Every check holds an exclusive lock on PATH.lock while
// it reads and, if it pins anything, replaces the file (written aside and
// renamed), so concurrent processes neither lose nor tear each other's
// pins. With no Path the pins live in memory for the process's life.
type KnownHosts struct {
	Path string

	mu  sync.Mutex
	mem map[string]Pin
}

// Pin is one server's pinned certificate: the contract's CertPin.
type Pin = schemes.CertPin

// Fingerprint is the fingerprint a certificate is pinned by.
func Fingerprint(cert *x509.Certificate) string {
	sum := sha256.Sum256(cert.Raw)
	return "SHA256:" + hex.EncodeToString(sum[:])
}

// CertChangedError is a server that presented another certificate than
// the one pinned for it, which has not expired: the contract's, so that a
// program that asks a person about it needs no gemini import. It matches
// schemes.ErrConnect: no request was sent. Its Accept pins the new
// certificate in place of the old one.
type CertChangedError = schemes.CertChangedError

// check applies trust on first use to the certificate server presented:
// the first one seen is pinned; the pinned one passes; another passes
// only when acceptNew is set or the pinned one has expired (it is then
// pinned instead, and note says so). now is the time of the check.
func (k *KnownHosts) check(server string, cert *x509.Certificate, acceptNew bool, now time.Time) (note string, err error) {
	got := Pin{Fingerprint: Fingerprint(cert), Expires: cert.NotAfter}
	var changed *CertChangedError
	err = k.update(func(pins map[string]Pin) bool {
		old, ok := pins[server]
		switch {
		case !ok:
			pins[server] = got
			return true
		case old.Fingerprint == got.Fingerprint:
			if !old.Expires.Equal(got.Expires) {
				pins[server] = got
				return true
			}
			return false
		case acceptNew:
			note = fmt.Sprintf("gemini server %s presented a new certificate %s; pinned it in place of %s as asked", server, got.Fingerprint, old.Fingerprint)
		case now.After(old.Expires):
			note = fmt.Sprintf("gemini server %s presented a new certificate %s; the one pinned (%s) expired on %s, so the new one is pinned",
				server, got.Fingerprint, old.Fingerprint, old.Expires.UTC().Format(time.DateOnly))
		default:
			changed = schemes.NewCertChangedError("gemini", server, old, got, k.Path, func() error { return k.Replace(server, got) })
			return false
		}
		pins[server] = got
		return true
	})
	if err != nil {
		return "", err
	}
	if changed != nil {
		return "", changed
	}
	return note, nil
}

// Replace pins p for server whatever was pinned before.
func (k *KnownHosts) Replace(server string, p Pin) error {
	return k.update(func(pins map[string]Pin) bool {
		pins[server] = p
		return true
	})
}

// Lookup returns what is pinned for server.
func (k *KnownHosts) Lookup(server string) (Pin, bool, error) {
	var p Pin
	var ok bool
	err := k.update(func(pins map[string]Pin) bool {
		p, ok = pins[server]
		return false
	})
	return p, ok, err
}

// update runs fn on the pins under the lock; fn reports whether it changed
// them, and then they are written back.
func (k *KnownHosts) update(fn func(map[string]Pin) bool) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.Path == "" {
		if k.mem == nil {
			k.mem = map[string]Pin{}
		}
		fn(k.mem)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(k.Path), 0o700); err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	unlock, err := lockFile(k.Path + ".lock")
	if err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	defer unlock()
	data, err := os.ReadFile(k.Path)
	if err != nil && !os.IsNotExist(err) {
		return fmt.Errorf("known hosts: %w", err)
	}
	pins, order := parseKnownHosts(data)
	if !fn(pins) {
		return nil
	}
	return writeKnownHosts(k.Path, pins, order)
}

// parseKnownHosts reads the file's pins, and the order of its servers so
// that a rewrite keeps it. A line it cannot read is skipped.
func parseKnownHosts(data []byte) (map[string]Pin, []string) {
	pins := map[string]Pin{}
	var order []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		t, err := time.Parse(time.RFC3339, f[2])
		if err != nil {
			continue
		}
		if _, dup := pins[f[0]]; !dup {
			order = append(order, f[0])
		}
		pins[f[0]] = Pin{Fingerprint: f[1], Expires: t}
	}
	return pins, order
}

// writeKnownHosts writes the pins aside and renames the file into place,
// so a reader never sees half of it.
func writeKnownHosts(path string, pins map[string]Pin, order []string) error {
	var b bytes.Buffer
	b.WriteString("# gofer: Gemini servers' certificates, pinned at first use\n")
	seen := map[string]bool{}
	write := func(s string) {
		p := pins[s]
		fmt.Fprintf(&b, "%s %s %s\n", s, p.Fingerprint, p.Expires.UTC().Format(time.RFC3339))
		seen[s] = true
	}
	for _, s := range order {
		if _, ok := pins[s]; ok {
			write(s)
		}
	}
	for s := range pins {
		if !seen[s] {
			write(s)
		}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".known_hosts-*")
	if err != nil {
		return fmt.Errorf("known hosts: %w", err)
	}
	if _, err := tmp.Write(b.Bytes()); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("known hosts: %w", err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("known hosts: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("known hosts: %w", err)
	}
	return nil
}

// DefaultKnownHosts is where a person's pins live:
// $XDG_CONFIG_HOME/gofer/known_hosts, or ~/.config/gofer/known_hosts.
// It reads the environment; a program that wants its own file sets
// KnownHosts.Path itself.
func DefaultKnownHosts() (string, error) {
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "gofer", "known_hosts"), nil
}
