"""pypy-flask: the shared Flask app (gauntlet_kit.flask_app) on PyPy, with a psycopg2cffi pool
per worker, served by gunicorn's sync worker (gunicorn.conf.py puts gauntlet_kit on the path)."""
from gauntlet_kit.db import psycopg2_pool
from gauntlet_kit.flask_app import create_app

app = create_app(psycopg2_pool)
