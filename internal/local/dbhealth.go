package local

import (
	"fmt"
	"strings"
	"sync"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

// The local mode watches its PostgreSQL and PgBouncer during trials as the operator watches
// the cluster's (DatabaseChanged): a database that dies mid-run would otherwise have every
// later db-* trial record its errors against the targets.

// namedDaemon is a running database process and the name the messages give it.
type namedDaemon struct {
	name string
	d    *supervise.Daemon
}

// daemons are the run's database processes that were started.
func (s *services) daemons() []namedDaemon {
	var out []namedDaemon
	if s.pg != nil && s.pg.Proc != nil {
		out = append(out, namedDaemon{"PostgreSQL", &s.pg.Daemon})
	}
	if s.bouncer != nil && s.bouncer.Proc != nil {
		out = append(out, namedDaemon{"PgBouncer", &s.bouncer.Daemon})
	}
	return out
}

// exited returns a channel closed when PostgreSQL or PgBouncer exits before stop is; nil
// (never ready) when neither runs.
func (s *services) exited(stop <-chan struct{}) <-chan struct{} {
	ds := s.daemons()
	if len(ds) == 0 {
		return nil
	}
	out := make(chan struct{})
	var once sync.Once
	for _, d := range ds {
		go func() {
			select {
			case <-d.d.Proc.Done():
				once.Do(func() { close(out) })
			case <-stop:
			}
		}()
	}
	return out
}

// checkLost records, the first time it finds one, which database process has exited, with
// its exit and last output, and marks DatabaseReady False; it returns s.lost.
func (s *services) checkLost(run *benchv1.BenchmarkRun) string {
	if s.lost != "" {
		return s.lost
	}
	for _, d := range s.daemons() {
		select {
		case <-d.d.Proc.Done():
			s.lost = fmt.Sprintf("%s exited during the run (%v); its last output:\n%s", d.name, d.d.Proc.ExitErr(), supervise.Indent(d.d.Proc.Tail()))
			setCondition(run, benchv1.ConditionDatabaseReady, false, "DatabaseExited", s.lost)
			return s.lost
		default:
		}
	}
	return ""
}

// firstLine is s up to its first newline: the cause, without the output that follows.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
