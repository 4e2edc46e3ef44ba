#!/usr/bin/env bash
# Creates the unprivileged system user that targets run as when `gauntlet run --local` (or
# test/targets) runs as root: no login shell, no home, no groups beyond its own. PostgreSQL
# and PgBouncer run as postgres (from their Debian packages). Idempotent; a no-op when not root
# (targets then run as the invoking user).
# Usage: hack/local-user.sh
set -euo pipefail
user=gauntlet-target
getent passwd "${user}" >/dev/null && exit 0
if [[ $(id -u) -ne 0 ]]; then
  exit 0
fi
echo "hack/local-user.sh: creating system user ${user}" >&2
# A concurrent run may create it first: useradd then fails, and the user exists.
useradd --system --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin \
  --comment "gauntlet local-mode targets" "${user}" 2>/dev/null || getent passwd "${user}" >/dev/null
