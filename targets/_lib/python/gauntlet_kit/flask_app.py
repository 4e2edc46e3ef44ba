"""Flask implementation of targets/CONTRACT.md, served by gunicorn.

One app for python-flask (CPython, psycopg 3, orjson), python-flask-eventlet (green threads,
psycopg2) and pypy-flask (PyPy, psycopg2cffi, the standard json module): they differ only in the
database layer, which each target's app.py passes to create_app (Flask's application factory),
and in gunicorn's worker class. Bodies are built as bytes and sent with the contract's
Content-Type; Flask's jsonify would sort keys and omit the charset.
"""
from __future__ import annotations

import time
import uuid
from types import ModuleType

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

from gauntlet_kit import params
from gauntlet_kit.bodies import DEVICES, EVENT, HEALTHZ, JSON, PING, TIME
from gauntlet_kit.db import NotConfigured, report_once
from gauntlet_kit.jsoncodec import JSONError, dumps, loads
from gauntlet_kit.primes import primes_below


def raw(body, status: int = 200) -> Response:
    return Response(body, status=status, content_type=JSON)


def error(status: int, reason: str) -> Response:
    return raw(dumps({"error": reason}), status)


def timed(view):
    """Route-level middleware for /health only: seed 004's request id and response time."""

    def wrapper():
        start = time.perf_counter()
        response = view()
        response.headers["X-Request-ID"] = uuid.uuid4().hex
        response.headers["X-Response-Time"] = f"{(time.perf_counter() - start) * 1000:.2f}ms"
        return response

    wrapper.__name__ = view.__name__
    return wrapper


def create_app(database: ModuleType) -> Flask:
    """The app on one of gauntlet_kit.db's blocking layers (psycopg_pool or psycopg2_pool)."""
    app = Flask(__name__)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException) -> Response:
        response = error(exc.code or 500, (exc.name or "error").lower())
        allow = exc.get_response().headers.get("Allow")
        if allow:
            response.headers["Allow"] = allow
        return response

    @app.errorhandler(NotConfigured)
    def no_database(_: Exception) -> Response:
        return error(503, "database not configured")

    def database_failed(exc: Exception) -> Response:
        report_once(exc)
        return error(500, "database error")

    for kind in database.ERRORS:
        app.register_error_handler(kind, database_failed)

    @app.get("/healthz")
    def healthz() -> Response:
        return raw(HEALTHZ)

    @app.get("/api/ping")
    def ping() -> Response:
        return raw(PING)

    @app.get("/api/time")
    def server_time() -> Response:
        return raw(TIME % int(time.time()))

    @app.get("/api/db/ping")
    def db_ping() -> Response:
        return raw(database.ping())

    @app.get("/api/db/time")
    def db_time() -> Response:
        return raw(database.server_time())

    @app.get("/devices/status")
    def devices_status() -> Response:
        return raw(DEVICES)

    @app.post("/devices/<device_id>/command")
    def device_command(device_id: str) -> Response:
        ident = params.positive_id(device_id)
        if ident is None:
            return error(400, "device id must be a positive integer")
        try:
            body = loads(request.get_data())
        except JSONError:
            return error(400, "body is not valid JSON")
        reason = params.command_error(body)
        if reason:
            return error(400, reason)
        # Simulated hardware latency: a sync worker sleeps in place (green under eventlet).
        time.sleep(0.002)
        return raw(dumps({"deviceId": ident, "action": body["action"], "status": "accepted", "latencyMs": 2}))

    @app.get("/events/live")
    def events_live() -> Response:
        ms = params.wait_ms(request.args.get("wait"))
        if ms is None:
            return error(400, "wait must be a non-negative integer")
        if ms:
            time.sleep(ms / 1000)
        return raw(EVENT % int(time.time() * 1000))

    @app.get("/health")
    @timed
    def health() -> Response:
        return raw(dumps({"status": "ok", "timestamp": int(time.time() * 1000), "framework": "Flask"}))

    @app.get("/api/db/document/<doc_id>")
    def db_document(doc_id: str) -> Response:
        ident = params.positive_id(doc_id)
        if ident is None:
            return error(400, "document id must be a positive integer")
        row = database.document(ident)
        if row is None:
            return error(404, "not found")
        return raw(dumps(row))

    @app.get("/api/db/documents")
    def db_documents() -> Response:
        count = params.bounded(request.args.get("limit"), 10, 1, 100)
        if count is None:
            return error(400, "limit must be an integer in 1..100")
        return raw(dumps(database.items(count)))

    @app.get("/api/cpu/primes")
    def cpu_primes() -> Response:
        limit = params.bounded(request.args.get("n"), 1_000_000, 2, 10_000_000)
        if limit is None:
            return error(400, "n must be an integer in 2..10000000")
        return raw(dumps(primes_below(limit)))

    return app
