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
         per training run, e.g. the record's clipped gradient norm divided by the batch
         normalisation; or
  long:  columns named record, step, sensitivity (and optionally run), numeric: one bound per
         record, printed as summary statistics (min, quartiles, max) of the per-record values.
         Every record needs rows for the same steps, the same number per step, and with a run
         column no (record, step, run) twice.
No data is dropped: empty lines and lines starting with '#' are skipped; any other line is data
(or the header), and an empty, NA or non-finite cell is an error naming its line and column.
The first CSV line is a header only if every cell is a name (starts with a letter or '_', not a
number, not NA/null/none/-); force it with --header or --no-header.
Output: the RDP at --order, and with --delta the eps minimised over --orders (tight RDP -> DP
conversion). The plug-in means over runs are biased low (not a certificate) unless
--failure-prob J and --max-sensitivity are given (Hoeffding bound, holds with prob. >= 1 - J).
--max-grad-norm C adds the data-independent baseline: every step at sensitivity C (steps x
per-step RDP)."""

EPILOG = """\
Examples:
  pabi per-instance sens.csv --sample-rate 0.01 --noise-scale 1 --order 8
  pabi per-instance sens.parquet --sample-rate 0.01 --noise-scale 1 --delta 1e-5 --max-grad-norm 1 --json
  pabi per-instance records.csv --sample-rate 0.1 --noise-scale 1 --delta 1e-5   # long format: record,step,run,sensitivity"""

DEFAULT_ORDERS = [1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0]


