package gemini

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/goferurl/gofer/schemes"
)

// identityFile is where an identity for server lives under dir: one PEM
// file holding the certificate and its key, named after host and port.
func identityFile(dir, server string) string {
	return filepath.Join(dir, strings.ReplaceAll(server, "/", "_")+".pem")
}

// storedIdentity reads server's identity from the Identities directory;
// nil when there is none (or no directory).
func (f *Fetcher) storedIdentity(server string) *tls.Certificate {
	if f.Identities == "" {
		return nil
	}
	data, err := os.ReadFile(identityFile(f.Identities, server))
	if err != nil {
		return nil
	}
	cert, err := tls.X509KeyPair(data, data)
	if err != nil {
		return nil
	}
	return &cert
}

// CertRequiredError is a server's 60: it asks for a client certificate
// and none was offered to it. It is the contract's, and matches
// schemes.ErrAuth; its NewIdentity makes one for that server (newIdentityFor),
// as Gemini clients do on a person's word.
type CertRequiredError = schemes.CertRequiredError

// certRequired is the error for a 60 from server, whose NewIdentity makes
// a new client certificate for the server (a self-signed ECDSA P-256
// certificate, valid ten years), offers it to that server from now on,
// and keeps it in the Fetcher's Identities directory when it has one, so
// that later runs offer it too.
func (f *Fetcher) certRequired(server, prompt string) *CertRequiredError {
	return schemes.NewCertRequiredError("gemini", server, "60", prompt, func() error {
		cert, pemData, err := newIdentity(server, time.Now())
		if err != nil {
			return err
		}
		if dir := f.Identities; dir != "" {
			if err := os.MkdirAll(dir, 0o700); err != nil {
				return fmt.Errorf("identities: %w", err)
			}
			if err := os.WriteFile(identityFile(dir, server), pemData, 0o600); err != nil {
				return fmt.Errorf("identities: %w", err)
			}
		}
		f.SetIdentity(server, cert)
		return nil
	})
}

// newIdentity makes a self-signed client certificate named after server,
// and returns it with its PEM form (certificate, then key).
func newIdentity(server string, now time.Time) (*tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "gofer identity for " + server},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.AddDate(10, 0, 0),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kder, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	pemData := append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kder})...)
	cert, err := tls.X509KeyPair(pemData, pemData)
	if err != nil {
		return nil, nil, err
	}
	return &cert, pemData, nil
}
