"""One psycopg 3 pool per worker process (seed 001's per-worker model).

The pool opens when this module is imported, which gunicorn does in each worker after the fork
(it imports the app there). It opens in the background: a worker starts and answers /healthz
while connections come up.
"""
from __future__ import annotations

import psycopg
import psycopg_pool
from psycopg.rows import dict_row

from gauntlet_kit import settings
from gauntlet_kit.db import DOCUMENT, INT32_MAX, ITEMS, PING, TIME, NotConfigured

__all__ = ["ERRORS", "NotConfigured", "document", "items", "ping", "server_time"]

# Errors that mean the database, not the request, failed: the endpoint answers 500.
ERRORS = (psycopg.Error, psycopg_pool.PoolTimeout, OSError)

_SQL_DOCUMENT = DOCUMENT.format("%s")
_SQL_ITEMS = ITEMS.format("%s")


def _connection_options() -> dict:
    # autocommit: a read needs no BEGIN/COMMIT round trips (psycopg's advice for such work).
    options = {"autocommit": True}
    if settings.DB_PREPARED == "off":
        # Never prepare server-side, so PgBouncer's transaction mode can route every statement.
        options["prepare_threshold"] = None
    # on: psycopg's default, which prepares a statement after its 5th execution on a connection.
    return options


pool = None
if settings.DATABASE_URL is not None:
    pool = psycopg_pool.ConnectionPool(
        settings.DATABASE_URL,
        min_size=settings.DB_POOL_MIN,
        max_size=settings.DB_POOL_MAX,
        kwargs=_connection_options(),
        timeout=10,
        open=True,
    )


def _connection():
    if pool is None:
        raise NotConfigured()
    return pool.connection()


def _text(sql: str) -> str:
    """The single text value the statement returns."""
    with _connection() as conn:
        return conn.execute(sql).fetchone()[0]


def ping() -> str:
    return _text(PING)


def server_time() -> str:
    return _text(TIME)


def document(ident: int) -> dict | None:
    if ident > INT32_MAX:
        return None
    with _connection() as conn:
        return conn.cursor(row_factory=dict_row).execute(_SQL_DOCUMENT, (ident,)).fetchone()


def items(count: int) -> list[dict]:
    with _connection() as conn:
        return conn.cursor(row_factory=dict_row).execute(_SQL_ITEMS, (count,)).fetchall()
