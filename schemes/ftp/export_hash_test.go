package ftp

import "testing"

// NewFakeServerFacts starts a scripted server that lists with MLSD when
// mlst is set and adds feats (" HASH SHA-256*\r\n") to its FEAT reply,
// ended with t.
func NewFakeServerFacts(t testing.TB, mlst bool, feats string) *FakeServer {
	return &FakeServer{newFakeWith(t, func(f *fakeFTP) { f.mlst, f.moreFeats = mlst, feats })}
}

// Sent returns the lines clients sent, each with its CR LF.
func (s *FakeServer) Sent() []string { return s.f.sent() }
