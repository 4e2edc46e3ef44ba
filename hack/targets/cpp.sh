#!/usr/bin/env bash
# Builds a C++ target with CMake into TARGET_DIR/.build/server, after installing the Debian
# packages of TARGET_DIR/debian.lock (through hack/apt.sh) and checking their versions.
# The unit tests built alongside run after every build. Idempotent and cached: skipped when
# the sources, the lock file and the compiler are unchanged.
# Usage: hack/targets/cpp.sh TARGET_DIR
set -euo pipefail
dir=${1:?usage: hack/targets/cpp.sh TARGET_DIR}
root="$(cd "$(dirname "$0")/../.." && pwd)"
lock="${dir}/debian.lock"
[[ -f "${dir}/CMakeLists.txt" ]] || { echo "hack/targets/cpp.sh: ${dir}/CMakeLists.txt not found" >&2; exit 1; }
"${root}/hack/targets/debian-lock.sh" "${lock}"

cd "${dir}"
mkdir -p .build
exec 9>.build/.lock  # concurrent runs: one builds, the others wait and find the stamp
flock 9
stamp=.build/.stamp
want=$({ find . -path ./.build -prune -o -type f \( -name '*.cpp' -o -name '*.h' -o -name CMakeLists.txt \
          -o -name debian.lock \) -print | LC_ALL=C sort | xargs sha256sum; g++ --version; cmake --version; } \
       | sha256sum | cut -d' ' -f1)
if [[ -x .build/server && -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
  exit 0
fi

echo "hack/targets/cpp.sh: building ${dir}" >&2
cmake -S . -B .build/cmake -DCMAKE_BUILD_TYPE=Release >&2
cmake --build .build/cmake -j "$(nproc)" >&2
.build/cmake/unit_tests >&2
cp .build/cmake/server .build/server.new
mv .build/server.new .build/server
echo "${want}" > "${stamp}"
