#!/usr/bin/env bash
# Installs Debian's PyPy (with venv support, and what psycopg2cffi builds against),
# then builds TARGET_DIR/.venv with it like hack/targets/python.sh does.
# Usage: hack/targets/pypy.sh TARGET_DIR
set -euo pipefail
dir=${1:?usage: hack/targets/pypy.sh TARGET_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# pypy3-dev and libpq-dev: psycopg2cffi compiles its cffi module against PyPy and libpq.
"${here}/../apt.sh" pypy3 pypy3-venv pypy3-dev libpq-dev gcc
PYTHON=pypy3 exec "${here}/python.sh" "${dir}"
