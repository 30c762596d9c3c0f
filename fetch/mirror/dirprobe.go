package mirror

import "github.com/goferurl/gofer/schemes"

// Directory times to the second. A LIST line dates a directory to the
// minute or the day; a server that answers MDTM (RFC 3659 §3) for a
// directory too (Twisted does) dates it to the second, in UTC. Every
// listing the mirror reads asks for that (fetch.Request.DirTimes), and
// setDirTimes gives each directory the time so learned. The fetcher
// probes a server once, with the first directory's MDTM; what the probe
// found is kept in the state, per server, and told to the fetcher before
// the next run's first request, so that no later run probes again: where
// the server answered, a listing's directories' MDTMs go out in one batch
// with no probe before them; where it refused, no directory's MDTM is
// ever sent again.

// dirProbeKey is the state's key of what a server answered to MDTM of a
// directory.
func dirProbeKey(u *schemes.URL) string { return serverKey("dirtimes", u) }

// loadDirProbe tells the fetcher of u's scheme what an earlier run's probe
// of u's server found.
func (e *ftpWalker) loadDirProbe(u *schemes.URL) {
	if answers, ok := getJSON[bool](e.st, bucketMeta, dirProbeKey(u)); ok {
		e.c.SetDirTimesProbe(u.Scheme, u.Host, u.EffectivePort(), answers)
		e.logf("server dates directories to the second: %v (probed before)", answers)
	}
}

// saveDirProbe keeps what the fetcher's probe of u's server found, when
// the state does not hold it yet.
func (e *ftpWalker) saveDirProbe(u *schemes.URL) {
	if e.st == nil || e.opts.DryRun {
		return
	}
	answers, probed := e.c.DirTimesProbe(u.Scheme, u.Host, u.EffectivePort())
	if !probed {
		return
	}
	if kept, ok := getJSON[bool](e.st, bucketMeta, dirProbeKey(u)); ok && kept == answers {
		return
	}
	e.st.write(bucketMeta, dirProbeKey(u), answers)
	e.logf("server dates directories to the second: %v (probed with MDTM)", answers)
}
