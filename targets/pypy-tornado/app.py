"""Tornado implementation of targets/CONTRACT.md, served by gunicorn's tornado worker (seed 002).

Bodies are built as bytes with the standard json module (gauntlet_kit.jsoncodec: Tornado's own
encoder puts spaces after separators) and sent with the contract's Content-Type. The database
driver blocks, so its calls run on a per-worker thread pool (Tornado's advice for blocking
libraries). gunicorn.conf.py puts gauntlet_kit on the path.
"""
from __future__ import annotations

import asyncio
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import tornado.web
from tornado.ioloop import IOLoop

from gauntlet_kit import params, settings
from gauntlet_kit.bodies import DEVICES, EVENT, HEALTHZ, JSON, PING, TIME
from gauntlet_kit.db import NotConfigured, report_once
from gauntlet_kit.db import psycopg2_pool as database
from gauntlet_kit.jsoncodec import JSONError, dumps, loads
from gauntlet_kit.primes import primes_below

# One per worker: gunicorn imports this module in each worker after the fork.
_db_threads = ThreadPoolExecutor(max_workers=settings.DB_POOL_MAX, thread_name_prefix="db")


class Handler(tornado.web.RequestHandler):
    """JSON everywhere, errors included; no ETag (hashing every body is not the fast path)."""

    def set_default_headers(self) -> None:
        self.set_header("Content-Type", JSON)

    def compute_etag(self):
        return None

    def send(self, body, status: int = 200) -> None:
        self.set_status(status)
        self.finish(body)

    def fail(self, status: int, reason: str) -> None:
        self.send(dumps({"error": reason}), status)

    def write_error(self, status_code: int, **kwargs) -> None:
        self.set_header("Content-Type", JSON)
        self.finish(dumps({"error": self._reason.lower()}))

    async def query(self, call, *args):
        """Runs a blocking database call off the IOLoop; None once an error answer is sent."""
        try:
            return await IOLoop.current().run_in_executor(_db_threads, call, *args)
        except NotConfigured:
            self.fail(503, "database not configured")
        except database.ERRORS as exc:
            report_once(exc)
            self.fail(500, "database error")
        return None


class NotFound(Handler):
    def prepare(self) -> None:
        self.fail(404, "not found")


class Healthz(Handler):
    def get(self) -> None:
        self.send(HEALTHZ)


class Ping(Handler):
    def get(self) -> None:
        self.send(PING)


class Time(Handler):
    def get(self) -> None:
        self.send(TIME % int(time.time()))


class DbText(Handler):
    def initialize(self, read) -> None:
        self.read = read  # database.ping or database.server_time

    async def get(self) -> None:
        text = await self.query(self.read)
        if text is not None:
            self.send(text)


class DevicesStatus(Handler):
    def get(self) -> None:
        self.send(DEVICES)


class DeviceCommand(Handler):
    async def post(self, device_id: str) -> None:
        ident = params.positive_id(device_id)
        if ident is None:
            return self.fail(400, "device id must be a positive integer")
        try:
            body = loads(self.request.body)
        except JSONError:
            return self.fail(400, "body is not valid JSON")
        reason = params.command_error(body)
        if reason:
            return self.fail(400, reason)
        await asyncio.sleep(0.002)  # simulated hardware latency, without blocking the IOLoop
        self.send(dumps({"deviceId": ident, "action": body["action"], "status": "accepted", "latencyMs": 2}))


class EventsLive(Handler):
    async def get(self) -> None:
        ms = params.wait_ms(self.get_query_argument("wait", None))
        if ms is None:
            return self.fail(400, "wait must be a non-negative integer")
        if ms:
            await asyncio.sleep(ms / 1000)
        self.send(EVENT % int(time.time() * 1000))


class Health(Handler):
    """Route-level middleware for /health only: seed 004's request id and response time."""

    def prepare(self) -> None:
        self._start = time.perf_counter()

    def finish(self, chunk=None):
        self.set_header("X-Request-ID", uuid.uuid4().hex)
        self.set_header("X-Response-Time", f"{(time.perf_counter() - self._start) * 1000:.2f}ms")
        return super().finish(chunk)

    def get(self) -> None:
        self.send(dumps({"status": "ok", "timestamp": int(time.time() * 1000), "framework": "Tornado"}))


class DbDocument(Handler):
    async def get(self, doc_id: str) -> None:
        ident = params.positive_id(doc_id)
        if ident is None:
            return self.fail(400, "document id must be a positive integer")
        found = await self.query(database.document, ident)
        if self._finished:
            return
        if found is None:
            return self.fail(404, "not found")
        self.send(dumps(found))


class DbDocuments(Handler):
    async def get(self) -> None:
        count = params.bounded(self.get_query_argument("limit", None), 10, 1, 100)
        if count is None:
            return self.fail(400, "limit must be an integer in 1..100")
        found = await self.query(database.items, count)
        if found is not None:
            self.send(dumps(found))


class CpuPrimes(Handler):
    def get(self) -> None:
        limit = params.bounded(self.get_query_argument("n", None), 1_000_000, 2, 10_000_000)
        if limit is None:
            return self.fail(400, "n must be an integer in 2..10000000")
        # Computed on the IOLoop, like seed 003's servers: CPU work blocks this worker.
        self.send(dumps(primes_below(limit)))


app = tornado.web.Application(
    [
        (r"/healthz", Healthz),
        (r"/api/ping", Ping),
        (r"/api/time", Time),
        (r"/api/db/ping", DbText, {"read": database.ping}),
        (r"/api/db/time", DbText, {"read": database.server_time}),
        (r"/devices/status", DevicesStatus),
        (r"/devices/([^/]+)/command", DeviceCommand),
        (r"/events/live", EventsLive),
        (r"/health", Health),
        (r"/api/db/document/([^/]+)", DbDocument),
        (r"/api/db/documents", DbDocuments),
        (r"/api/cpu/primes", CpuPrimes),
    ],
    default_handler_class=NotFound,
    log_function=lambda handler: None,  # no per-request logging
)
