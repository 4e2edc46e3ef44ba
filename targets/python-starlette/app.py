"""Starlette implementation of targets/CONTRACT.md (seed 000's stack: Starlette on uvicorn).

Responses are pre-serialized or orjson bytes (Starlette's documented custom-response route);
/health has a pure ASGI middleware on its route only.
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

import database
import params
from primes import primes_below

JSON = "application/json; charset=utf-8"
PING = b'{"ok":true,"message":"OK"}'
DEVICES = (
    b'[{"id":1,"type":"lightbulb","on":true},{"id":2,"type":"thermostat","on":true},'
    b'{"id":3,"type":"lock","on":false},{"id":4,"type":"camera","on":true},'
    b'{"id":5,"type":"sensor","on":true}]'
)
SQL_PING = "SELECT json_build_object('ok', true, 'message', 'OK')::text"
SQL_TIME = "SELECT json_build_object('serverTime', extract(epoch from now())::integer)::text"
SQL_DOCUMENT = "SELECT id, queue, sender, subject, body, created_at, ttl FROM documents WHERE id = $1"
SQL_ITEMS = "SELECT id, name, category, price_cents, in_stock, updated_at FROM items ORDER BY id LIMIT $1"
INT32_MAX = 2**31 - 1


def raw(body: bytes | str, status: int = 200) -> Response:
    return Response(body, status_code=status, media_type=JSON)


def error(status: int, reason: str) -> Response:
    return raw(orjson.dumps({"error": reason}), status)


async def healthz(_: Request) -> Response:
    return raw(b'{"status":"ok"}')


async def ping(_: Request) -> Response:
    return raw(PING)


async def server_time(_: Request) -> Response:
    return raw(b'{"serverTime":%d}' % int(time.time()))


async def db_ping(_: Request) -> Response:
    return raw(await (await database.pool()).fetchval(SQL_PING))


async def db_time(_: Request) -> Response:
    return raw(await (await database.pool()).fetchval(SQL_TIME))


async def devices_status(_: Request) -> Response:
    return raw(DEVICES)


def command_error(body: object) -> str | None:
    """Why a device command body is invalid, or None when it is valid."""
    if not isinstance(body, dict):
        return "body must be a JSON object"
    action = body.get("action")
    if not isinstance(action, str) or not action:
        return "action must be a non-empty string"
    # bool is an int in Python, but true is not a number in JSON.
    if "value" in body and (isinstance(body["value"], bool) or not isinstance(body["value"], (int, float))):
        return "value must be a number"
    if "unit" in body and not isinstance(body["unit"], str):
        return "unit must be a string"
    return None


async def device_command(request: Request) -> Response:
    ident = params.positive_id(request.path_params["device_id"])
    if ident is None:
        return error(400, "device id must be a positive integer")
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        return error(400, "body is not valid JSON")
    reason = command_error(body)
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
    return raw(b'{"event":"motion","deviceId":5,"ts":%d}' % int(time.time() * 1000))


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
    if ident > INT32_MAX:  # documents.id is an integer column: no such row
        return error(404, "not found")
    row = await (await database.pool()).fetchrow(SQL_DOCUMENT, ident)
    if row is None:
        return error(404, "not found")
    return raw(orjson.dumps(dict(row)))


async def db_documents(request: Request) -> Response:
    count = params.bounded(request.query_params.get("limit"), 10, 1, 100)
    if count is None:
        return error(400, "limit must be an integer in 1..100")
    rows = await (await database.pool()).fetch(SQL_ITEMS, count)
    return raw(orjson.dumps([dict(row) for row in rows]))


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


_reported = False


async def database_failed(_: Request, exc: Exception) -> Response:
    global _reported
    if not _reported:  # once per worker: a log line per failed request would be its own load
        _reported = True
        print(f"database error (reported once per worker): {exc!r}", flush=True)
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
    database.NotConfigured: no_database,
    **{kind: database_failed for kind in database.ERRORS},
}

app = Starlette(routes=routes, exception_handlers=exception_handlers, lifespan=lifespan)
