"""Compact JSON as bytes: orjson where the target installs it (CPython), else the standard json
module (PyPy: orjson does not build there). Both write no spaces after separators."""
from __future__ import annotations

import json

try:
    import orjson

    dumps, loads, JSONError = orjson.dumps, orjson.loads, orjson.JSONDecodeError
except ImportError:  # PyPy

    def dumps(value) -> bytes:
        return json.dumps(value, separators=(",", ":")).encode()

    loads, JSONError = json.loads, ValueError
