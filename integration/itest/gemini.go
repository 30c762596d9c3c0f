package itest

import "path/filepath"

// GeminiCertPath is the Gemini server's self-signed certificate (for
// IP 127.0.0.196 and DNS localhost), its own CA: the file to trust with
// --gemini-verify ca.
func GeminiCertPath() string { return filepath.Join(StateDir(), "tls", "gemini-cert.pem") }

// GeminiClientCertPath is a self-signed client certificate whose
// fingerprint the capsule's certificate zone, /private/, admits.
func GeminiClientCertPath() string { return filepath.Join(StateDir(), "tls", "gemini-client-cert.pem") }

// GeminiClientKeyPath is the private key of GeminiClientCertPath.
func GeminiClientKeyPath() string { return filepath.Join(StateDir(), "tls", "gemini-client-key.pem") }
