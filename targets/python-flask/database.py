"""One psycopg 3 pool per gunicorn worker (seed 001's per-worker model).

gunicorn imports the app in each worker after the fork, so the module-level pool is per worker.
"""
from __future__ import annotations

import psycopg
import psycopg_pool
from psycopg.rows import dict_row

import settings


class NotConfigured(Exception):
    """DATABASE_URL is unset: the database endpoints answer 503."""


# Errors that mean the database, not the request, failed: the endpoint answers 500.
ERRORS = (psycopg.Error, psycopg_pool.PoolTimeout, OSError)


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
    # Opens in the background: a worker starts and answers /healthz while connections come up.
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


def text(sql: str) -> str:
    """The single text value the statement returns."""
    with _connection() as conn:
        return conn.execute(sql).fetchone()[0]


def row(sql: str, args: tuple) -> dict | None:
    with _connection() as conn:
        return conn.cursor(row_factory=dict_row).execute(sql, args).fetchone()


def rows(sql: str, args: tuple) -> list[dict]:
    with _connection() as conn:
        return conn.cursor(row_factory=dict_row).execute(sql, args).fetchall()
