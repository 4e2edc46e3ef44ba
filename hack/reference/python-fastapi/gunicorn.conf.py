"""gunicorn settings of the Python references: the TechEmpower-style process model (gunicorn
master, uvicorn's worker class, which picks uvloop and httptools when they are installed)."""
import os

bind = f"127.0.0.1:{os.environ['PORT']}"
workers = int(os.environ.get("WORKERS", "1"))
worker_class = "uvicorn_worker.UvicornWorker"
keepalive = 120
loglevel = "error"
accesslog = None
