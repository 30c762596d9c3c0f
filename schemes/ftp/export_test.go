package ftp

import (
	"crypto/tls"
	"testing"
)

// FakeServer is the package's scripted server for the tests of package
// ftp_test, which reach the Fetcher through package fetch.
type FakeServer struct{ f *fakeFTP }

// NewFakeServer starts a scripted server, implicit FTPS when cfg is set,
// ended with t.
func NewFakeServer(t testing.TB, cfg *tls.Config) *FakeServer {
	return &FakeServer{newFakeWith(t, func(f *fakeFTP) { f.tls = cfg })}
}

// Port is the server's port on 127.0.0.1.
func (s *FakeServer) Port() int { return s.f.port() }

// AddFile serves content at the absolute path p.
func (s *FakeServer) AddFile(p, content string) { s.f.addFile(p, content) }

// Logins counts the logins the server has accepted.
func (s *FakeServer) Logins() int {
	s.f.mu.Lock()
	defer s.f.mu.Unlock()
	return s.f.logins
}

// AddListing answers verb ("LIST", "MLSD", "NLST") for the directory dir
// (an absolute path) with body, raw.
func (s *FakeServer) AddListing(verb, dir, body string) {
	s.f.listings[verb+" "+dir] = body
	s.f.dirs[dir] = true
}
