"""FastAPI at its public ceiling for the contract's ping: one route returning a Response built
per request from orjson's bytes (FastAPI's "return a Response directly": no validation, no
encoder; its ORJSONResponse, which the TechEmpower app used, is deprecated in this release and
warns on every instance), no OpenAPI routes, served by gunicorn with uvicorn's worker
(gunicorn.conf.py)."""
import orjson
from fastapi import FastAPI
from fastapi.responses import Response

app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)


@app.get("/api/ping")
async def ping():
    return Response(orjson.dumps({"ok": True, "message": "OK"}), media_type="application/json")
