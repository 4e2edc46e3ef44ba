"""python-flask-eventlet: the shared Flask app (gauntlet_kit.flask_app) on green threads, with a
psycopg2 pool per worker, served by gunicorn's eventlet worker (gunicorn.conf.py puts
gauntlet_kit on the path).

psycogreen makes psycopg2 wait for the server through eventlet's hub, so a query yields to the
worker's other green threads (psycopg2 documents this wait-callback hook for coroutine
libraries). It is installed here, before the app's first connection.
"""
from psycogreen.eventlet import patch_psycopg

from gauntlet_kit.db import psycopg2_pool
from gauntlet_kit.flask_app import create_app

patch_psycopg()
app = create_app(psycopg2_pool)
