package local

import (
	"fmt"
	"strings"

	benchv1 "github.com/gauntlet-bench/gauntlet/api/v1alpha1"
	"github.com/gauntlet-bench/gauntlet/internal/localdb"
	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

// The local mode watches its PostgreSQL and PgBouncer during trials as the operator watches
// the cluster's (DatabaseChanged): a database that dies mid-run would otherwise have every
// later db-* trial record its errors against the targets.

// exited returns a channel closed when PostgreSQL or PgBouncer exits before stop is; nil
// (never ready) when neither runs.
func (s *services) exited(stop <-chan struct{}) <-chan struct{} {
	var pg, bouncer <-chan struct{}
	if s.pg != nil && s.pg.Proc != nil {
		pg = s.pg.Proc.Done()
	}
	if s.bouncer != nil && s.bouncer.Proc != nil {
		bouncer = s.bouncer.Proc.Done()
	}
	if pg == nil && bouncer == nil {
		return nil
	}
	out := make(chan struct{})
	go func() {
		select {
		case <-pg:
		case <-bouncer:
		case <-stop:
			return
		}
		close(out)
	}()
	return out
}

// checkLost records, the first time it finds one, which database process has exited, with
// its exit and last output, and marks DatabaseReady False; it returns s.lost.
func (s *services) checkLost(run *benchv1.BenchmarkRun) string {
	if s.lost != "" {
		return s.lost
	}
	for _, d := range []struct {
		name string
		d    *supervise.Daemon
	}{{"PostgreSQL", pgDaemon(s.pg)}, {"PgBouncer", bouncerDaemon(s.bouncer)}} {
		if d.d == nil || d.d.Proc == nil {
			continue
		}
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

func pgDaemon(p *localdb.Postgres) *supervise.Daemon {
	if p == nil {
		return nil
	}
	return &p.Daemon
}

func bouncerDaemon(b *localdb.PgBouncer) *supervise.Daemon {
	if b == nil {
		return nil
	}
	return &b.Daemon
}

// firstLine is s up to its first newline: the cause, without the output that follows.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
