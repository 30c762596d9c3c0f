package nntp

import (
	"github.com/goferurl/gofer/schemes"
)

// newLogin decides where AUTHINFO credentials come from (RFC 4643). A user
// in the URL, or a login for the host from netrc or flags, is given on
// purpose: it is sent as soon as the session is ready. Otherwise gofer logs
// in only when the server answers 480, and then only by asking the person
// at the terminal.
func newLogin(req *schemes.Request, host string) *login {
	u := req.URL
	if u.HasUser {
		return &login{upfront: true, get: func() (string, string, error) {
			if u.HasPassword {
				return u.User, u.Password, nil
			}
			if req.Credentials != nil {
				if user, password, ok := req.Credentials(host); ok && user == u.User {
					return user, password, nil
				}
			}
			if req.Prompt != nil {
				password, err := req.Prompt("Password for "+u.User+"@"+host+": ", true)
				return u.User, password, err
			}
			return "", "", schemes.NeedSetting(schemes.ErrAuth, "Credentials", "no password for %s on news server %s", u.User, host)
		}}
	}
	if req.Credentials != nil {
		if user, password, ok := req.Credentials(host); ok {
			return &login{upfront: true, get: func() (string, string, error) { return user, password, nil }}
		}
	}
	if req.Prompt != nil {
		return &login{get: func() (string, string, error) {
			user, err := req.Prompt("News server "+host+" requires a login. User: ", false)
			if err != nil {
				return "", "", err
			}
			password, err := req.Prompt("Password for "+user+"@"+host+": ", true)
			return user, password, err
		}}
	}
	return &login{}
}
