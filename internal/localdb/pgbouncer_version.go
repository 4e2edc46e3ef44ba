package localdb

import (
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
)

// PgBouncer tracks protocol-level prepared statements in transaction mode from 1.21 on
// (max_prepared_statements); older versions, Debian 12's 1.18 among them, refuse the
// setting as unknown, and behave as max_prepared_statements = 0 does.
const preparedStatementsSetting = "max_prepared_statements"

var pgbouncerVersionLine = regexp.MustCompile(`PgBouncer (\d+)\.(\d+)`)

// pgbouncerVersion is the program's major and minor version, from `pgbouncer --version`.
func pgbouncerVersion(binary string) (major, minor int, err error) {
	out, err := exec.Command(binary, "--version").Output()
	if err != nil {
		return 0, 0, fmt.Errorf("pgbouncer --version: %w", err)
	}
	m := pgbouncerVersionLine.FindSubmatch(out)
	if m == nil {
		return 0, 0, fmt.Errorf("pgbouncer --version printed %q: no version", out)
	}
	major, _ = strconv.Atoi(string(m[1]))
	minor, _ = strconv.Atoi(string(m[2]))
	return major, minor, nil
}

// forVersion drops from params what this PgBouncer does anyway and cannot be told:
// max_prepared_statements = 0 before 1.21. Any other value there is an error naming it,
// since that PgBouncer cannot keep prepared statements across server connections.
func forVersion(params map[string]string, major, minor int) (map[string]string, error) {
	v, ok := params[preparedStatementsSetting]
	if !ok || major > 1 || major == 1 && minor >= 21 {
		return params, nil
	}
	if v != "0" {
		return nil, fmt.Errorf("pgbouncer: %s = %s needs PgBouncer 1.21 or later; this machine has %d.%d, which cannot track prepared statements (only 0 is its behaviour)",
			preparedStatementsSetting, v, major, minor)
	}
	out := make(map[string]string, len(params)-1)
	for k, val := range params {
		if k != preparedStatementsSetting {
			out[k] = val
		}
	}
	return out, nil
}
