#!/usr/bin/env bash
# PgBouncer for the lab's Pooler image, built from Debian 13's source package into
# bin/lab/pgbouncer-<version> (idempotent). CloudNativePG v1.28 writes auth_dbname, which
# PgBouncer needs 1.20 or later for; Debian 12's pgbouncer is 1.18 and refuses the file
# ("unknown parameter: pgbouncer/auth_dbname", then "cannot load config file").
# apt reads Debian 13's source index from this machine's Debian mirror into folders of its
# own under .cache/lab/apt (the system's apt configuration is left alone) and checks the
# downloaded files against that signed index.
# Usage: hack/lab/pgbouncer.sh  -> prints the binary.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
have="$(compgen -G "${ROOT}/bin/lab/pgbouncer-*" | head -1 || true)"
if [[ -n "${have}" ]]; then echo "${have}"; exit 0; fi

"${ROOT}/hack/apt.sh" gcc make pkg-config libevent-dev libssl-dev
apt_dir="${ROOT}/.cache/lab/apt"
rm -rf "${apt_dir}"
mkdir -p "${apt_dir}/lists/partial" "${apt_dir}/cache/archives/partial" "${apt_dir}/src"
mirror="$(awk '/^URIs:/ {print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)"
[[ -n "${mirror}" ]] || mirror="$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list)"
echo "deb-src ${mirror} trixie main" > "${apt_dir}/sources.list"
apt=(apt-get -q -o "Dir::Etc::SourceList=${apt_dir}/sources.list" -o Dir::Etc::SourceParts=/dev/null
  -o "Dir::State::Lists=${apt_dir}/lists" -o "Dir::Cache=${apt_dir}/cache" -o APT::Sandbox::User=root)
"${apt[@]}" update >&2
(cd "${apt_dir}/src" && "${apt[@]}" source --download-only pgbouncer >&2)
tar -C "${apt_dir}/src" -xzf "${apt_dir}"/src/pgbouncer_*.orig.tar.gz
cd "${apt_dir}"/src/pgbouncer-*/
# c-ares, PAM and systemd are not used by CloudNativePG's configuration (libevent resolves).
./configure --prefix=/usr --with-openssl --without-cares --without-pam --without-systemd >&2
make -j2 >&2
version="$(./pgbouncer --version | awk 'NR == 1 {print $NF}')"
mkdir -p "${ROOT}/bin/lab"
cp pgbouncer "${ROOT}/bin/lab/pgbouncer-${version}"
echo "${ROOT}/bin/lab/pgbouncer-${version}"
