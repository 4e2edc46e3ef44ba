#!/usr/bin/env bash
# Installs headless Chromium from Debian (once; apt's cache keeps the package) and prints its
# path. The report test opens report.html in it: renders, every chart has data, no request
# leaves the page.
# Usage: hack/chromium.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v chromium >/dev/null; then
  "${root}/hack/apt.sh" chromium >&2
fi
command -v chromium
