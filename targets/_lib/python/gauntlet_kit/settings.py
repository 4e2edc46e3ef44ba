"""Configuration from the environment (targets/CONTRACT.md), checked once at import.

A bad value stops the server with a message naming the variable, before any worker starts.
"""
import ipaddress
import os
import sys


def _int(name: str, default: int, low: int, high: int) -> int:
    raw = os.environ.get(name, "")
    if raw == "":
        return default
    if not (raw.isascii() and raw.isdigit()) or not low <= int(raw) <= high:
        sys.exit(f"{name}={raw!r}: want an integer in {low}..{high}")
    return int(raw)


PORT = _int("PORT", 8080, 1, 65535)

# The listen address: the local mode sets 127.0.0.1; unset (the cluster) is every interface.
HOST = os.environ.get("HOST", "") or "0.0.0.0"
try:
    ipaddress.IPv4Address(HOST)
except ValueError:
    sys.exit(f"HOST={HOST!r}: want an IPv4 address")
WORKERS = _int("WORKERS", 1, 1, 1024)
DB_POOL_MIN = _int("DB_POOL_MIN", 5, 0, 1000)
DB_POOL_MAX = _int("DB_POOL_MAX", 15, 1, 1000)
if DB_POOL_MIN > DB_POOL_MAX:
    sys.exit(f"DB_POOL_MIN={DB_POOL_MIN} is above DB_POOL_MAX={DB_POOL_MAX}")

DB_PREPARED = os.environ.get("DB_PREPARED", "") or "on"
if DB_PREPARED not in ("on", "off"):
    sys.exit(f"DB_PREPARED={DB_PREPARED!r}: want on or off")

# Unset means the database endpoints answer 503.
DATABASE_URL = os.environ.get("DATABASE_URL", "") or None
if DATABASE_URL and not DATABASE_URL.startswith(("postgres://", "postgresql://")):
    sys.exit("DATABASE_URL: want postgres://USER:PASSWORD@HOST:PORT/DB?sslmode=disable")
