"""One psycopg2-API pool per worker process (seed 001's per-worker model), created on first use.

On CPython the driver is psycopg2; python-flask-eventlet makes it cooperative with psycogreen
before the first query. On PyPy it is psycopg2cffi, psycopg2 built with cffi against libpq:
psycopg 3's pure-Python mode cannot connect on Debian's PyPy 7.3.11 (its libpq notice hook puts
a weakref in a ctypes py_object, which that PyPy rejects: pypy issue 3882, fixed in later PyPy).
DB_PREPARED has nothing to switch: psycopg2 never prepares statements on the server, so both
values work behind PgBouncer in transaction mode.

The threading primitives are green under gunicorn's eventlet worker, which monkey-patches the
standard library before it imports the app (and so this module).
"""
from __future__ import annotations

import sys
import threading
from contextlib import contextmanager

if sys.implementation.name == "pypy":
    from psycopg2cffi import compat

    compat.register()  # `import psycopg2` now loads psycopg2cffi

import psycopg2  # noqa: E402
import psycopg2.pool  # noqa: E402

from gauntlet_kit import settings  # noqa: E402
from gauntlet_kit.db import DOCUMENT, INT32_MAX, ITEMS, PING, TIME, NotConfigured  # noqa: E402

__all__ = ["ERRORS", "NotConfigured", "document", "items", "ping", "server_time"]

# Errors that mean the database, not the request, failed: the endpoint answers 500.
ERRORS = (psycopg2.Error, OSError)

_SQL_DOCUMENT = DOCUMENT.format("%s")
_SQL_ITEMS = ITEMS.format("%s")

_pool = None
_lock = threading.Lock()
# psycopg2's pool fails at once when all connections are out; callers wait for one instead.
_slots = threading.BoundedSemaphore(settings.DB_POOL_MAX)


def _get_pool():
    """Created on first use, so a worker boots and answers /healthz while PostgreSQL is down."""
    global _pool
    if settings.DATABASE_URL is None:
        raise NotConfigured()
    with _lock:
        if _pool is None:
            _pool = psycopg2.pool.ThreadedConnectionPool(
                settings.DB_POOL_MIN, settings.DB_POOL_MAX, settings.DATABASE_URL
            )
    return _pool


@contextmanager
def _cursor():
    pool = _get_pool()
    with _slots:
        conn = pool.getconn()
        broken = False
        try:
            if not conn.autocommit:
                conn.autocommit = True  # a read needs no BEGIN/COMMIT round trips
            with conn.cursor() as cur:
                yield cur
        except (psycopg2.OperationalError, psycopg2.InterfaceError):
            broken = True  # a lost connection must not go back into the pool
            raise
        finally:
            pool.putconn(conn, close=broken or bool(conn.closed))


def _text(sql: str) -> str:
    """The single text value the statement returns."""
    with _cursor() as cur:
        cur.execute(sql)
        return cur.fetchone()[0]


def _as_dict(cur, values) -> dict:
    return {column[0]: value for column, value in zip(cur.description, values)}


def ping() -> str:
    return _text(PING)


def server_time() -> str:
    return _text(TIME)


def document(ident: int) -> dict | None:
    if ident > INT32_MAX:
        return None
    with _cursor() as cur:
        cur.execute(_SQL_DOCUMENT, (ident,))
        found = cur.fetchone()
        return None if found is None else _as_dict(cur, found)


def items(count: int) -> list[dict]:
    with _cursor() as cur:
        cur.execute(_SQL_ITEMS, (count,))
        return [_as_dict(cur, values) for values in cur.fetchall()]
