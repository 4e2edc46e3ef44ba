"""FastAPI at its public ceiling for the contract's ping: one route returning a response object
built per request and rendered by orjson (FastAPI's ORJSONResponse, as the TechEmpower FastAPI
app does), no validation, no OpenAPI routes, served by gunicorn with uvicorn's worker
(gunicorn.conf.py)."""
from fastapi import FastAPI
from fastapi.responses import ORJSONResponse

app = FastAPI(docs_url=None, redoc_url=None, openapi_url=None)


@app.get("/api/ping")
async def ping():
    return ORJSONResponse({"ok": True, "message": "OK"})
