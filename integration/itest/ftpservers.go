package itest

import (
	"os"
	"path/filepath"
	"testing"
)

// The ftpmore servers (integration/lib/ftpmore.sh): port 21 each, all
// serving FTPMoreDir. The same facts as integration/lib/common.sh.
const (
	ProFTPDHost          = "127.0.0.31" // ProFTPD 1.3.8: MLSD, AUTH TLS
	PureFTPdHost         = "127.0.0.32" // Pure-FTPd 1.0.50: MLSD, AUTH TLS
	BSDFTPdHost          = "127.0.0.33" // inetutils ftpd 2.4 behind socat: LIST only
	PyftpdlibHost        = "127.0.0.34" // pyftpdlib 1.5.7: MLSD
	TwistedFTPHost       = "127.0.0.35" // Twisted 22.4 FTP: LIST only, PASV only
	ProFTPDLimitedHost   = "127.0.0.36" // ProFTPD with MaxClientsPerHost 2
	PureFTPdLimitedHost  = "127.0.0.37" // Pure-FTPd with -C 2 (two connections per address)
	FTPMoreLimitPerHost  = 2            // connections the limited instances allow one address
	ftpMoreTreeFromState = "srv/ftpmore"
)

// FTPMoreDir is the tree every ftpmore server shows as its root: archive/
// (hard links to ArchiveDir), links/ (symlinks of every kind) and
// scratch/ (world-writable; a test makes its own subdirectory there).
func FTPMoreDir() string { return filepath.Join(StateDir(), ftpMoreTreeFromState) }

// FTPMoreScratch is a directory of t's own in the ftpmore servers' tree,
// at scratch/TESTNAME, empty when the test starts and removed when it
// ends.
func FTPMoreScratch(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(FTPMoreDir(), "scratch", t.Name())
	os.RemoveAll(dir)
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// FTPMoreCertPath is the self-signed certificate of the ftpmore servers
// that offer AUTH TLS (its own CA, naming 127.0.0.31-37).
func FTPMoreCertPath() string { return filepath.Join(StateDir(), "tls", "ftpmore-cert.pem") }

// FTPServer is what one real FTP server of the harness is and does, as
// seen on loopback (integration/LAYOUT.md has the details).
type FTPServer struct {
	Name     string // short name, used in test names: "vsftpd", "proftpd", ...
	Software string // server and version
	Host     string // loopback address; the port is 21
	// Root is the local directory the server shows as "/" (its anonymous
	// root): archive/ and scratch/ are under it, and links/ where Links.
	Root string
	// Log is its log file in LogDir: every command (vsftpd, ProFTPD,
	// pyftpdlib, Twisted), transfers only (Pure-FTPd), or "" (inetutils
	// ftpd logs to syslog only).
	Log string

	MLSD bool // MLSD and MLST (exact times, facts)
	MDTM bool
	FEAT bool
	EPSV bool
	// TLS: AUTH TLS offered, with CertFile as the CA to trust.
	TLS      bool
	CertFile string
	// Rest: REST STREAM is implemented; ASCIIRest: also in TYPE A
	// (ProFTPD and pyftpdlib refuse it there with 501).
	Rest      bool
	ASCIIRest bool
	// ASCIIEveryLF: TYPE A turns every LF into CR LF, even one already
	// after a CR, so a CR LF file arrives as CR CR LF. vsftpd sends TYPE A
	// as it is on disk (ascii_download_enable is off).
	ASCIIEveryLF bool
	ASCIIRaw     bool // TYPE A downloads are sent unchanged
	// TypeABroken: RETR in TYPE A answers 125, then "550 Requested action
	// not taken: internal server error", and leaves the data connection
	// open (Twisted 22.4: its file sender raises, see log/twisted-ftp.out).
	TypeABroken bool
	// Links says whether links/ is served, and Symlinks how its listings
	// show symlinks.
	Links    bool
	Symlinks string
	// LimitPerHost: connections one client address may hold (0: no limit).
	LimitPerHost int
}

// FTPServers lists every FTP server the harness runs on port 21: vsftpd
// (service ftp) and the ftpmore ones.
func FTPServers() []FTPServer {
	more := FTPMoreDir()
	cert := FTPMoreCertPath()
	return []FTPServer{
		{Name: "vsftpd", Software: "vsftpd 3.0.3", Host: FTPHost, Root: StateDir(), Log: "vsftpd.log",
			MDTM: true, FEAT: true, EPSV: true, TLS: true, CertFile: CertPath(), Rest: true, ASCIIRest: true, ASCIIRaw: true},
		{Name: "proftpd", Software: "ProFTPD 1.3.8", Host: ProFTPDHost, Root: more, Log: "proftpd.log",
			MLSD: true, MDTM: true, FEAT: true, EPSV: true, TLS: true, CertFile: cert, Rest: true, Links: true,
			Symlinks: "LIST shows 2.3, abs-out, current, dangling and file-link.txt (as `l` entries with targets) and leaves out loop, up and rel-out; MLSD shows the links inside the served tree as type=OS.unix=symlink and leaves out abs-out and dangling"},
		{Name: "pure-ftpd", Software: "Pure-FTPd 1.0.50", Host: PureFTPdHost, Root: more, Log: "pure-ftpd.log",
			MLSD: true, MDTM: true, FEAT: true, EPSV: true, TLS: true, CertFile: cert, Rest: true, ASCIIRest: true, ASCIIEveryLF: true, Links: true,
			Symlinks: "LIST shows every link as an `l` entry with its target; MLSD as type=OS.unix=slink:TARGET; chrooted, so abs-out dangles"},
		{Name: "inetutils-ftpd", Software: "inetutils ftpd 2.4", Host: BSDFTPdHost, Root: more,
			MDTM: true, FEAT: true, EPSV: true, Rest: true, ASCIIRest: true, ASCIIEveryLF: true, Links: true,
			Symlinks: "LIST (ls -l) shows every link as an `l` entry with its target; chrooted"},
		{Name: "pyftpdlib", Software: "pyftpdlib 1.5.7", Host: PyftpdlibHost, Root: more, Log: "pyftpdlib.out",
			MLSD: true, MDTM: true, FEAT: true, EPSV: true, Rest: true, Links: true,
			Symlinks: "LIST shows `l` entries; MLSD shows each link as its target's type (dir or file, abs-out and rel-out included) and CWD follows links, so loop -> . is an endless tree of directories"},
		{Name: "twisted", Software: "Twisted 22.4 FTP", Host: TwistedFTPHost, Root: more, Log: "twisted-ftp.out",
			MDTM: true, FEAT: true, TypeABroken: true, Links: true,
			Symlinks: "LIST of a directory holding a dangling link fails: 550 NAME: No such file or directory"},
		{Name: "proftpd-limited", Software: "ProFTPD 1.3.8, MaxClientsPerHost 2", Host: ProFTPDLimitedHost, Root: more,
			Log: "proftpd-limited.log", MLSD: true, MDTM: true, FEAT: true, EPSV: true, TLS: true, CertFile: cert, Rest: true, Links: true,
			LimitPerHost: FTPMoreLimitPerHost},
		{Name: "pure-ftpd-limited", Software: "Pure-FTPd 1.0.50, -C 2", Host: PureFTPdLimitedHost, Root: more,
			Log: "pure-ftpd-limited.log", MLSD: true, MDTM: true, FEAT: true, EPSV: true, TLS: true, CertFile: cert,
			Rest: true, ASCIIRest: true, ASCIIEveryLF: true, Links: true, LimitPerHost: FTPMoreLimitPerHost},
	}
}
