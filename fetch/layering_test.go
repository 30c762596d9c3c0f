package fetch

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestLibraryTestsNeedNoIntegrationTree: no package outside integration/,
// tests included, depends on a package of the integration tree. A unit
// test that needs a real server belongs in integration/; a scripted server
// a unit test needs lives beside the package it fakes.
func TestLibraryTestsNeedNoIntegrationTree(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	const module = "github.com/goferurl/gofer"
	cmd := exec.Command(gobin, "list", "-e", "-test", "-f", "{{.ImportPath}}{{range .Deps}}|{{.}}{{end}}", module+"/...")
	cmd.Dir = ".."
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	// The tree's packages and test binaries: integration, integration/...,
	// integration_test, integration.test.
	inTree := func(path string) bool { return strings.HasPrefix(path, module+"/integration") }
	packages := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Split(line, "|")
		if inTree(fields[0]) {
			continue
		}
		packages++
		for _, dep := range fields[1:] {
			if inTree(dep) {
				t.Errorf("%s depends on %s", fields[0], dep)
			}
		}
	}
	if packages < 20 {
		t.Fatalf("go list named only %d packages outside integration/:\n%s", packages, out)
	}
}

// schemeImporters are the files outside package fetch and the scheme
// packages that may import a scheme package (schemes/NAME), each for a
// reason: the command line's configuration of the fetchers it wires.
// Everything else reaches a scheme through the contract (package
// schemes) and the fetch.Client that wires them.
var schemeImporters = map[string]string{
	"cmd/gofer/fetchers.go": "the command line configures the fetchers it hands to fetch.Options",
}

// schemeImports lists, for the Go files under root (tests and the
// integration tree aside), every import of a scheme package from outside
// package fetch and the scheme packages themselves, as "FILE imports
// PATH", unless allowed names the file.
func schemeImports(t *testing.T, root string, allowed map[string]string) []string {
	t.Helper()
	const schemesPath = "github.com/goferurl/gofer/schemes/"
	var found []string
	err := filepath.WalkDir(root, func(file string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, file)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			switch {
			case rel == "integration", rel == "schemes", d.Name() == "testdata", strings.HasPrefix(d.Name(), "."):
				if rel != "." {
					return filepath.SkipDir
				}
			}
			return nil
		}
		if !strings.HasSuffix(rel, ".go") || strings.HasSuffix(rel, "_test.go") || path.Dir(rel) == "fetch" {
			return nil // package fetch is the wiring
		}
		f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, schemesPath) && allowed[rel] == "" {
				found = append(found, rel+" imports "+p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// TestNoSchemeImportsOutsideTheWiring: outside package fetch (which wires
// the schemes) and the scheme packages, no package imports a scheme
// package, but the files schemeImporters names: a walker, a browser or a
// gateway reads every page of links through the contract.
func TestNoSchemeImportsOutsideTheWiring(t *testing.T) {
	importers := map[string]bool{}
	for _, f := range schemeImports(t, "..", nil) {
		file, _, _ := strings.Cut(f, " ")
		importers[file] = true
		if schemeImporters[file] == "" {
			t.Errorf("%s: reach it through package schemes and fetch.Client", f)
		}
	}
	// The list only shrinks: a file that no longer needs its exception
	// leaves it.
	for file := range schemeImporters {
		if !importers[file] {
			t.Errorf("schemeImporters names %s, which imports no scheme package", file)
		}
	}
}

// TestSchemeImportsFindsAPlantedOne: the check sees an import planted in a
// package outside the wiring, and not one in a test file or in fetch.
func TestSchemeImportsFindsAPlantedOne(t *testing.T) {
	root := t.TempDir()
	plant := func(rel, src string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	plant("fetch/mirror/walk.go", "package mirror\n\nimport _ \"github.com/goferurl/gofer/schemes/gemini\"\n")
	plant("fetch/mirror/walk_test.go", "package mirror\n\nimport _ \"github.com/goferurl/gofer/schemes/ftp\"\n")
	plant("fetch/registry.go", "package fetch\n\nimport _ \"github.com/goferurl/gofer/schemes/ftp\"\n")
	plant("schemes/http/http.go", "package http\n\nimport _ \"github.com/goferurl/gofer/schemes/lineproto\"\n")
	plant("cmd/gofer/root.go", "package main\n\nimport _ \"github.com/goferurl/gofer/schemes/ftp\"\n")
	got := schemeImports(t, root, map[string]string{"cmd/gofer/root.go": "configuration"})
	if want := "fetch/mirror/walk.go imports github.com/goferurl/gofer/schemes/gemini"; len(got) != 1 || got[0] != want {
		t.Errorf("found %q, want only %q", got, want)
	}
}
