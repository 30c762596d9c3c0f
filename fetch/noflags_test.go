package fetch

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// flagLike is a command-line flag written in a message: "--name", or
// "--%s" with the name filled in by a format verb.
var flagLike = regexp.MustCompile(`(^|[^-\w])--([a-z]|%[-+# 0-9.]*[sqv])`)

// TestLibrarySpeaksNoFlags: no string the library packages can put in an
// error or a warning names a command-line flag; the command line adds its
// own hints (from schemes.SettingError and the error types).
func TestLibrarySpeaksNoFlags(t *testing.T) {
	var checked int
	for _, root := range []string{".", "../schemes", "../security", "../warc", "../dial"} {
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || d.Name() == "corpus") {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return nil
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
			if err != nil {
				return err
			}
			checked++
			ast.Inspect(f, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				if s, err := strconv.Unquote(lit.Value); err == nil && flagLike.MatchString(s) {
					t.Errorf("%s: %q names a command-line flag", path, s)
				}
				return true
			})
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d files checked", checked)
	}
}
