"""Parsing of path and query values exactly as targets/CONTRACT.md defines them.

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
