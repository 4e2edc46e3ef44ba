"""Runs an ASGI app on uvicorn with HOST, PORT and WORKERS from the environment: the server of
python-fastapi and python-starlette (each worker process owns its own database pool)."""
import signal
import sys

import uvicorn

from gauntlet_kit import settings


def run(app: str) -> None:
    """Serves app ("module:attribute", imported by each worker) until SIGTERM."""
    # uvicorn re-raises SIGTERM once its graceful shutdown is done, which would end a
    # single-process server with status 143; the contract wants exit 0 after a clean stop.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    uvicorn.run(
        app,
        host=settings.HOST,
        port=settings.PORT,
        workers=settings.WORKERS,
        loop="uvloop",  # uvicorn's documented fast path: uvloop + httptools
        http="httptools",
        access_log=False,
        log_level="info",  # only start and stop lines: access logging is off
        timeout_graceful_shutdown=8,  # the contract's 10 s bound, with a margin
    )
