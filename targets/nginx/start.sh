#!/bin/sh
# Renders nginx.conf from the environment into a prefix of its own and execs nginx in the
# foreground, so the measured process tree is nginx alone. Works as root and as any user.
# shellcheck disable=SC2015  # A && B || C here means "fail unless both hold": C runs when A or B fails
set -eu
PORT=${PORT:-8080}
WORKERS=${WORKERS:-1}
HOST=${HOST:-0.0.0.0}
is_int() { case $1 in '' | *[!0-9]*) return 1 ;; esac; }
is_int "$PORT" && [ "$PORT" -ge 1 ] && [ "$PORT" -le 65535 ] ||
  { echo "nginx target: PORT must be an integer in 1..65535, got '$PORT'" >&2; exit 2; }
# An IPv4 address: four numbers 0..255 (it goes into nginx.conf, so nothing else gets through).
is_ipv4() {
  case $1 in *[!0-9.]* | .* | *. | *..*) return 1 ;; esac
  old_ifs=$IFS; IFS=.
  # shellcheck disable=SC2086  # split on the dots (IFS=.)
  set -- $1
  IFS=$old_ifs
  [ $# -eq 4 ] || return 1
  for n; do [ ${#n} -le 3 ] && [ "$n" -le 255 ] || return 1; done
}
is_ipv4 "$HOST" ||
  { echo "nginx target: HOST must be an IPv4 address, got '$HOST'" >&2; exit 2; }
is_int "$WORKERS" && [ "$WORKERS" -ge 1 ] ||
  { echo "nginx target: WORKERS must be a positive integer, got '$WORKERS'" >&2; exit 2; }

here=$(cd "$(dirname "$0")" && pwd)
# One prefix per port: a restart reuses it instead of leaving temp folders behind.
prefix="${TMPDIR:-/tmp}/gauntlet-nginx-$PORT"
rm -rf "$prefix"
mkdir -p "$prefix/tmp"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@HOST@|$HOST|g" -e "s|@PORT@|$PORT|g" -e "s|@WORKERS@|$WORKERS|g" \
  "$here/nginx.conf.in" > "$prefix/nginx.conf"
# As many connections as the hard limit allows (the seeds use up to 10,000 connections).
# shellcheck disable=SC3045  # dash and busybox sh have ulimit -H and -n; a shell without them fails quietly
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
# -e stderr: no attempt to open /var/log/nginx before the configuration is read.
exec nginx -p "$prefix" -c "$prefix/nginx.conf" -e stderr -g 'daemon off;'