def add_parser(sub: argparse._SubParsersAction, fmt_cls: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("per-instance", formatter_class=fmt_cls, description=DESCRIPTION, epilog=EPILOG,
                       help="per-instance RDP / eps of DP-SGD from a CSV/Parquet file of sensitivities")
    p.add_argument("file", metavar="FILE", help="CSV or Parquet file of sensitivities (see above)")
    p.add_argument("--sample-rate", type=number, required=True, help="Poisson sampling rate q in [0, 1]")
    p.add_argument("--noise-scale", type=number, required=True,
                   help="absolute noise std on the update (same units as the sensitivities), > 0")
    p.add_argument("--order", type=numbers, help="Renyi order(s) alpha > 1 (default 8 when --delta is not given)")
    p.add_argument("--delta", type=number, help="target delta in (0, 1): also print eps over --orders")
    p.add_argument("--orders", type=numbers, default=DEFAULT_ORDERS, metavar="LIST",
                   help="orders for the eps conversion (default: %s)" % ",".join(f"{o:g}" for o in DEFAULT_ORDERS))
    p.add_argument("--holder-exponent", type=number, help="Hoelder exponent p > 1 (default 3 x steps)")
    p.add_argument("--variant", choices=("corrected", "as_published"), default="corrected",
                   help="order map of Thm 3.3 (as_published: the printed one, looser)")
    p.add_argument("--fractional", choices=("exact", "ceil"), default="exact",
                   help="per-step RDP at the fractional Hoelder orders (exact, the default) or at their "
                   "ceilings (ceil: the paper's integer orders, looser, ~100x faster for large files)")
    p.add_argument("--failure-prob", type=number, help="Hoeffding failure probability J (needs --max-sensitivity)")
    p.add_argument("--max-sensitivity", type=number, help="a bound on every sensitivity (for --failure-prob)")
    p.add_argument("--max-grad-norm", type=number, help="also print the data-independent bound at sensitivity C")
    p.add_argument("--transpose", action="store_true", help="wide file is samples x steps (one row per run)")
    p.add_argument("--header", action=argparse.BooleanOptionalAction, default=None,
                   help="CSV: the first line is (--header) or is not (--no-header) a line of column names; "
                   "default: a header only if every cell is a name (starts with a letter, not NA)")
    add_json(p)
    return p


#: Cells that denote a missing value: never a column name, never a number.
MISSING_TOKENS = frozenset({"", "na", "n/a", "nan", "null", "none", "nil", "missing", "-", "?", "."})


def _is_number(cell: str) -> bool:
    try:
        float(cell)
    except ValueError:
        return False
    return True


def _is_name(cell: str) -> bool:
    """A column name: non-empty, starts with a letter or '_', not a number or a missing-value token."""
    c = cell.strip()
    return bool(c) and (c[0].isalpha() or c[0] == "_") and c.lower() not in MISSING_TOKENS \
        and not _is_number(c)


class Table:
    """A numeric table read from a file, with the file position of every data row."""

    def __init__(self, path: Path, names: Optional[list[str]], data: np.ndarray, lines: np.ndarray,
                 unit: str) -> None:
        self.path, self.names, self.data, self.lines, self.unit = path, names, data, lines, unit

    def where(self, i: int, j: Optional[int] = None) -> str:
        """'FILE: line L, column C ('name')' for data row i (0-based) and column j (0-based)."""
        out = f"{self.path}: {self.unit} {int(self.lines[i])}"
        if j is not None:
            out += f", column {j + 1}" + (f" ({self.names[j]!r})" if self.names else "")
        return out


def _check_finite(tab: Table, cells: Optional[list[list[str]]] = None) -> None:
    bad = ~np.isfinite(tab.data)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        shown = repr(cells[i][j]) if cells is not None else ("null/NaN" if np.isnan(tab.data[i, j])
                                                             else repr(float(tab.data[i, j])))
        raise CliError(f"{tab.where(i, j)}: {shown} is not a finite number (missing values are not "
                       "allowed: every step and run must be present)")


def _read_parquet(path: Path) -> Table:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise CliError("reading Parquet needs pyarrow (pip install 'pabi[sweep]')", 1) from None
    try:
        t = pq.read_table(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises many kinds
        raise CliError(f"{path}: cannot read Parquet: {exc}") from None
    names = [str(c) for c in t.column_names]
    if not names:
        raise CliError(f"{path}: no columns")
    if t.num_rows == 0:
        raise CliError(f"{path}: no data rows")
    cols = []
    for name, col in zip(names, t.columns):
        typ = col.type
        if not (pa.types.is_integer(typ) or pa.types.is_floating(typ)):
            raise CliError(f"{path}: column {name!r} is not numeric (type {typ})")
        cols.append(np.asarray(col.to_numpy(zero_copy_only=False), dtype=np.float64))  # nulls -> NaN
    tab = Table(path, names, np.column_stack(cols), np.arange(1, t.num_rows + 1), "row")
    _check_finite(tab)
    return tab


def _read_csv(path: Path, header: Optional[bool]) -> Table:
    """A CSV/TSV table. Lines that are empty (or only blanks) or whose first cell starts with '#'
    are skipped; any other line is a data row (or the header). The first row is a header when
    ``header`` is True, never when False, and with ``header=None`` only if every cell is a
    column name (non-empty, starting with a letter or '_', not a number, not a missing-value
    token such as NA): a first row with an empty or NA cell is data, and an error."""
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    rows: list[list[str]] = []
    lines: list[int] = []
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.reader(fh, delimiter=delimiter)
            for r in reader:
                if not r or (len(r) == 1 and not r[0].strip()) or r[0].lstrip().startswith("#"):
                    continue
                rows.append(r)
                lines.append(reader.line_num)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise CliError(f"{path}: cannot read: {exc}") from None
    if not rows:
        raise CliError(f"{path}: empty file")
    names: Optional[list[str]] = None
    if header is None:
        header = all(_is_name(c) for c in rows[0])
    if header:
        names = [c.strip() for c in rows[0]]
        rows, lines = rows[1:], lines[1:]
        if not rows:
            raise CliError(f"{path}: no data rows after the header line")
    width = len(names) if names is not None else len(rows[0])
    for r, line in zip(rows, lines):
        if len(r) != width:
            what = "the header has" if names is not None else f"line {lines[0]} has"
            raise CliError(f"{path}: line {line} has {len(r)} columns but {what} {width}")
    try:
        data = np.array(rows, dtype=np.float64)
    except ValueError:
        data = np.empty((len(rows), width))
        for i, r in enumerate(rows):
            for j, c in enumerate(r):
                try:
                    data[i, j] = float(c)
                except ValueError:
                    hint = ("; if this line is a header, pass --header" if i == 0 and names is None else "")
                    col = f" ({names[j]!r})" if names else ""
                    raise CliError(f"{path}: line {lines[i]}, column {j + 1}{col}: not a number: {c!r}"
                                   f"{hint}") from None
    tab = Table(path, names, data, np.asarray(lines), "line")
    _check_finite(tab, rows)
    return tab


def _read_table(path: Path, header: Optional[bool] = None) -> Table:
    """The numeric table of a CSV or Parquet file (see :func:`_read_csv` for the header rule)."""
    if not path.exists():
        raise CliError(f"file not found: {path}")
    if path.is_dir():
        raise CliError(f"is a directory, not a file: {path}")
    if path.suffix.lower() in (".parquet", ".pq"):
        return _read_parquet(path)
    return _read_csv(path, header)


def record_label(value: float) -> str:
    """The exact label of a numeric record id: the integer when it is one (below 2**53), else
    the shortest repr (distinct ids never share a label)."""
    v = float(value)
    if v.is_integer() and abs(v) < 2.0**53:
        return str(int(v))
    return repr(v)


def _group_long(tab: Table, ri: int, si: int, vi: int, ki: Optional[int]) -> dict[str, np.ndarray]:
    """{record label: (steps, samples) array} of a long table, in O(rows log rows): one stable
    lexsort by (record, step, run or file order), then run boundaries."""
    data, p = tab.data, tab.path
    n = data.shape[0]
    rec, step = data[:, ri], data[:, si]
    tie = data[:, ki] if ki is not None else np.arange(n)
    order = np.lexsort((tie, step, rec))
    rec_s, step_s, tie_s = rec[order], step[order], tie[order]
    new_rec = np.r_[True, rec_s[1:] != rec_s[:-1]]
    new_grp = new_rec | np.r_[True, step_s[1:] != step_s[:-1]]
    if ki is not None:
        dup = np.flatnonzero(~new_grp[1:] & (tie_s[1:] == tie_s[:-1]))
        if dup.size:
            a, b = order[dup[0]], order[dup[0] + 1]
            raise CliError(f"{tab.where(int(max(a, b)))}: duplicate row for record {record_label(rec_s[dup[0]])}, "
                           f"step {record_label(step_s[dup[0]])}, run {record_label(tie_s[dup[0]])} "
                           f"(also at {tab.unit} {int(tab.lines[min(a, b)])})")
    rec_start = np.flatnonzero(new_rec)
    grp_start = np.flatnonzero(new_grp)
    grp_size = np.diff(np.r_[grp_start, n])
    first_grp = np.flatnonzero(new_rec[grp_start])  # index (among groups) of each record's first step
    cmin = np.minimum.reduceat(grp_size, first_grp)
    cmax = np.maximum.reduceat(grp_size, first_grp)
    bad = np.flatnonzero(cmin != cmax)
    if bad.size:
        k = bad[0]
        raise CliError(f"{p}: record {record_label(rec_s[rec_start[k]])} has different numbers of samples "
                       f"per step ({cmin[k]}..{cmax[k]})")
    n_steps = np.diff(np.r_[first_grp, grp_start.size])
    if n_steps.min() != n_steps.max():
        k = int(np.flatnonzero(n_steps != n_steps[0])[0])
        raise CliError(f"{p}: record {record_label(rec_s[rec_start[k]])} has {n_steps[k]} steps but record "
                       f"{record_label(rec_s[0])} has {n_steps[0]}: every record needs rows for every step")
    steps_by_rec = step_s[grp_start].reshape(len(rec_start), int(n_steps[0]))
    differ = np.flatnonzero((steps_by_rec != steps_by_rec[0]).any(axis=1))
    if differ.size:
        k = int(differ[0])
        j = int(np.flatnonzero(steps_by_rec[k] != steps_by_rec[0])[0])
        raise CliError(f"{p}: record {record_label(rec_s[rec_start[k]])} has step "
                       f"{record_label(steps_by_rec[k, j])} where record {record_label(rec_s[0])} has step "
                       f"{record_label(steps_by_rec[0, j])}: every record needs rows for the same steps")
    values = data[order, vi]
    out: dict[str, np.ndarray] = {}
    ends = np.r_[rec_start[1:], n]
    for k, (lo, hi) in enumerate(zip(rec_start.tolist(), ends.tolist())):
        out[record_label(rec_s[lo])] = values[lo:hi].reshape(int(n_steps[k]), int(cmin[k]))
    return out


def load_sensitivities(path: str | Path, transpose: bool = False,
                       header: Optional[bool] = None) -> dict[str, np.ndarray]:
    """{record label: (steps, samples) array} from a wide or long file (see the command help)."""
    p = Path(path)
    tab = _read_table(p, header)
    names = tab.names
    lower = [n.lower() for n in names] if names else []
    if {"record", "step", "sensitivity"} <= set(lower):
        if transpose:
            raise CliError("--transpose applies to wide files only (this file has record, step and "
                           "sensitivity columns)")
        for col in ("record", "step", "sensitivity", "run"):
            if lower.count(col) > 1:
                raise CliError(f"{p}: column {col!r} appears {lower.count(col)} times")
        return _group_long(tab, lower.index("record"), lower.index("step"), lower.index("sensitivity"),
                           lower.index("run") if "run" in lower else None)
    if names and any(n.lower() in ("record", "step") for n in names):
        raise CliError(f"{p}: long format needs the columns record, step and sensitivity, got {names}")
    return {"record": tab.data.T.copy() if transpose else tab.data}


def _summary(values: np.ndarray) -> dict[str, float]:
    qs = np.quantile(values, [0.0, 0.25, 0.5, 0.75, 1.0])
    return {"min": float(qs[0]), "q25": float(qs[1]), "median": float(qs[2]), "q75": float(qs[3]),
            "max": float(qs[4]), "mean": float(np.mean(values))}


def run(args: argparse.Namespace) -> int:
    import pabi
    from pabi.rdp._conversions import _rdp_scale as rdp_scale

    records = load_sensitivities(args.file, args.transpose, args.header)
    alphas = args.order if args.order is not None else ([] if args.delta is not None else [8.0])
    kw: dict[str, Any] = dict(variant=args.variant, failure_prob=args.failure_prob,
                              max_sensitivity=args.max_sensitivity, fractional=args.fractional)
    orders = np.asarray(args.orders, dtype=np.float64)
    per: list[dict[str, Any]] = []
    for label, sens in records.items():
        row: dict[str, Any] = {"record": label, "steps": sens.shape[0], "samples": sens.shape[1]}
        for a in alphas:
            row[f"rdp@{a:g}"] = pabi.dpsgd_per_instance_rdp(a, sample_rate=args.sample_rate, noise_scale=args.noise_scale,
                                                            sensitivities=sens, holder_exponent=args.holder_exponent, **kw)
        if args.delta is not None:
            curve = [float(pabi.dpsgd_per_instance_rdp(float(o), sample_rate=args.sample_rate,
                                                        noise_scale=args.noise_scale, sensitivities=sens,
                                                        holder_exponent=args.holder_exponent, **kw))
                     for o in orders]
            row["eps"], row["order"] = pabi.rdp_to_dp_epsilon(args.delta, orders=orders, rdp=curve)
        per.append(row)
    value_keys = [k for k in per[0] if k.startswith("rdp@")] + (["eps"] if args.delta is not None else [])
    baseline: dict[str, Any] = {}
    if args.max_grad_norm is not None:
        steps = per[0]["steps"]
        for a in alphas:
            one = pabi.sampled_gaussian_rdp_per_instance(a, sample_rate=args.sample_rate, sensitivity=args.max_grad_norm,
                                                         noise_scale=args.noise_scale)
            baseline[f"rdp@{a:g}"] = float(rdp_scale(one, steps, "steps")[0])
        if args.delta is not None:
            base_curve = rdp_scale(pabi.sampled_gaussian_rdp_per_instance(orders, sample_rate=args.sample_rate,
                                                                         sensitivity=args.max_grad_norm,
                                                                         noise_scale=args.noise_scale), steps,
                                   "steps")
            baseline["eps"], baseline["order"] = pabi.rdp_to_dp_epsilon(args.delta, orders=orders, rdp=base_curve)
    setup = {"file": str(args.file), "sample_rate": args.sample_rate, "noise_scale": args.noise_scale,
             "delta": args.delta, "holder_exponent": args.holder_exponent, "variant": args.variant,
             "fractional": args.fractional,
             "failure_prob": args.failure_prob, "records": len(per)}
    payload: dict[str, Any] = {"setup": setup, "records": per}
    if baseline:
        payload["data_independent"] = baseline
    head = (f"Per-instance DP-SGD (Thudi et al. Thm 3.3), q = {args.sample_rate:g}, sigma = {args.noise_scale:g}, "
            f"{len(per)} record(s), {per[0]['steps']} steps x {per[0]['samples']} samples"
            + ("" if args.failure_prob else "; plug-in means (not a certificate: pass --failure-prob)"))
    if len(per) == 1:
        cols = [(k, k.replace("rdp@", "RDP at alpha = ")) for k in value_keys]
        rows = [per[0]]
        if args.delta is not None:
            cols.append(("order", "order"))
        if baseline:
            rows = [dict(per[0], kind="per-instance"), dict(baseline, kind=f"data-independent (C = {args.max_grad_norm:g})")]
            cols = [("kind", "bound")] + cols
        text = table(rows, cols)
    else:
        stats = {k: _summary(np.array([r[k] for r in per], dtype=np.float64)) for k in value_keys}
        payload["summary"] = stats
        rows = [dict(stats[k], quantity=k) for k in value_keys]
        cols = [("quantity", "per-record"), ("min", "min"), ("q25", "25%"), ("median", "median"),
                ("q75", "75%"), ("max", "max"), ("mean", "mean")]
        text = table(rows, cols)
        if baseline:
            text += "\n\ndata-independent (C = %g): %s" % (
                args.max_grad_norm, ", ".join(f"{k} = {fmt(baseline[k])}" for k in value_keys))
    return emit(args, payload, head + "\n\n" + text)
