"""TOML configuration files of the ``pabi`` command.

``pabi SUBCOMMAND --config FILE [flags]`` reads option values from FILE: either a table named
after the sub-command (``[pnsgd]``, ``[dpsgd]``, ``[last-iterate]`` or ``[last_iterate]``, ...)
or, when there is no such table, the top-level keys. Keys are the long option names with or
without the leading ``--`` and with ``-`` or ``_`` (``strong-convexity`` = ``strong_convexity``);
lists become comma lists (``eps = [0.5, 1, 2]``), ``true`` switches a flag on. Flags given on the
command line override the file. Unknown keys are errors.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


class CliError(Exception):
    """A user error: printed as one line ``pabi: error: ...`` with exit status ``status``."""

    def __init__(self, message: str, status: int = 2) -> None:
        super().__init__(message)
        self.status = status


def load_toml(path: str | Path) -> dict[str, Any]:
    """Parse a TOML file; CliError (one line) when it is missing, unreadable or malformed."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise CliError(f"config file not found: {p}") from None
    except IsADirectoryError:
        raise CliError(f"config file is a directory: {p}") from None
    except OSError as exc:
        raise CliError(f"cannot read config file {p}: {exc.strerror or exc}") from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError:
        raise CliError(f"{p}: not a UTF-8 text file") from None
    except tomllib.TOMLDecodeError as exc:
        raise CliError(f"{p}: invalid TOML: {exc}") from None


def _option_actions(parser: argparse.ArgumentParser) -> dict[str, argparse.Action]:
    """Long option name (without dashes, '-' and '_' unified) → action."""
    out: dict[str, argparse.Action] = {}
    for action in parser._actions:
        for s in action.option_strings:
            if s.startswith("--") and s not in ("--help", "--config") and not (
                    isinstance(action, argparse.BooleanOptionalAction) and s.startswith("--no-")):
                out[s[2:].replace("_", "-")] = action
    return out


def _token(value: Any, key: str, path: str) -> str:
    if isinstance(value, bool):
        raise CliError(f"{path}: key {key!r} must be a number or string here, got a boolean")
    if isinstance(value, (int, float, str)):
        return str(value)
    if isinstance(value, list) and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        return ",".join(str(v) for v in value)
    raise CliError(f"{path}: key {key!r} has an unsupported value {value!r}")


def config_tokens(parser: argparse.ArgumentParser, command: str, path: str) -> list[str]:
    """Command-line tokens equivalent to the options stored in the TOML file ``path``."""
    data = load_toml(path)
    section: Any = None
    for name in (command, command.replace("-", "_")):
        if isinstance(data.get(name), dict):
            section = data[name]
            break
    if section is None:
        section = {k: v for k, v in data.items() if not isinstance(v, dict)}
    actions = _option_actions(parser)
    tokens: list[str] = []
    for raw_key, value in section.items():
        key = raw_key.lstrip("-").replace("_", "-")
        action = actions.get(key)
        if action is None:
            allowed = ", ".join(sorted(actions))
            raise CliError(f"{path}: unknown key {raw_key!r} for 'pabi {command}' (allowed: {allowed})")
        flag = "--" + key
        if action.nargs == 0:  # store_true / store_false / --x/--no-x
            if not isinstance(value, bool):
                raise CliError(f"{path}: key {raw_key!r} must be true or false, got {value!r}")
            if isinstance(action, argparse.BooleanOptionalAction):
                tokens.append(flag if value else "--no-" + key)
            elif value:
                tokens.append(flag)
            continue
        tokens += [flag, _token(value, raw_key, path)]
    return tokens


def split_config(argv: list[str]) -> tuple[str | None, list[str]]:
    """Remove ``--config FILE`` / ``--config=FILE`` from argv; return (FILE or None, rest)."""
    rest: list[str] = []
    path: str | None = None
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            rest += argv[i:]
            break
        if tok == "--config":
            if i + 1 >= len(argv):
                raise CliError("argument --config: expected one argument")
            path = argv[i + 1]
            i += 2
            continue
        if tok.startswith("--config="):
            path = tok.split("=", 1)[1]
            i += 1
            continue
        rest.append(tok)
        i += 1
    return path, rest
