package fetch

import (
	"os/exec"
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
