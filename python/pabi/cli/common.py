"""Argument types and helpers shared by the sub-commands."""

from __future__ import annotations

import argparse
import math
from typing import Any

from .formatting import dumps


def number(text: str) -> float:
    """A real number (the API validates the domain and names the parameter)."""
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def numbers(text: str) -> list[float]:
    """A number or a comma-separated list of numbers (an empty item is an error, not skipped)."""
    items = str(text).split(",")
    if not any(x.strip() for x in items):
        raise argparse.ArgumentTypeError(f"expected at least one number, got {text!r}")
    if any(not x.strip() for x in items):
        raise argparse.ArgumentTypeError(f"empty item in the comma-separated list {text!r}")
    try:
        return [float(x) for x in items]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number or a comma-separated list of numbers, got {text!r}") from None


def integer(text: str) -> int:
    """An integer; '1e6' and '1000.0' are accepted when they hold an integer."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if not math.isfinite(v) or v != int(v):
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}")
    return int(v)


def add_json(p: argparse.ArgumentParser) -> None:
    p.add_argument("--json", action="store_true", help="machine-readable JSON output instead of a table")


def emit(args: argparse.Namespace, payload: Any, text: str) -> int:
    print(dumps(payload) if getattr(args, "json", False) else text)
    return 0
