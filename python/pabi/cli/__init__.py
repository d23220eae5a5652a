"""The ``pabi`` command (also ``python -m pabi``).

Sub-commands (``pabi COMMAND --help`` for each):

* ``demo``: θ, log θ, 1 − θ at a few settings and one headline number per bound family;
* ``theta EPS R``: the Gaussian hockey-stick divergence θ_{e^ε}(r) and its log/complement;
* ``pnsgd``: privacy amplification by iteration for projected noisy SGD (δ for ε, ε for δ, or
  the noise calibrated to a target);
* ``dpsgd``: the DP-SGD accountant (PLD with certified error bars; RDP route for comparison);
* ``per-instance FILE``: per-instance RDP / ε of DP-SGD from observed sensitivities (CSV/Parquet);
* ``last-iterate``: last-iterate RDP of cyclic DP-SGD (Kong–Ribero);
* ``report CONFIG.toml``: every applicable bound for one training setup, ranked;
* ``figures OUTDIR``: the source papers' figures as PNG (needs matplotlib).

Every sub-command prints a table by default and JSON with ``--json``; the numbers are exactly
those of the Python API. Options can also come from a TOML file (``--config FILE``; command-line
flags win). Errors are one line on stderr (``pabi: error: ...``) with exit status 2 for bad usage
or values, 1 for other failures.
"""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn, Sequence

from .config import CliError, config_tokens, split_config

__all__ = ["main", "build_parser", "CliError"]


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors (raised as CliError, printed by :func:`main`)."""

    def error(self, message: str) -> NoReturn:
        raise CliError(f"{message} (see '{self.prog} --help')", 2)


class _Formatter(argparse.RawDescriptionHelpFormatter):
    """Keep the hand-wrapped descriptions/epilogs, show defaults where they exist."""

    def _get_help_string(self, action: argparse.Action) -> str:
        h = action.help or ""
        if "%(default)" not in h and action.default not in (None, False, argparse.SUPPRESS) \
                and action.option_strings:
            h += " (default: %(default)s)"
        return h


def _modules():  # type: ignore[no-untyped-def]
    from . import dpsgd, figures, last_iterate, per_instance, pnsgd, report, theta

    return [theta.demo_command, theta.theta_command, pnsgd, dpsgd, per_instance, last_iterate,
            report, figures]


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The top-level parser and the sub-command parsers by name."""
    parser = _Parser(
        prog="pabi",
        formatter_class=_Formatter,
        description="Tight differential-privacy bounds for iterative training (privacy amplification by\n"
        "iteration, Renyi-DP, PLD accounting).\n\nStart with 'pabi report examples/report.toml': every bound that "
        "applies to one\ntraining setup, ranked tightest first.",
        epilog="Every command accepts --json (machine-readable output); all but report accept --config FILE\n"
        "(options from a TOML file; flags override it).\n\nExamples:\n"
        "  pabi report examples/report.toml\n"
        "  pabi pnsgd --noise-scale 4 --max-grad-norm 1 --lr 0.05 --diameter 1 --steps 1000 --delta 1e-5\n"
        "  pabi dpsgd --sample-rate 0.01 --noise-multiplier 1 --steps 1000 --delta 1e-5",
    )
    parser.add_argument("--version", action="store_true", help="print the pabi version and exit")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    subs: dict[str, argparse.ArgumentParser] = {}
    for mod in _modules():
        p = mod.add_parser(sub, _Formatter)
        p.set_defaults(_run=mod.run)
        if mod.__name__ != "pabi.cli.report":
            p.add_argument("--config", metavar="FILE",
                           help="read options from a TOML file (a [%s] table or top-level keys); "
                           "command-line flags override it" % p.prog.split()[-1])
        subs[p.prog.split()[-1]] = p
    return parser, subs


def _run(argv: list[str]) -> int:
    parser, subs = build_parser()
    command = next((a for a in argv if not a.startswith("-")), None)
    if command in subs and command != "report":
        path, rest = split_config(argv)
        if path is not None:
            i = rest.index(command)
            rest = rest[: i + 1] + config_tokens(subs[command], command, path) + rest[i + 1:]
        argv = rest
    args = parser.parse_args(argv)
    if args.version:
        from .. import __version__

        print(f"pabi {__version__}")
        return 0
    if args.command is None:
        parser.print_help()
        return 0
    return int(args._run(args) or 0)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``pabi`` command with ``argv`` (default ``sys.argv[1:]``); return the exit status.

    Errors never raise: they print one line ``pabi: error: ...`` on stderr and return 2 (usage,
    invalid values, unreadable or unwritable paths) or 1 (anything else, e.g. a missing
    optional dependency).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        return _run(argv)
    except SystemExit as exc:  # --help (status 0) and argparse internals
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except CliError as exc:
        _error(str(exc))
        return exc.status
    except (ValueError, TypeError, OverflowError) as exc:  # pabi.DomainError is a ValueError
        _error(str(exc))
        return 2
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a path given by the user cannot be read or written
        where = f": {exc.filename}" if exc.filename else ""
        _error(f"{exc.strerror or type(exc).__name__}{where}" if exc.strerror else f"{type(exc).__name__}: {exc}")
        return 2
    except Exception as exc:  # noqa: BLE001 - never a traceback for the user
        _error(f"{type(exc).__name__}: {exc}")
        return 1
    except BaseException as exc:  # noqa: BLE001 - pyo3's PanicException (a core bug) derives from BaseException
        if isinstance(exc, GeneratorExit):
            raise
        _error(f"internal error in pabi (please report it with the command line): {type(exc).__name__}: {exc}")
        return 2


def _error(message: str) -> None:
    line = " ".join(str(message).split())  # one line whatever the message holds
    print(f"pabi: error: {line}", file=sys.stderr)
