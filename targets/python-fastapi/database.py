"""One asyncpg pool per worker process (seed 001's per-worker model), created on first use.

Created lazily so a worker starts and answers /healthz even while PostgreSQL is still coming
up; a failed creation is retried by the next request.
"""
import asyncio

import asyncpg

import settings


class NotConfigured(Exception):
    """DATABASE_URL is unset: the database endpoints answer 503."""


# Errors that mean the database, not the request, failed: the endpoint answers 500.
ERRORS = (asyncpg.PostgresError, asyncpg.InterfaceError, OSError, asyncio.TimeoutError)

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
