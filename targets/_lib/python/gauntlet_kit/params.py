"""Parsing of path, query and body values exactly as targets/CONTRACT.md defines them.

Each parser returns the value, or None when the input must answer 400.
"""
from __future__ import annotations

INT64_MAX = 2**63 - 1


def _digits(raw: str) -> int | None:
    # isdigit alone accepts non-ASCII digits such as '²'; the contract means 0-9.
    if raw and raw.isascii() and raw.isdigit():
        return int(raw)
    return None


def positive_id(raw: str) -> int | None:
    value = _digits(raw)
    return value if value is not None and 0 < value <= INT64_MAX else None


def bounded(raw: str | None, default: int, low: int, high: int) -> int | None:
    """An integer in low..high, default when the parameter is absent."""
    if raw is None:
        return default
    value = _digits(raw)
    return value if value is not None and low <= value <= high else None


def wait_ms(raw: str | None) -> int | None:
    """The long poll's wait: a non-negative integer, capped at 500 ms."""
    if raw is None:
        return 0
    value = _digits(raw)
    return None if value is None else min(value, 500)


def command_error(body: object) -> str | None:
    """Why a decoded device command body is invalid, or None when it is valid.

    python-fastapi checks the same rules with a pydantic model instead (its framework's way).
    """
    if not isinstance(body, dict):
        return "body must be a JSON object"
    action = body.get("action")
    if not isinstance(action, str) or not action:
        return "action must be a non-empty string"
    # bool is an int in Python, but true is not a number in JSON.
    if "value" in body and (isinstance(body["value"], bool) or not isinstance(body["value"], (int, float))):
        return "value must be a number"
    if "unit" in body and not isinstance(body["unit"], str):
        return "unit must be a string"
    return None
