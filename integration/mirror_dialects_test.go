package integration_test

// The mirror over scripted FTP servers whose LIST answers in the dialects
// of servers that are not Unix (VMS, MVS, OS/400), through the real FTP
// fetcher: each tree arrives whole, and hostile names in each dialect are
// refused without anything written outside DIR.

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/goferurl/gofer/fetch"
	"github.com/goferurl/gofer/fetch/mirror"
	"github.com/goferurl/gofer/integration/hostile"
	"github.com/goferurl/gofer/integration/itest"
	"github.com/goferurl/gofer/schemes/ftp"
)

// startDialect serves tree and returns its "host:port".
func startDialect(t *testing.T, tree *hostile.FTPDialectTree) string {
	t.Helper()
	s, err := hostile.Start("127.0.0.1:0", func(c *hostile.Conn) { hostile.ServeFTPTree(c, tree, nil) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s.Addr()
}

// mirrorDialect mirrors url into outer/mirror.
func mirrorDialect(t *testing.T, url, outer string) *mirror.Summary {
	t.Helper()
	opts := fetch.Options{Warn: func(string) {}}
	opts.SetFetcher(&ftp.Fetcher{Email: "gofer@example.org"}, ftp.Schemes()...)
	c := fetch.NewClient(opts)
	defer c.Close()
	sum, err := mirror.Run(context.Background(), c, url, filepath.Join(outer, "mirror"), mirror.Options{Jobs: 2})
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// localTree reads DIR's files (not its state directory): relative path →
// bytes.
func localTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".gofer" {
			return filepath.SkipDir
		}
		if d.Type()&os.ModeSymlink != 0 {
			t.Errorf("symlink created: %s", rel)
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// mirrorDialectTree mirrors tree's start directory and checks that the
// mirror holds want, that every file was new and nothing failed or was
// refused, and that nothing was written beside the mirror.
func mirrorDialectTree(t *testing.T, tree *hostile.FTPDialectTree, start string, want map[string]string) {
	t.Helper()
	addr := startDialect(t, tree)
	outer := t.TempDir()
	sum := mirrorDialect(t, "ftp://"+addr+start, outer)
	outsideUntouched(t, outer)
	sameTree(t, localTree(t, filepath.Join(outer, "mirror")), want)
	if sum.New != int64(len(want)) || sum.Failed != 0 || sum.Refused != 0 {
		t.Errorf("summary new %d failed %d refused %d: %+v %+v", sum.New, sum.Failed, sum.Refused, sum.Failures, sum.Refusals)
	}
}

func keys(m map[string]string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, "|")
}

func TestMirrorDialectVMS(t *testing.T) {
	itest.Parallel(t)
	tree := &hostile.FTPDialectTree{Dialect: hostile.DialectVMS, Files: map[string]string{
		"/PUB/README.TXT;1": "first version\n",
		"/PUB/README.TXT;2": "second version\n",
		// Longer than the name column: the record takes two lines.
		"/PUB/A_RATHER_LONG_FILE_NAME.DAT;3": "long name\n",
		"/PUB/SUB/INNER.TXT;1":               "inner\n",
	}}
	addr := startDialect(t, tree)
	outer := t.TempDir()
	mirrorDialect(t, "ftp://"+addr+"/PUB/", outer)
	outsideUntouched(t, outer)
	got := localTree(t, filepath.Join(outer, "mirror"))
	if got["A_RATHER_LONG_FILE_NAME.DAT"] != "long name\n" || got["SUB/INNER.TXT"] != "inner\n" {
		t.Errorf("tree %q", got)
	}
	if n := tree.Fetched("/PUB/A_RATHER_LONG_FILE_NAME.DAT;3"); n != 1 {
		t.Errorf("the two-line record's file fetched %d times by its version, want 1", n)
	}
	// The highest version, alone, under the plain name.
	if r := got["README.TXT"]; r != "second version\n" {
		t.Errorf("README.TXT = %q, want its highest version", r)
	}
	if n := tree.Fetched("/PUB/README.TXT;1"); n != 0 {
		t.Errorf("README.TXT;1 fetched %d times, want never", n)
	}
	if keys(got) != "A_RATHER_LONG_FILE_NAME.DAT|README.TXT|SUB/INNER.TXT" {
		t.Errorf("files %s", keys(got))
	}
}

func TestMirrorDialectMVS(t *testing.T) {
	itest.Parallel(t)
	tree := &hostile.FTPDialectTree{Dialect: hostile.DialectMVS, Files: map[string]string{
		"/USER.README":         "sequential dataset\n",
		"/USER.SOURCE/MEMBER1": "member one\n",
		"/USER.SOURCE/MEMBER2": "member two\n",
	}}
	mirrorDialectTree(t, tree, "/", map[string]string{"USER.README": "sequential dataset\n", "USER.SOURCE/MEMBER1": "member one\n", "USER.SOURCE/MEMBER2": "member two\n"})
}

func TestMirrorDialectOS400(t *testing.T) {
	itest.Parallel(t)
	tree := &hostile.FTPDialectTree{Dialect: hostile.DialectOS400, Files: map[string]string{
		"/home/hello.txt":           "stream file\n",
		"/home/docs/guide.txt":      "guide\n",
		"/home/SRC.FILE/MBR1.MBR":   "member one\n",
		"/home/SRC.FILE/MBR2.MBR":   "member two\n",
		"/elsewhere/not-walked.txt": "outside the start\n",
	}}
	mirrorDialectTree(t, tree, "/home/", map[string]string{"hello.txt": "stream file\n", "docs/guide.txt": "guide\n",
		"SRC.FILE/MBR1.MBR": "member one\n", "SRC.FILE/MBR2.MBR": "member two\n"})
}

// TestMirrorDialectHostileNames lists, in each dialect, names that climb
// out ("../x"), hold a separator or a NUL, and one far longer than any
// file system takes: the mirror refuses them all by the safe-name rule
// (or, for a name holding "/", the listing reports its line unparsed),
// never fetches them, and writes nothing outside DIR.
func TestMirrorDialectHostileNames(t *testing.T) {
	itest.Parallel(t)
	long := strings.Repeat("L", 300)
	for _, tc := range []struct {
		dialect string
		start   string // directory walked
		files   map[string]string
		raw     []string
		refused []string // names the mirror must refuse
	}{
		{hostile.DialectVMS, "/PUB", map[string]string{"/PUB/OK.TXT;1": "ok\n", "/ESCAPE.TXT;1": "BAD"}, []string{
			"../ESCAPE.TXT;1      1/3  20-DEC-1994 12:00:00  [FTP]  (RWED,RWED,RE,RE)",
			"A/B.TXT;1            1/3  20-DEC-1994 12:00:00  [FTP]  (RWED,RWED,RE,RE)",
			"NUL\x00NAME.TXT;1    1/3  20-DEC-1994 12:00:00  [FTP]  (RWED,RWED,RE,RE)",
			long + ";1",
			"                     1/3  20-DEC-1994 12:00:00  [FTP]  (RWED,RWED,RE,RE)",
		}, []string{"../ESCAPE.TXT", "A/B.TXT", "NUL\x00NAME.TXT", long}},
		{hostile.DialectMVS, "/", map[string]string{"/USER.OK": "ok\n"}, []string{
			"WORK01 3390   1994/12/20  1    1  FB      80  3120  PS  ../ESCAPE",
			"WORK01 3390   1994/12/20  1    1  FB      80  3120  PS  A/B",
			"WORK01 3390   1994/12/20  1    1  FB      80  3120  PS  NUL\x00NAME",
			"WORK01 3390   1994/12/20  1    1  FB      80  3120  PS  " + long,
		}, []string{"../ESCAPE", "A/B", "NUL\x00NAME", long}},
		{hostile.DialectOS400, "/home", map[string]string{"/home/ok.txt": "ok\n", "/escape": "BAD"}, []string{
			"PEP                 3 94/12/20 12:00:00 *STMF      ../escape",
			"PEP                 3 94/12/20 12:00:00 *STMF      a/b",
			"PEP                 3 94/12/20 12:00:00 *STMF      nul\x00name",
			"QPGMR                                  *MEM       X.FILE/..",
			"PEP                 3 94/12/20 12:00:00 *STMF      " + long,
		}, []string{"../escape", "a/b", "nul\x00name", "X.FILE/..", long}},
	} {
		t.Run(tc.dialect, func(t *testing.T) {
			tree := &hostile.FTPDialectTree{Dialect: tc.dialect, Files: tc.files, Raw: map[string][]string{tc.start: tc.raw}}
			addr := startDialect(t, tree)
			outer := t.TempDir()
			sum := mirrorDialect(t, "ftp://"+addr+strings.TrimSuffix(tc.start, "/")+"/", outer)
			outsideUntouched(t, outer)
			got := localTree(t, filepath.Join(outer, "mirror"))
			for k, v := range got {
				if v == "BAD" || strings.Contains(k, "ESCAPE") || strings.Contains(k, "escape") {
					t.Errorf("hostile file written: %q", k)
				}
			}
			var ok string
			for k := range got {
				ok += k
			}
			if !strings.Contains(ok, "OK") && !strings.Contains(ok, "ok") {
				t.Errorf("the ordinary file is missing: %s", keys(got))
			}
			// A name the safe-name rule refuses; or, for one that holds a
			// "/" and so names no entry of the directory, its line is
			// reported unparsed.
			refused := map[string]bool{}
			for _, r := range sum.Refusals {
				refused[r.Name] = true
			}
			reported := func(name string) bool {
				for _, u := range sum.UnparsedLines {
					if strings.Contains(u.Line, name) {
						return true
					}
				}
				return false
			}
			for _, name := range tc.refused {
				if !refused[name] && !(strings.Contains(name, "/") && reported(name)) {
					t.Errorf("%q neither refused nor reported unparsed; refusals %+v, unparsed %+v", name, sum.Refusals, sum.UnparsedLines)
				}
			}
			if n := sum.Refused + sum.Unparsed; n < int64(len(tc.refused)) {
				t.Errorf("refused %d and unparsed %d, want at least %d together", sum.Refused, sum.Unparsed, len(tc.refused))
			}
			// Only the ordinary file is fetched: a refused name never is
			// (the climbing ones would reach the "BAD" decoys).
			if n := tree.FetchedTotal(); n != 1 {
				t.Errorf("%d retrievals, want 1", n)
			}
		})
	}
}

// sameTree checks a mirrored tree's files and bytes against want.
func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	if keys(got) != keys(want) {
		t.Fatalf("files %s, want %s", keys(got), keys(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %q, want %q", k, got[k], v)
		}
	}
}
