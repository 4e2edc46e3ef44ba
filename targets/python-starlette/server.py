"""Starts the Starlette app (app:app) on uvicorn, through gauntlet_kit.uvicorn_server."""
import os
import sys

# gauntlet_kit (targets/_lib/python, at the same place relative to this file in the image) on
# the path; uvicorn's worker processes inherit it: gauntlet_kit/__init__.py says why.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib", "python"))

from gauntlet_kit import uvicorn_server  # noqa: E402

if __name__ == "__main__":
    uvicorn_server.run("app:app")
