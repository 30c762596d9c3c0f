package hostile

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
)

// Dialects of FTPDialectTree's LIST.
const (
	DialectVMS   = "vms"   // MultiNet/UCX: NAME.EXT;V records, long names over two lines
	DialectMVS   = "mvs"   // z/OS: datasets at the top, PDS members inside
	DialectOS400 = "os400" // IBM i: stream files, directories, *FILE objects and their *MEM members
)

// FTPDialectTree is an FTPFiles (for ServeFTPTree) whose LIST answers in
// one of the dialects of servers that are not Unix. Files maps each
// file's path to its bytes; for VMS the path's last segment carries the
// version ("/PUB/README.TXT;2"), and a directory "X" is listed as
// "X.DIR;1". Directories are the paths above the files, and the keys of
// Raw, whose lines are added to that directory's listing as they are
// (hostile names, lines in no form).
type FTPDialectTree struct {
	Dialect string
	Files   map[string]string
	Raw     map[string][]string

	mu      sync.Mutex
	fetched map[string]int
}

// Fetched reports how many times p was retrieved.
func (t *FTPDialectTree) Fetched(p string) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.fetched[p]
}

// FetchedTotal reports how many retrievals there were.
func (t *FTPDialectTree) FetchedTotal() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, c := range t.fetched {
		n += c
	}
	return n
}

// dialectTime is every listed file's time.
var dialectTime = time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)

func (t *FTPDialectTree) IsDir(p string) bool {
	if p == "/" {
		return true
	}
	if _, ok := t.Raw[p]; ok {
		return true
	}
	for f := range t.Files {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

// child is one name a directory holds.
type child struct {
	name string
	dir  bool
	size int
}

func (t *FTPDialectTree) children(dir string) []child {
	prefix := strings.TrimSuffix(dir, "/") + "/"
	seen := map[string]bool{}
	var out []child
	for f, body := range t.Files {
		rest, ok := strings.CutPrefix(f, prefix)
		if !ok {
			continue
		}
		name, _, deeper := strings.Cut(rest, "/")
		if seen[name] {
			continue
		}
		seen[name] = true
		out = append(out, child{name: name, dir: deeper, size: len(body)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

func (t *FTPDialectTree) List(dir string, w *Conn) {
	var lines []string
	kids := t.children(dir)
	switch t.Dialect {
	case DialectVMS:
		lines = vmsListing(dir, kids)
	case DialectMVS:
		lines = mvsListing(dir, kids)
	case DialectOS400:
		lines = os400Listing(dir, kids)
	}
	lines = append(lines, t.Raw[dir]...)
	for _, l := range lines {
		if !w.Send(l + "\r\n") {
			return
		}
	}
}

// vmsListing lists in MultiNet's form: a header, one record a file, a
// name too long for its column on a line of its own, a trailer.
func vmsListing(dir string, kids []child) []string {
	vdir := strings.ReplaceAll(strings.Trim(dir, "/"), "/", ".")
	if vdir == "" {
		vdir = "000000"
	}
	lines := []string{"Directory DISK$ANON:[" + vdir + "]", ""}
	blocks := 0
	for _, k := range kids {
		name, used := k.name, (k.size+511)/512
		if k.dir {
			name, used = k.name+".DIR;1", 1
		}
		blocks += used
		rest := fmt.Sprintf("%d/%d  %s  [FTP]  (RWED,RWED,RE,RE)", used, used+2,
			strings.ToUpper(dialectTime.Format("2-Jan-2006 15:04:05")))
		if len(name) > 18 {
			lines = append(lines, name, strings.Repeat(" ", 20)+rest)
		} else {
			lines = append(lines, fmt.Sprintf("%-19s %s", name, rest))
		}
	}
	return append(lines, "", fmt.Sprintf("Total of %d files, %d blocks.", len(kids), blocks))
}

// mvsListing lists datasets at the top (a directory is a partitioned
// dataset) and members inside a dataset.
func mvsListing(dir string, kids []child) []string {
	if dir == "/" {
		lines := []string{"Volume Unit    Referred Ext Used Recfm Lrecl BlkSz Dsorg Dsname"}
		for _, k := range kids {
			org := "PS"
			if k.dir {
				org = "PO"
			}
			lines = append(lines, fmt.Sprintf("WORK01 3390   %s  1    1  FB      80  3120  %-3s %s", dialectTime.Format("2006/01/02"), org, k.name))
		}
		return lines
	}
	lines := []string{" Name     VV.MM   Created       Changed      Size  Init   Mod   Id"}
	for _, k := range kids {
		lines = append(lines, fmt.Sprintf("%-8s  01.00 %s %s %5d %5d     0 FTP",
			k.name, dialectTime.Format("2006/01/02"), dialectTime.Format("2006/01/02 15:04"), k.size/80+1, k.size/80+1))
	}
	return lines
}

// os400Listing lists stream files and directories, a directory named
// "X.FILE" as a database file and what it holds as its members.
func os400Listing(dir string, kids []child) []string {
	stamp := dialectTime.Format("06/01/02 15:04:05")
	var lines []string
	inFile := strings.HasSuffix(dir, ".FILE")
	for _, k := range kids {
		switch {
		case inFile:
			lines = append(lines, fmt.Sprintf("%-10s %31s %-10s %s/%s", "QPGMR", "", "*MEM", path.Base(dir), k.name))
		case k.dir && strings.HasSuffix(k.name, ".FILE"):
			lines = append(lines, fmt.Sprintf("%-10s %10d %s %-10s %s", "QPGMR", 8192, stamp, "*FILE", k.name))
		case k.dir:
			lines = append(lines, fmt.Sprintf("%-10s %10d %s %-10s %s/", "QSYS", 8192, stamp, "*DIR", k.name))
		default:
			lines = append(lines, fmt.Sprintf("%-10s %10d %s %-10s %s", "PEP", k.size, stamp, "*STMF", k.name))
		}
	}
	return lines
}

func (t *FTPDialectTree) Stat(p string) (int64, time.Time, bool) {
	body, ok := t.Files[p]
	return int64(len(body)), dialectTime, ok
}

func (t *FTPDialectTree) Retr(p string) (string, bool, []byte, bool) {
	body, ok := t.Files[p]
	if ok {
		t.mu.Lock()
		if t.fetched == nil {
			t.fetched = map[string]int{}
		}
		t.fetched[p]++
		t.mu.Unlock()
	}
	return "", false, []byte(body), ok
}

func (t *FTPDialectTree) Sent(string) {}
