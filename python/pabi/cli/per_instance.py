"""``pabi per-instance FILE``: per-instance RDP of DP-SGD from observed sensitivities."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import Any, Optional

import numpy as np

from .common import add_json, emit, number, numbers
from .config import CliError
from .formatting import fmt, table

DESCRIPTION = """\
Per-instance Renyi DP of a DP-SGD run (Thudi et al. 2024, "Gradients look alike", Thm 3.3 with
the corrected order map; pabi.dpsgd_per_instance_rdp) from the sensitivities of one record
observed over independent training runs.

FILE (CSV or Parquet, by extension .csv/.tsv/.txt or .parquet/.pq) holds either
  wide:  a steps x samples matrix for ONE record: row j = step j+1 in training order, one column
         per training run (a header line of names is skipped), e.g. the record's clipped
         gradient norm divided by the batch normalisation; or
  long:  columns named record, step, sensitivity (and optionally run): one bound per record,
         printed as summary statistics (min, quartiles, max) of the per-record values.
Output: the RDP at --alpha, and with --delta the eps minimised over --orders (tight RDP -> DP
conversion). The plug-in means over runs are biased low (not a certificate) unless
--confidence J and --max-sensitivity are given (Hoeffding bound, holds with prob. >= 1 - J).
--clip C adds the data-independent baseline: every step at sensitivity C (steps x per-step RDP)."""

EPILOG = """\
Examples:
  pabi per-instance sens.csv --q 0.01 --sigma 1 --alpha 8
  pabi per-instance sens.parquet --q 0.01 --sigma 1 --delta 1e-5 --clip 1 --json
  pabi per-instance records.csv --q 0.1 --sigma 1 --delta 1e-5   # long format: record,step,run,sensitivity"""

DEFAULT_ORDERS = [1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0]


