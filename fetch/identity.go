package fetch

import (
	"strings"

	"github.com/jdx/go-netrc"

	"github.com/goferurl/gofer/schemes"
)

// netrcFile holds the logins of a netrc file.
type netrcFile struct {
	machines []netrcMachine
}

type netrcMachine struct {
	name, login, password string
	isDefault             bool
}

// loadNetrc reads path ("" means no file).
func loadNetrc(path string) (nf *netrcFile, err error) {
	if path == "" {
		return nil, nil
	}
	// The parser indexes past the end on a truncated "machine" line; such a
	// file is malformed, not a reason to crash.
	defer func() {
		if recover() != nil {
			nf, err = nil, schemes.Errorf(schemes.ErrUsage, "netrc file %s is malformed", path)
		}
	}()
	n, err := netrc.Parse(path)
	if err != nil {
		return nil, schemes.Errorf(schemes.ErrUsage, "netrc file: %w", err)
	}
	nf = &netrcFile{}
	for _, m := range n.Machines() {
		nf.machines = append(nf.machines, netrcMachine{
			name: m.Name, login: m.Get("login"), password: m.Get("password"), isDefault: m.IsDefault,
		})
	}
	return nf, nil
}

// login returns the login for host: its "machine" entry, else "default".
func (nf *netrcFile) login(host string) (user, password string, ok bool) {
	var def *netrcMachine
	for i := range nf.machines {
		m := &nf.machines[i]
		if m.isDefault {
			if def == nil {
				def = m
			}
			continue
		}
		if strings.EqualFold(m.name, host) {
			return m.login, m.password, m.login != ""
		}
	}
	if def != nil {
		return def.login, def.password, def.login != ""
	}
	return "", "", false
}
