package local

import (
	"os"

	"github.com/gauntlet-bench/gauntlet/internal/supervise"
)

// TargetUser is the unprivileged system user targets run as when gauntlet runs as root
// (hack/local-user.sh creates it): a target is code from the spec's preset, and a spec may
// come from someone else.
const TargetUser = "gauntlet-target"

// targetAccount is the user targets run as: TargetUser when running as root, else nil
// (the invoking user, who is not root).
func targetAccount() (*supervise.Account, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	return supervise.LookupAccount(TargetUser, "running as root, targets run as the unprivileged user "+TargetUser+": run hack/local-user.sh (as root) to create it")
}
