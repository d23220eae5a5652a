"""``pabi figures OUTDIR``: the source papers' figures as PNG (via :func:`pabi.figures.make_all`)."""

from __future__ import annotations

import argparse
from typing import Any
from pathlib import Path

from .common import add_json, emit
from .config import CliError


def add_parser(sub: argparse._SubParsersAction, fmt_cls: Any) -> argparse.ArgumentParser:
    p = sub.add_parser(
        "figures", formatter_class=fmt_cls, help="reproduce the source papers' figures as PNG",
        description="Writes the figures of the source papers (privacy profiles, delta(n) convergence to "
        "delta*, per-instance eps histograms, ...) as PNG files into OUTDIR (created if needed), through "
        "pabi.figures.make_all. Needs matplotlib (pip install 'pabi[plot]').",
        epilog="Figures: contraction_fig2, contraction_fig3 (Asoodeh-Diaz-Calmon Figs 2-3), schedule_fig2, "
        "schedule_fig3, online_fig4, online_fig5 (Sordello-Bu-Dong Figs 2-5), per_instance_hist "
        "(Thudi et al.-style histogram).\n\nExamples:\n  pabi figures figs/\n"
        "  pabi figures figs/ --only schedule_fig2,online_fig4 --json")
    p.add_argument("outdir", metavar="OUTDIR", help="output directory")
    p.add_argument("--only", help="comma-separated figure names (default: all)")
    add_json(p)
    return p


def run(args: argparse.Namespace) -> int:
    try:
        from .. import figures  # type: ignore[attr-defined]
    except ImportError as exc:
        name = getattr(exc, "name", None)
        if name in (None, "pabi.figures", "pabi"):
            raise CliError("pabi.figures is not available in this installation", 1) from None
        raise CliError(f"figures need {name} (pip install 'pabi[plot]')", 1) from None
    only = [s.strip() for s in args.only.split(",") if s.strip()] if args.only else None
    out = Path(args.outdir)
    if out.exists() and not out.is_dir():
        raise CliError(f"OUTDIR exists and is not a directory: {out}")
    try:
        paths = [Path(p) for p in figures.make_all(out, only=only)]
    except ImportError as exc:  # matplotlib (an optional extra) missing
        name = getattr(exc, "name", None) or str(exc)
        if name.startswith("pabi"):
            raise CliError(f"pabi.figures is not available in this installation ({name} is missing)", 1) from None
        raise CliError(f"figures need {name} (pip install 'pabi[plot]')", 1) from None
    return emit(args, {"outdir": str(out), "files": [str(p) for p in paths]},
                "\n".join(str(p) for p in paths) + f"\n{len(paths)} figure(s) written to {out}")
