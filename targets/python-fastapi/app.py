"""FastAPI implementation of targets/CONTRACT.md.

Seed 001's endpoints return raw Response objects (the seed's fast path); /health returns a
pydantic model through response_model with a route-level timing middleware (seed 004). The
framework-independent pieces come from gauntlet_kit, which server.py puts on the path.
"""
import asyncio
import time
import uuid
from contextlib import asynccontextmanager
from typing import Annotated

import orjson
from fastapi import APIRouter, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import ORJSONResponse, Response
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field, StrictFloat, StrictInt, StrictStr
from starlette.exceptions import HTTPException

from gauntlet_kit import params
from gauntlet_kit.bodies import DEVICES, EVENT, HEALTHZ, JSON, PING, TIME
from gauntlet_kit.db import NotConfigured, report_once
from gauntlet_kit.db import asyncpg_pool as database
from gauntlet_kit.primes import primes_below


class JSONResponse(ORJSONResponse):
    """orjson, with the charset the contract asks for."""

    media_type = JSON


def raw(body: bytes | str, status: int = 200) -> Response:
    return Response(content=body, status_code=status, media_type=JSON)


def error(status: int, reason: str) -> Response:
    return raw(orjson.dumps({"error": reason}), status)


@asynccontextmanager
async def lifespan(_: FastAPI):
    yield
    await database.close()


app = FastAPI(
    default_response_class=JSONResponse,
    docs_url=None,
    redoc_url=None,
    openapi_url=None,
    lifespan=lifespan,
)


@app.exception_handler(HTTPException)
async def http_error(_: Request, exc: HTTPException) -> Response:
    response = error(exc.status_code, str(exc.detail).lower())
    if exc.headers:
        response.headers.update(exc.headers)
    return response


@app.exception_handler(RequestValidationError)
async def invalid_request(_: Request, exc: RequestValidationError) -> Response:
    first = exc.errors()[0]
    where = ".".join(str(part) for part in first.get("loc", ())[1:])
    return error(400, f"{where}: {first['msg']}" if where else first["msg"])


@app.exception_handler(NotConfigured)
async def no_database(_: Request, __: Exception) -> Response:
    return error(503, "database not configured")


async def database_failed(_: Request, exc: Exception) -> Response:
    report_once(exc)
    return error(500, "database error")


for _error in database.ERRORS:
    app.add_exception_handler(_error, database_failed)


@app.get("/healthz")
async def healthz() -> Response:
    return raw(HEALTHZ)


@app.get("/api/ping")
async def ping() -> Response:
    return raw(PING)


@app.get("/api/time")
async def server_time() -> Response:
    return raw(TIME % int(time.time()))


@app.get("/api/db/ping")
async def db_ping() -> Response:
    return raw(await database.ping())


@app.get("/api/db/time")
async def db_time() -> Response:
    return raw(await database.server_time())


@app.get("/devices/status")
async def devices_status() -> Response:
    return raw(DEVICES)


class Command(BaseModel):
    action: Annotated[StrictStr, Field(min_length=1)]
    # No None in the types: an explicit null is not a number or a string.
    value: StrictInt | StrictFloat = None
    unit: StrictStr = None


# The id is checked by params rather than by an int annotation, so every target accepts
# exactly the same ids (pydantic's lax int also takes '+5' and '1_0').
@app.post("/devices/{device_id}/command")
async def device_command(device_id: str, command: Command) -> Response:
    ident = params.positive_id(device_id)
    if ident is None:
        return error(400, "device id must be a positive integer")
    await asyncio.sleep(0.002)  # simulated hardware latency, without blocking the loop
    return raw(orjson.dumps(
        {"deviceId": ident, "action": command.action, "status": "accepted", "latencyMs": 2}
    ))


@app.get("/events/live")
async def events_live(wait: str | None = None) -> Response:
    ms = params.wait_ms(wait)
    if ms is None:
        return error(400, "wait must be a non-negative integer")
    if ms:
        await asyncio.sleep(ms / 1000)
    return raw(EVENT % int(time.time() * 1000))


class Health(BaseModel):
    status: str = "ok"
    timestamp: int
    framework: str = "FastAPI"


class TimedRoute(APIRoute):
    """Route-level middleware for /health only (FastAPI's documented custom APIRoute)."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def timed(request: Request) -> Response:
            start = time.perf_counter()
            response = await handler(request)
            response.headers["X-Request-ID"] = uuid.uuid4().hex
            response.headers["X-Response-Time"] = f"{(time.perf_counter() - start) * 1000:.2f}ms"
            return response

        return timed


health_router = APIRouter(route_class=TimedRoute)


@health_router.get("/health", response_model=Health)
async def health() -> dict:
    return {"status": "ok", "timestamp": int(time.time() * 1000), "framework": "FastAPI"}


app.include_router(health_router)


@app.get("/api/db/document/{doc_id}")
async def db_document(doc_id: str) -> Response:
    ident = params.positive_id(doc_id)
    if ident is None:
        return error(400, "document id must be a positive integer")
    row = await database.document(ident)
    if row is None:
        return error(404, "not found")
    return raw(orjson.dumps(row))


@app.get("/api/db/documents")
async def db_documents(limit: str | None = None) -> Response:
    count = params.bounded(limit, 10, 1, 100)
    if count is None:
        return error(400, "limit must be an integer in 1..100")
    return raw(orjson.dumps(await database.items(count)))


@app.get("/api/cpu/primes")
async def cpu_primes(n: str | None = None) -> Response:
    limit = params.bounded(n, 1_000_000, 2, 10_000_000)
    if limit is None:
        return error(400, "n must be an integer in 2..10000000")
    # Computed on the event loop, like seed 003's servers: CPU work blocks this worker.
    return raw(orjson.dumps(primes_below(limit)))
