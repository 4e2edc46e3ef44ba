// Package pin places measuring tools' processes on given CPUs with taskset(1), so a load
// generator and the server it measures do not share a core (hack/bench-generator,
// hack/pingtable). It is for the hack/ benchmarks only: the product places nothing.
package pin

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"

	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

// Group pins every live process of process group pgid, all their threads (taskset -a),
// to cpus (a taskset list such as "0" or "2-5"). Threads and children started later
// inherit it.
func Group(pgid int, cpus string) error {
	n := 0
	for pid, p := range supervise.Procs() {
		if p.PGID != pgid || !p.Live() {
			continue
		}
		if out, err := exec.Command("taskset", "-a", "-p", "-c", cpus, strconv.Itoa(pid)).CombinedOutput(); err != nil {
			return fmt.Errorf("taskset -a -p -c %s %d: %v: %s", cpus, pid, err, out)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("process group %d: no live process to pin", pgid)
	}
	return nil
}

// Wrapper writes an executable into dir that runs binary on cpus, with the same process
// id (taskset execs it), so a caller measuring that pid measures the binary.
func Wrapper(dir, binary, cpus string) (string, error) {
	tasksetPath, err := exec.LookPath("taskset")
	if err != nil {
		return "", fmt.Errorf("taskset (util-linux) is needed to pin processes: %w", err)
	}
	path := filepath.Join(dir, filepath.Base(binary)+"-on-"+cpus)
	script := "#!/bin/sh\nexec " + strconv.Quote(tasksetPath) + " -c " + strconv.Quote(cpus) + " " + strconv.Quote(binary) + " \"$@\"\n"
	return path, os.WriteFile(path, []byte(script), 0o755)
}
