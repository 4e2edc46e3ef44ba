"""Starlette's minimal app (its docs' first example), answering the contract's ping."""
from starlette.applications import Starlette
from starlette.responses import Response
from starlette.routing import Route

BODY = b'{"ok":true,"message":"OK"}'


async def ping(request):
    return Response(BODY, media_type="application/json")


app = Starlette(routes=[Route("/api/ping", ping)])
