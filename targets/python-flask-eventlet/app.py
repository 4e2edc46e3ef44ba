"""Flask implementation of targets/CONTRACT.md, served by gunicorn sync workers.

The same file serves python-flask (CPython, psycopg 3, orjson), python-flask-eventlet (green
threads, psycopg2) and pypy-flask (PyPy, psycopg2cffi, the standard json module: orjson does not
build on PyPy); only database.py differs. Bodies are built as bytes and sent with the contract's
Content-Type; Flask's jsonify would sort keys and omit the charset.
"""
from __future__ import annotations

import json
import time
import uuid

from flask import Flask, Response, request
from werkzeug.exceptions import HTTPException

import database
import params
from primes import primes_below

try:
    import orjson

    dumps, loads, JSONError = orjson.dumps, orjson.loads, orjson.JSONDecodeError
except ImportError:  # PyPy

    def dumps(value) -> bytes:
        return json.dumps(value, separators=(",", ":")).encode()

    loads, JSONError = json.loads, ValueError

JSON = "application/json; charset=utf-8"
PING = b'{"ok":true,"message":"OK"}'
DEVICES = (
    b'[{"id":1,"type":"lightbulb","on":true},{"id":2,"type":"thermostat","on":true},'
    b'{"id":3,"type":"lock","on":false},{"id":4,"type":"camera","on":true},'
    b'{"id":5,"type":"sensor","on":true}]'
)
SQL_PING = "SELECT json_build_object('ok', true, 'message', 'OK')::text"
SQL_TIME = "SELECT json_build_object('serverTime', extract(epoch from now())::integer)::text"
SQL_DOCUMENT = "SELECT id, queue, sender, subject, body, created_at, ttl FROM documents WHERE id = %s"
SQL_ITEMS = "SELECT id, name, category, price_cents, in_stock, updated_at FROM items ORDER BY id LIMIT %s"
INT32_MAX = 2**31 - 1

app = Flask(__name__)


def raw(body, status: int = 200) -> Response:
    return Response(body, status=status, content_type=JSON)


def error(status: int, reason: str) -> Response:
    return raw(dumps({"error": reason}), status)


@app.errorhandler(HTTPException)
def http_error(exc: HTTPException) -> Response:
    response = error(exc.code or 500, (exc.name or "error").lower())
    allow = exc.get_response().headers.get("Allow")
    if allow:
        response.headers["Allow"] = allow
    return response


@app.errorhandler(database.NotConfigured)
def no_database(_: Exception) -> Response:
    return error(503, "database not configured")


_reported = False


def database_failed(exc: Exception) -> Response:
    global _reported
    if not _reported:  # once per worker: a log line per failed request would be its own load
        _reported = True
        app.logger.error("database error (reported once per worker): %r", exc)
    return error(500, "database error")


for _error in database.ERRORS:
    app.register_error_handler(_error, database_failed)


@app.get("/healthz")
def healthz() -> Response:
    return raw(b'{"status":"ok"}')


@app.get("/api/ping")
def ping() -> Response:
    return raw(PING)


@app.get("/api/time")
def server_time() -> Response:
    return raw(b'{"serverTime":%d}' % int(time.time()))


@app.get("/api/db/ping")
def db_ping() -> Response:
    return raw(database.text(SQL_PING))


@app.get("/api/db/time")
def db_time() -> Response:
    return raw(database.text(SQL_TIME))


@app.get("/devices/status")
def devices_status() -> Response:
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


@app.post("/devices/<device_id>/command")
def device_command(device_id: str) -> Response:
    ident = params.positive_id(device_id)
    if ident is None:
        return error(400, "device id must be a positive integer")
    try:
        body = loads(request.get_data())
    except JSONError:
        return error(400, "body is not valid JSON")
    reason = command_error(body)
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
    return raw(b'{"event":"motion","deviceId":5,"ts":%d}' % int(time.time() * 1000))


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


@app.get("/health")
@timed
def health() -> Response:
    return raw(dumps({"status": "ok", "timestamp": int(time.time() * 1000), "framework": "Flask"}))


@app.get("/api/db/document/<doc_id>")
def db_document(doc_id: str) -> Response:
    ident = params.positive_id(doc_id)
    if ident is None:
        return error(400, "document id must be a positive integer")
    if ident > INT32_MAX:  # documents.id is an integer column: no such row
        return error(404, "not found")
    row = database.row(SQL_DOCUMENT, (ident,))
    if row is None:
        return error(404, "not found")
    return raw(dumps(row))


@app.get("/api/db/documents")
def db_documents() -> Response:
    count = params.bounded(request.args.get("limit"), 10, 1, 100)
    if count is None:
        return error(400, "limit must be an integer in 1..100")
    return raw(dumps(database.rows(SQL_ITEMS, (count,))))


@app.get("/api/cpu/primes")
def cpu_primes() -> Response:
    limit = params.bounded(request.args.get("n"), 1_000_000, 2, 10_000_000)
    if limit is None:
        return error(400, "n must be an integer in 2..10000000")
    return raw(dumps(primes_below(limit)))
