"""gauntlet_kit: the framework-independent pieces of the Python targets (targets/CONTRACT.md).

settings (the environment, validated), params (input rules), primes (seed 003's CPU work),
bodies (the fixed response bodies), jsoncodec (orjson, or the standard json module on PyPy),
db.* (one database layer per driver family), flask_app (the Flask app of python-flask,
python-flask-eventlet and pypy-flask) and uvicorn_server (the uvicorn runner of python-fastapi
and python-starlette). Each framework's own code stays in its target folder.

How the targets import it: each entrypoint (server.py, gunicorn.conf.py) puts targets/_lib/python
on sys.path, relative to its own file. The Docker images copy the same layout (the build context
is targets/: /app/<target> and /app/_lib/python), so one relative path serves local mode and the
image. No packaging step: the venvs stay a plain install of the pinned requirements.txt (no
build backend to fetch, no `pip check` exception, no copy in the venv that can go stale), and
hack/targets/python.sh's cache key does not depend on this folder. gunicorn forks its workers
after reading gunicorn.conf.py and uvicorn's spawned workers receive the parent's sys.path, so
every worker sees the entry.

Nothing here imports a framework or a driver at package import: a target pulls in only the
modules it uses.
"""
