package ftp

import (
	"context"

	"github.com/goferurl/gofer/schemes"
)

// openSpares opens up to n more connections to key's server, each in a
// goroutine of its own, logged in and gone to dirs with a passive command
// read ahead (its data connection dialled), and keeps them for the fetches
// that follow (Request.Spare): a mirror's workers then find their
// connections ready when the first listing ends, instead of logging in one
// after another once it has. Fetch opens them once the server has greeted
// its own connection, so that they log in alongside it; a spare sends PASS
// with USER (Fetcher.landing). A spare goes only where the server's known
// limit leaves room, never waits for one, and is dropped on any failure (a
// busy server's refusal teaches its limit as it would a fetch's). While
// spares log in, a fetch that finds no kept connection waits for one of them
// rather than open another (reserve).
func (f *Fetcher) openSpares(ctx context.Context, req *schemes.Request, key poolKey, who login, dirs []string, n int) {
	server := key.server()
	for range n {
		if !f.reserveSpare(server) {
			return
		}
		go func() {
			c, err := f.openLogin(ctx, req, key, who, f.landing(key, who, dirs, true, true))
			f.mu.Lock()
			f.serverSlots(server).spares--
			f.mu.Unlock()
			if err != nil {
				held := f.unreserve(server)
				if schemes.Busy(err) && ctx.Err() == nil {
					f.refused(req, server, held, err, true)
				}
				return
			}
			c.release = f.releaser(server)
			// Kept, it outlives ctx (the fetch that asked for it): the
			// watch that ends it with ctx is dropped, as a fetch's is.
			c.ctrl.Watch(context.Background())()
			f.put(c)
		}()
	}
}

// reserveSpare counts a spare connection about to be opened to server, if
// its limit leaves room and the pool has room to keep it.
func (f *Fetcher) reserveSpare(server string) bool {
	max := f.MaxIdle
	if max <= 0 {
		max = DefaultMaxIdle
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	s := f.serverSlots(server)
	if f.closed || f.nidle >= max || (s.limit > 0 && s.open >= s.limit) {
		return false
	}
	s.open++
	s.spares++
	return true
}
