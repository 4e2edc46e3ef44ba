"""The database layers, one module per driver family, and what they share.

Every layer offers the contract's four reads (targets/CONTRACT.md, "Database endpoints"), as
plain functions for the blocking drivers and coroutines for asyncpg:
  ping() and server_time()  the text seed 001's two statements return, unchanged
  document(ident)           one documents row as a dict, or None when there is no such row
  items(count)              the first count rows of items (by id), as dicts
They raise NotConfigured when DATABASE_URL is unset (the endpoint answers 503) and one of the
layer's ERRORS when the database, not the request, failed (the endpoint answers 500).

  asyncpg_pool   asyncpg (python-fastapi, python-starlette)
  psycopg_pool   psycopg 3 (python-flask)
  psycopg2_pool  psycopg2, or psycopg2cffi on PyPy (python-flask-eventlet, pypy-flask, pypy-tornado)

Each worker process owns its own pool (seed 001's per-worker model): the layers create it at
import or on first use, and the servers import the app in each worker.
"""
from __future__ import annotations

PING = "SELECT json_build_object('ok', true, 'message', 'OK')::text"
TIME = "SELECT json_build_object('serverTime', extract(epoch from now())::integer)::text"
# The parameterised reads; each layer fills in its driver's placeholder ($1 or %s).
DOCUMENT = "SELECT id, queue, sender, subject, body, created_at, ttl FROM documents WHERE id = {}"
ITEMS = "SELECT id, name, category, price_cents, in_stock, updated_at FROM items ORDER BY id LIMIT {}"
# documents.id is an integer column: a larger id has no row, and is not sent to the server.
INT32_MAX = 2**31 - 1


class NotConfigured(Exception):
    """DATABASE_URL is unset: the database endpoints answer 503."""


_reported = False


def report_once(exc: Exception) -> None:
    """Logs the first database failure of this worker: a line per failed request would be its
    own load."""
    global _reported
    if not _reported:
        _reported = True
        print(f"database error (reported once per worker): {exc!r}", flush=True)
