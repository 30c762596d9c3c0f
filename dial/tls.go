package dial

import "crypto/tls"

// TLSConfig returns a copy of base (nil: the system's defaults) for a TLS
// client connection to host: the server name is host unless base names one.
func TLSConfig(base *tls.Config, host string) *tls.Config {
	cfg := &tls.Config{}
	if base != nil {
		cfg = base.Clone()
	}
	if cfg.ServerName == "" {
		cfg.ServerName = host
	}
	return cfg
}
