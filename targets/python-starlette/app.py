"""Starlette implementation of targets/CONTRACT.md (seed 000's stack: Starlette on uvicorn).

Responses are pre-serialized or orjson bytes (Starlette's documented custom-response route);
/health has a pure ASGI middleware on its route only. The framework-independent pieces come
from gauntlet_kit, which server.py puts on the path.
"""
import asyncio
import time
import uuid
from contextlib import asynccontextmanager

import orjson
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gauntlet_kit import params
from gauntlet_kit.bodies import DEVICES, EVENT, HEALTHZ, JSON, PING, TIME
from gauntlet_kit.db import NotConfigured, report_once
from gauntlet_kit.db import asyncpg_pool as database
from gauntlet_kit.primes import primes_below


def raw(body: bytes | str, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type=JSON)


def error(status: int, reason: str) -> Response:
    return raw(orjson.dumps({"error": reason}), status)


async def healthz(_: Request) -> Response:
    return raw(HEALTHZ)


async def ping(_: Request) -> Response:
    return raw(PING)


async def server_time(_: Request) -> Response:
    return raw(TIME % int(time.time()))


async def db_ping(_: Request) -> Response:
    return raw(await database.ping())


async def db_time(_: Request) -> Response:
    return raw(await database.server_time())


async def devices_status(_: Request) -> Response:
    return raw(DEVICES)


async def device_command(request: Request) -> Response:
    ident = params.positive_id(request.path_params["device_id"])
    if ident is None:
        return error(400, "device id must be a positive integer")
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        return error(400, "body is not valid JSON")
    reason = params.command_error(body)
    if reason:
        return error(400, reason)
    await asyncio.sleep(0.002)  # simulated hardware latency, without blocking the loop
    return raw(orjson.dumps(
        {"deviceId": ident, "action": body["action"], "status": "accepted", "latencyMs": 2}
    ))


async def events_live(request: Request) -> Response:
    ms = params.wait_ms(request.query_params.get("wait"))
    if ms is None:
        return error(400, "wait must be a non-negative integer")
    if ms:
        await asyncio.sleep(ms / 1000)
    return raw(EVENT % int(time.time() * 1000))


async def health(_: Request) -> Response:
    return raw(orjson.dumps({"status": "ok", "timestamp": int(time.time() * 1000), "framework": "Starlette"}))


class Timing:
    """Pure ASGI middleware (Starlette's recommended form) adding seed 004's two headers."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        start = time.perf_counter()

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                took = f"{(time.perf_counter() - start) * 1000:.2f}ms"
                message["headers"] = [
                    *message.get("headers", ()),
                    (b"x-request-id", uuid.uuid4().hex.encode()),
                    (b"x-response-time", took.encode()),
                ]
            await send(message)

        await self.app(scope, receive, send_with_headers)


async def db_document(request: Request) -> Response:
    ident = params.positive_id(request.path_params["doc_id"])
    if ident is None:
        return error(400, "document id must be a positive integer")
    row = await database.document(ident)
    if row is None:
        return error(404, "not found")
    return raw(orjson.dumps(row))


async def db_documents(request: Request) -> Response:
    count = params.bounded(request.query_params.get("limit"), 10, 1, 100)
    if count is None:
        return error(400, "limit must be an integer in 1..100")
    return raw(orjson.dumps(await database.items(count)))


async def cpu_primes(request: Request) -> Response:
    limit = params.bounded(request.query_params.get("n"), 1_000_000, 2, 10_000_000)
    if limit is None:
        return error(400, "n must be an integer in 2..10000000")
    # Computed on the event loop, like seed 003's servers: CPU work blocks this worker.
    return raw(orjson.dumps(primes_below(limit)))


async def http_error(_: Request, exc: HTTPException) -> Response:
    response = error(exc.status_code, exc.detail.lower())
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def no_database(_: Request, __: Exception) -> Response:
    return error(503, "database not configured")


async def database_failed(_: Request, exc: Exception) -> Response:
    report_once(exc)
    return error(500, "database error")


@asynccontextmanager
async def lifespan(_: Starlette):
    yield
    await database.close()


routes = [
    Route("/healthz", healthz),
    Route("/api/ping", ping),
    Route("/api/time", server_time),
    Route("/api/db/ping", db_ping),
    Route("/api/db/time", db_time),
    Route("/devices/status", devices_status),
    Route("/devices/{device_id}/command", device_command, methods=["POST"]),
    Route("/events/live", events_live),
    Route("/health", health, middleware=[Middleware(Timing)]),
    Route("/api/db/document/{doc_id}", db_document),
    Route("/api/db/documents", db_documents),
    Route("/api/cpu/primes", cpu_primes),
]

exception_handlers = {
    HTTPException: http_error,
    NotConfigured: no_database,
    **{kind: database_failed for kind in database.ERRORS},
}

app = Starlette(routes=routes, exception_handlers=exception_handlers, lifespan=lifespan)
