package ftp

import (
	"net"
	"strconv"

	"github.com/goferurl/gofer/schemes"
)

// DirTimesProbe reports what the probe of the server at host and port
// with MDTM of a directory found (Fetcher.DirTimes, Request.DirTimes):
// answers when it gave the directory's time, probed false when it has not
// been probed by this Fetcher or told of an earlier probe.
func (f *Fetcher) DirTimesProbe(host string, port int) (answers, probed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	answers, probed = f.dirMDTM[net.JoinHostPort(host, strconv.Itoa(port))]
	return answers, probed
}

// SetDirTimesProbe records what an earlier probe of the server at host and
// port found (a mirror's state keeps it): where it answered, directories'
// MDTMs go out with no probe first; where it refused, none is sent.
func (f *Fetcher) SetDirTimesProbe(host string, port int, answers bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.dirMDTM == nil {
		f.dirMDTM = map[string]bool{}
	}
	f.dirMDTM[net.JoinHostPort(host, strconv.Itoa(port))] = answers
}

var _ schemes.DirTimesProber = (*Fetcher)(nil)
