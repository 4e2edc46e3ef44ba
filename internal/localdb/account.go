package localdb

import (
	"os"

	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

// serviceAccount is the user PostgreSQL and PgBouncer run as: the current one, or the
// postgres user when running as root (both refuse to run as root).
func serviceAccount() (*supervise.Account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	return supervise.LookupAccount("postgres", "running as root needs the postgres user to run PostgreSQL and PgBouncer: run hack/apt.sh postgresql-15 pgbouncer")
}
