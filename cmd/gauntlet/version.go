package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func init() { subcommands = append(subcommands, newVersionCmd) }

// Set by the release build:
//
//	go build -ldflags "-X main.version=v0.3.0 -X main.commit=$(git rev-parse HEAD) -X main.date=$(date -u +%FT%TZ)"
//
// Left empty, they come from what the Go toolchain stamped into the binary (the module's
// version under go install, the VCS revision and time of a build in a clone).
var version, commit, date string

// versionInfo is what `gauntlet version` prints.
type versionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Date      string `json:"date"`
	GoVersion string `json:"goVersion"`
	Platform  string `json:"platform"`
}

func currentVersion() versionInfo {
	v := versionInfo{Version: version, Commit: commit, Date: date, GoVersion: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		v = fillFromBuildInfo(v, info)
	}
	for _, s := range []*string{&v.Version, &v.Commit, &v.Date} {
		if *s == "" {
			*s = "unknown"
		}
	}
	return v
}

// fillFromBuildInfo fills what -ldflags left empty from the toolchain's stamp.
func fillFromBuildInfo(v versionInfo, info *debug.BuildInfo) versionInfo {
	if v.Version == "" && info.Main.Version != "" {
		v.Version = info.Main.Version // "(devel)" for a build in a clone
	}
	dirty, stamped := false, false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			if v.Commit == "" {
				v.Commit, stamped = s.Value, true
			}
		case "vcs.time":
			if v.Date == "" {
				v.Date = s.Value
			}
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if dirty && stamped {
		v.Commit += "-dirty"
	}
	return v
}

func newVersionCmd() *cobra.Command {
	var output string
	cmd := &cobra.Command{
		Use:   "version [-o json|yaml]",
		Short: "Print the version, commit and build date of this binary",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkOutput(output); err != nil {
				return err
			}
			v := currentVersion()
			if output != "" {
				return printData(cmd.OutOrStdout(), output, v)
			}
			_, err := fmt.Fprintf(cmd.OutOrStdout(), "gauntlet %s (commit %s, built %s, %s, %s)\n", v.Version, v.Commit, v.Date, v.GoVersion, v.Platform)
			return err
		},
	}
	cmd.Flags().StringVarP(&output, "output", "o", "", "json or yaml: print the version as data")
	return cmd
}
