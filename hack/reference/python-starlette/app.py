"""Starlette at its public ceiling for the contract's ping: one route, a Response subclass that
renders with orjson (Starlette's documented custom-response route), a new response per request
(none cached across requests), served by gunicorn with uvicorn's worker (gunicorn.conf.py)."""
import orjson
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route


class ORJSONResponse(Response):
    media_type = "application/json"

    def render(self, content) -> bytes:
        return orjson.dumps(content)


async def ping(request):
    return ORJSONResponse({"ok": True, "message": "OK"})


app = Starlette(routes=[Route("/api/ping", ping)])
