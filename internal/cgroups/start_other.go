//go:build !linux

package cgroups

import (
	"errors"
	"os/exec"
)

// Start off Linux: there are no cgroups to start in (Detect fails first; a nil group runs).
func (g *Group) Start(cmd *exec.Cmd, start func() error) error {
	if g == nil {
		return start()
	}
	return errors.New("cgroup limits need Linux")
}
