"""One asyncpg pool per worker process (seed 001's per-worker model), created on first use.

Created lazily so a worker starts and answers /healthz even while PostgreSQL is still coming
up; a failed creation is retried by the next request.
"""
from __future__ import annotations

import asyncio

import asyncpg

from gauntlet_kit import settings
from gauntlet_kit.db import DOCUMENT, INT32_MAX, ITEMS, PING, TIME, NotConfigured

__all__ = ["ERRORS", "NotConfigured", "close", "document", "items", "ping", "pool", "server_time"]

# Errors that mean the database, not the request, failed: the endpoint answers 500.
ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, asyncio.TimeoutError)

_SQL_DOCUMENT = DOCUMENT.format("$1")
_SQL_ITEMS = ITEMS.format("$1")

_pool: asyncpg.Pool | None = None
_lock = asyncio.Lock()


def _options() -> dict:
    if settings.DB_PREPARED == "on":
        return {}  # asyncpg's default: named prepared statements, cached per connection
    # No statement cache: asyncpg then uses only the unnamed statement, which a PgBouncer in
    # transaction mode can route (asyncpg's FAQ for PgBouncer).
    return {"statement_cache_size": 0}


async def pool() -> asyncpg.Pool:
    global _pool
    if _pool is None:
        if settings.DATABASE_URL is None:
            raise NotConfigured()
        async with _lock:
            if _pool is None:
                _pool = await asyncpg.create_pool(
                    settings.DATABASE_URL,
                    min_size=settings.DB_POOL_MIN,
                    max_size=settings.DB_POOL_MAX,
                    **_options(),
                )
    return _pool


async def close() -> None:
    if _pool is not None:
        await asyncio.wait_for(_pool.close(), timeout=5)


async def ping() -> str:
    return await (await pool()).fetchval(PING)


async def server_time() -> str:
    return await (await pool()).fetchval(TIME)


async def document(ident: int) -> dict | None:
    if ident > INT32_MAX:
        return None
    row = await (await pool()).fetchrow(_SQL_DOCUMENT, ident)
    return None if row is None else dict(row)


async def items(count: int) -> list[dict]:
    return [dict(row) for row in await (await pool()).fetch(_SQL_ITEMS, count)]
