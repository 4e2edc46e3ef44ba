"""python-flask: the shared Flask app (gauntlet_kit.flask_app) on a psycopg 3 pool per worker,
served by gunicorn's sync worker (gunicorn.conf.py puts gauntlet_kit on the path)."""
from gauntlet_kit.db import psycopg_pool
from gauntlet_kit.flask_app import create_app

app = create_app(psycopg_pool)
