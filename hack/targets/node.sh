#!/usr/bin/env bash
# Installs a Node.js target: `npm ci` from its package-lock.json, then `npm run build` when
# package.json has a build script (NestJS compiles TypeScript into .build/).
# Idempotent and cached: skipped when package-lock.json, the sources, the sources of the local
# packages it links ("file:" dependencies such as targets/_lib/node) and the Node/npm versions
# hash to the stamp left by the last successful install.
# Usage: hack/targets/node.sh TARGET_DIR
set -euo pipefail
dir=${1:?usage: hack/targets/node.sh TARGET_DIR}
[[ -d "${dir}" ]] || { echo "hack/targets/node.sh: ${dir} is not a directory" >&2; exit 1; }
dir=$(cd "${dir}" && pwd)
for f in package.json package-lock.json; do
  [[ -f "${dir}/${f}" ]] || { echo "hack/targets/node.sh: ${dir}/${f} not found" >&2; exit 1; }
done
for tool in node npm; do
  command -v "${tool}" >/dev/null || { echo "hack/targets/node.sh: ${tool} not found on PATH" >&2; exit 1; }
done

mkdir -p "${dir}/.build"
# Installs of the same target may start together (tests in parallel): one runs, the others wait.
exec 9>"${dir}/.build/.install.lock"
flock 9

stamp="${dir}/.build/.install.sha256"
# The local packages the target depends on with a "file:" specifier (the node targets'
# shared kit, targets/_lib/node): npm ci links them, and a change there must reinstall
# (and rebuild: node-nestjs compiles against the kit's .d.ts files).
mapfile -t links < <(node -e '
  const p = require(process.argv[1]);
  for (const deps of [p.dependencies, p.devDependencies, p.optionalDependencies]) {
    for (const spec of Object.values(deps || {})) if (spec.startsWith("file:")) console.log(spec.slice(5));
  }
' "${dir}/package.json")
for link in "${links[@]}"; do
  [[ -d "${dir}/${link}" ]] || { echo "hack/targets/node.sh: ${dir}/${link} (a file: dependency) not found" >&2; exit 1; }
done
# Every file of a tree except what an install produces.
tree_sums() {
  (cd "$1" && find . -path ./node_modules -prune -o -path ./.build -prune -o -type f -print0 \
    | LC_ALL=C sort -z | xargs -0 -r sha256sum)
}
# The target's files, each linked package's files, and the toolchain's versions.
fingerprint() {
  tree_sums "${dir}"
  for link in "${links[@]}"; do
    echo "file:${link}"
    tree_sums "${dir}/${link}"
  done
  node --version
  npm --version
}
want=$(fingerprint | sha256sum | cut -d' ' -f1)
# package.json's main is what local.start runs: a deleted build output means a rebuild.
main=$(node -p 'require(process.argv[1]).main || "package.json"' "${dir}/package.json")
if [[ -d "${dir}/node_modules" && -f "${dir}/${main}" && -f "${stamp}" && "$(cat "${stamp}")" == "${want}" ]]; then
  exit 0
fi

echo "hack/targets/node.sh: installing ${dir} with Node $(node --version)" >&2
rm -f "${stamp}"
# npm ci installs exactly the lockfile (it fails if package.json and the lock disagree).
(cd "${dir}" && npm ci --no-audit --no-fund --loglevel=error >&2)
if node -e 'process.exit(require(process.argv[1]).scripts?.build ? 0 : 1)' "${dir}/package.json"; then
  (cd "${dir}" && npm run --silent build >&2)
fi
echo "${want}" > "${stamp}"
