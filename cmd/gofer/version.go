package main

import (
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=..."; without
// it the module version from the build information is shown.
var version = ""

func (c *cli) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gofer's version, the revision it was built from and the Go that built it",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(c.stdout, "gofer %s\n", versionLine(debug.ReadBuildInfo()))
			return err
		},
	}
}

// versionLine describes a build: the module version (or the -ldflags one,
// or "(devel)"), then, where the build information has them, the VCS
// revision (12 digits), its time and "modified" for a tree with changes,
// and the Go version: "v1.2.0 (revision 0123456789ab, 2026-11-27T02:00:00Z)
// go1.26.8".
func versionLine(bi *debug.BuildInfo, ok bool) string {
	v := version
	if v == "" {
		v = "(devel)"
		if ok && bi.Main.Version != "" {
			v = bi.Main.Version
		}
	}
	if !ok {
		return v
	}
	var rev, at string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var parts []string
	if rev != "" {
		parts = append(parts, "revision "+rev[:min(12, len(rev))])
	}
	if at != "" {
		parts = append(parts, at)
	}
	if modified {
		parts = append(parts, "modified")
	}
	if len(parts) > 0 {
		v += " (" + strings.Join(parts, ", ") + ")"
	}
	if bi.GoVersion != "" {
		v += " " + bi.GoVersion
	}
	return v
}
