#!/usr/bin/env bash
# Creates TARGET_DIR/.venv and installs TARGET_DIR/requirements.txt into it.
# Idempotent and cached: skipped when the requirements and the interpreter are unchanged.
# The shared library targets/_lib/python (gauntlet_kit) is not installed here: each target's
# entrypoint puts it on sys.path, so the venv, and this cache key, do not depend on it.
# Usage: hack/targets/python.sh TARGET_DIR   (PYTHON=interpreter, default python3)
set -euo pipefail
dir=${1:?usage: hack/targets/python.sh TARGET_DIR}
python=${PYTHON:-python3}
req="${dir}/requirements.txt"
[[ -f "${req}" ]] || { echo "hack/targets/python.sh: ${req} not found" >&2; exit 1; }
command -v "${python}" >/dev/null || { echo "hack/targets/python.sh: interpreter ${python} not found" >&2; exit 1; }
# Run as root, gauntlet starts targets as gauntlet-target (hack/local-user.sh): the venv's
# interpreter must be one that user can run, not one under root's home (pyenv, for example).
if [[ $(id -u) -eq 0 ]] && getent passwd gauntlet-target >/dev/null &&
   ! runuser -u gauntlet-target -- "$(command -v "${python}")" -c '' 2>/dev/null; then
  if [[ -z "${PYTHON:-}" ]]; then
    echo "hack/targets/python.sh: $(command -v "${python}") is not runnable by gauntlet-target; using Debian's /usr/bin/python3" >&2
    "$(dirname "$0")/../apt.sh" python3 python3-venv
    python=/usr/bin/python3
  else
    echo "hack/targets/python.sh: ${python} ($(command -v "${python}")) is not runnable by gauntlet-target, the user targets run as under root; set PYTHON to an interpreter outside root's home" >&2
    exit 1
  fi
fi

venv="${dir}/.venv"
stamp="${venv}/.requirements.sha256"
# The interpreter's version is part of the key: a new Python needs a new venv.
want=$({ sha256sum < "${req}"; "${python}" -VV 2>&1; } | sha256sum | cut -d' ' -f1)
if [[ -x "${venv}/bin/python" && -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
  exit 0
fi

echo "hack/targets/python.sh: building ${venv} with $("${python}" -V 2>&1)" >&2
rm -rf "${venv}"
"${python}" -m venv "${venv}"
# Every package, transitive ones too, is pinned in requirements.txt: --no-deps keeps anything
# unpinned out, and pip check fails if a pin is missing.
"${venv}/bin/python" -m pip install -q --disable-pip-version-check --no-input --no-deps -r "${req}" >&2
"${venv}/bin/python" -m pip check >&2
echo "${want}" > "${stamp}"
