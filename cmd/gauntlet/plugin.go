package main

import (
	"path/filepath"
	"strings"
)

// commandName is how help names the command: "kubectl gauntlet" when kubectl runs this
// binary as its plugin (kubectl-gauntlet on the PATH), "gauntlet" otherwise. The commands
// are the same either way.
func commandName(argv0 string) string {
	base := strings.TrimSuffix(filepath.Base(argv0), ".exe")
	if base == "kubectl-gauntlet" {
		return "kubectl gauntlet"
	}
	return "gauntlet"
}