def add_parser(sub: argparse._SubParsersAction, fmt_cls: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("per-instance", formatter_class=fmt_cls, description=DESCRIPTION, epilog=EPILOG,
                       help="per-instance RDP / eps of DP-SGD from a CSV/Parquet file of sensitivities")
    p.add_argument("file", metavar="FILE", help="CSV or Parquet file of sensitivities (see above)")
    p.add_argument("--q", type=number, required=True, help="Poisson sampling rate q in [0, 1]")
    p.add_argument("--sigma", type=number, required=True,
                   help="absolute noise std on the update (same units as the sensitivities), > 0")
    p.add_argument("--alpha", type=numbers, help="Renyi order(s) alpha > 1 (default 8 when --delta is not given)")
    p.add_argument("--delta", type=number, help="target delta in (0, 1): also print eps over --orders")
    p.add_argument("--orders", type=numbers, default=DEFAULT_ORDERS, metavar="LIST",
                   help="orders for the eps conversion (default: %s)" % ",".join(f"{o:g}" for o in DEFAULT_ORDERS))
    p.add_argument("--p", type=number, help="Hoelder exponent p > 1 (default 3 x steps)")
    p.add_argument("--variant", choices=("corrected", "as_published"), default="corrected",
                   help="order map of Thm 3.3 (as_published: the printed one, looser)")
    p.add_argument("--confidence", type=number, help="Hoeffding failure probability J (needs --max-sensitivity)")
    p.add_argument("--max-sensitivity", type=number, help="a bound on every sensitivity (for --confidence)")
    p.add_argument("--clip", type=number, help="also print the data-independent bound at sensitivity C")
    p.add_argument("--transpose", action="store_true", help="wide file is samples x steps (one row per run)")
    add_json(p)
    return p


def _read_table(path: Path) -> tuple[Optional[list[str]], np.ndarray]:
    """(column names or None, float matrix) of a CSV or Parquet file."""
    if not path.exists():
        raise CliError(f"file not found: {path}")
    if path.is_dir():
        raise CliError(f"is a directory, not a file: {path}")
    suffix = path.suffix.lower()
    if suffix in (".parquet", ".pq"):
        try:
            import pyarrow.parquet as pq
        except ImportError:
            raise CliError("reading Parquet needs pyarrow (pip install 'pabi[sweep]')", 1) from None
        try:
            t = pq.read_table(path)
        except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
            raise CliError(f"{path}: cannot read Parquet: {exc}") from None
        pq_names = [str(c) for c in t.column_names]
        try:
            cols = [np.asarray(t.column(i).to_numpy(zero_copy_only=False), dtype=np.float64) for i in range(t.num_columns)]
        except (TypeError, ValueError) as exc:
            raise CliError(f"{path}: non-numeric column: {exc}") from None
        if not cols:
            raise CliError(f"{path}: no columns")
        return pq_names, np.column_stack(cols)
    delimiter = "\t" if suffix == ".tsv" else ","
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            rows = [r for r in csv.reader(fh, delimiter=delimiter)
                    if r and not r[0].lstrip().startswith("#") and any(c.strip() for c in r)]
    except (OSError, UnicodeDecodeError) as exc:
        raise CliError(f"{path}: cannot read: {exc}") from None
    if not rows:
        raise CliError(f"{path}: empty file")
    names: Optional[list[str]] = None

    def parse(r: list[str], lineno: int) -> list[float]:
        try:
            return [float(c) for c in r]
        except ValueError:
            raise CliError(f"{path}: row {lineno}: not a number in {r!r}") from None

    try:
        [float(c) for c in rows[0]]
    except ValueError:
        names = [c.strip() for c in rows[0]]
        rows = rows[1:]
    widths = {len(r) for r in rows}
    if len(widths) > 1:
        raise CliError(f"{path}: rows have different numbers of columns {sorted(widths)}")
    if not rows:
        raise CliError(f"{path}: no data rows")
    return names, np.array([parse(r, i + 1) for i, r in enumerate(rows)], dtype=np.float64)


def load_sensitivities(path: str | Path, transpose: bool = False) -> dict[str, np.ndarray]:
    """{record label: (steps, samples) array} from a wide or long file (see the command help)."""
    p = Path(path)
    names, data = _read_table(p)
    lower = [n.lower() for n in names] if names else []
    if {"record", "step", "sensitivity"} <= set(lower):
        ri, si, vi = lower.index("record"), lower.index("step"), lower.index("sensitivity")
        out: dict[str, np.ndarray] = {}
        for rec in np.unique(data[:, ri]):
            sub = data[data[:, ri] == rec]
            steps = np.unique(sub[:, si])
            counts = np.array([np.sum(sub[:, si] == s) for s in steps])
            if counts.min() != counts.max():
                raise CliError(f"{p}: record {fmt(rec)} has different numbers of samples per step "
                               f"({counts.min()}..{counts.max()})")
            sub = sub[np.lexsort((sub[:, lower.index("run")] if "run" in lower else np.arange(len(sub)),
                                  sub[:, si]))]
            out[fmt(rec)] = sub[:, vi].reshape(len(steps), counts[0])
        return out
    if names and any(n.lower() in ("record", "step") for n in names):
        raise CliError(f"{p}: long format needs the columns record, step and sensitivity, got {names}")
    return {"record": data.T.copy() if transpose else data}


def _summary(values: np.ndarray) -> dict[str, float]:
    qs = np.quantile(values, [0.0, 0.25, 0.5, 0.75, 1.0])
    return {"min": float(qs[0]), "q25": float(qs[1]), "median": float(qs[2]), "q75": float(qs[3]),
            "max": float(qs[4]), "mean": float(np.mean(values))}


def run(args: argparse.Namespace) -> int:
    import pabi

    records = load_sensitivities(args.file, args.transpose)
    alphas = args.alpha if args.alpha is not None else ([] if args.delta is not None else [8.0])
    kw: dict[str, Any] = dict(variant=args.variant, confidence=args.confidence,
                              max_sensitivity=args.max_sensitivity)
    orders = np.asarray(args.orders, dtype=np.float64)
    per: list[dict[str, Any]] = []
    for label, sens in records.items():
        row: dict[str, Any] = {"record": label, "steps": sens.shape[0], "samples": sens.shape[1]}
        for a in alphas:
            row[f"rdp@{a:g}"] = pabi.dpsgd_per_instance_rdp(a, args.q, args.sigma, sens, args.p, **kw)
        if args.delta is not None:
            curve = [float(pabi.dpsgd_per_instance_rdp(float(o), args.q, args.sigma, sens, args.p, **kw))  # type: ignore[arg-type]
                     for o in orders]
            row["eps"], row["order"] = pabi.rdp_to_dp_epsilon(orders, curve, args.delta)
        per.append(row)
    value_keys = [k for k in per[0] if k.startswith("rdp@")] + (["eps"] if args.delta is not None else [])
    baseline: dict[str, Any] = {}
    if args.clip is not None:
        steps = per[0]["steps"]
        for a in alphas:
            baseline[f"rdp@{a:g}"] = steps * pabi.sampled_gaussian_rdp_per_instance(a, args.q, args.clip, args.sigma)
        if args.delta is not None:
            curve = steps * np.asarray(pabi.sampled_gaussian_rdp_per_instance(orders, args.q, args.clip, args.sigma))
            baseline["eps"], baseline["order"] = pabi.rdp_to_dp_epsilon(orders, curve, args.delta)
    setup = {"file": str(args.file), "q": args.q, "sigma": args.sigma, "delta": args.delta, "p": args.p,
             "variant": args.variant, "confidence": args.confidence, "records": len(per)}
    payload: dict[str, Any] = {"setup": setup, "records": per}
    if baseline:
        payload["data_independent"] = baseline
    head = (f"Per-instance DP-SGD (Thudi et al. Thm 3.3), q = {args.q:g}, sigma = {args.sigma:g}, "
            f"{len(per)} record(s), {per[0]['steps']} steps x {per[0]['samples']} samples"
            + ("" if args.confidence else "; plug-in means (not a certificate: pass --confidence)"))
    if len(per) == 1:
        cols = [(k, k.replace("rdp@", "RDP at alpha = ")) for k in value_keys]
        rows = [per[0]]
        if args.delta is not None:
            cols.append(("order", "order"))
        if baseline:
            rows = [dict(per[0], kind="per-instance"), dict(baseline, kind=f"data-independent (C = {args.clip:g})")]
            cols = [("kind", "bound")] + cols
        text = table(rows, cols, 10)
    else:
        stats = {k: _summary(np.array([r[k] for r in per], dtype=np.float64)) for k in value_keys}
        payload["summary"] = stats
        rows = [dict(stats[k], quantity=k) for k in value_keys]
        cols = [("quantity", "per-record"), ("min", "min"), ("q25", "25%"), ("median", "median"),
                ("q75", "75%"), ("max", "max"), ("mean", "mean")]
        text = table(rows, cols, 6)
        if baseline:
            text += "\n\ndata-independent (C = %g): %s" % (
                args.clip, ", ".join(f"{k} = {fmt(baseline[k], 6)}" for k in value_keys))
    return emit(args, payload, head + "\n\n" + text)
