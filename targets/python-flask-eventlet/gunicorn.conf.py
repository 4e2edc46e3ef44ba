"""gunicorn settings (read from the working directory): HOST, PORT and WORKERS from the environment."""
import os
import sys

# gauntlet_kit (targets/_lib/python, at the same place relative to this file in the image) on
# the path of this master and of the workers it forks: gauntlet_kit/__init__.py says why.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "_lib", "python"))

from gauntlet_kit import settings  # noqa: E402

bind = f"{settings.HOST}:{settings.PORT}"
workers = settings.WORKERS
worker_class = "eventlet"  # seed 002: green threads, many requests in flight per process
worker_connections = 1000  # gunicorn's default, stated: concurrent clients per worker
accesslog = None  # no per-request logging
loglevel = "info"  # start and stop lines only
graceful_timeout = 8  # finish in-flight requests within the contract's 10 s
# A worker silent this long is killed: the largest primes request (n = 10,000,000) takes
# about a minute on CPython and blocks the worker's heartbeat meanwhile.
timeout = 120
