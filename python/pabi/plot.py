"""Plots of pabi bounds (matplotlib, optional: ``pip install 'pabi[plot]'``).

Three building blocks, each drawing on a matplotlib ``Axes`` (a new one from ``pyplot`` when
``ax`` is None) and returning it, with labelled axes:

* :func:`plot_privacy_profile`: δ(ε) of a mechanism (log y), from values or a callable;
* :func:`plot_delta_convergence`: δ(n) → δ* of the noise schedules (log-log), optionally the
  noise level on a second axis (as in Sordello–Bu–Dong Figs. 2–5) or the gap |δ(n) − δ*|;
* :func:`plot_per_instance_histogram`: per-instance ε of the records of a data set against the
  data-independent ε (Thudi et al. 2024).

matplotlib is imported only when a function is called, so ``import pabi.plot`` works without
it. The figures of the source papers are produced by :mod:`pabi.figures` (``pabi figures OUTDIR``).

>>> import numpy as np, pabi, pabi.plot
>>> from matplotlib.figure import Figure
>>> ax = Figure().subplots()
>>> eps = np.linspace(0.1, 5, 50)
>>> kw = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=100)
>>> ax = pabi.plot.plot_privacy_profile(eps, lambda e: pabi.pnsgd_delta(e, **kw), ax=ax, label="shuffled")
>>> ax.get_xlabel(), ax.get_yscale()
('privacy level ε', 'log')
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import numpy as np

__all__ = [
    "plot_privacy_profile",
    "plot_delta_convergence",
    "plot_per_instance_histogram",
    "require_matplotlib",
]

_INSTALL = "pabi.plot needs matplotlib: pip install 'pabi[plot]'"

Values = Union[Callable[[np.ndarray], Any], Any]


def require_matplotlib() -> Any:
    """Import and return ``matplotlib``; ImportError telling how to install it otherwise."""
    try:
        import matplotlib
    except ImportError:  # pragma: no cover - exercised only without matplotlib
        raise ImportError(_INSTALL, name="matplotlib") from None
    return matplotlib


def _axes(ax: Any) -> Any:
    if ax is not None:
        return ax
    require_matplotlib()
    import matplotlib.pyplot as plt

    _, new = plt.subplots()
    return new


def _evaluate(x: np.ndarray, values: Values, name: str) -> np.ndarray:
    y = values(x) if callable(values) else values
    y = np.asarray(y, dtype=np.float64)
    if y.shape != x.shape:
        raise ValueError(f"{name} must have the shape of its abscissa {x.shape}, got {y.shape}")
    return y


def _abscissa(x: Any, name: str) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, got shape {a.shape}")
    return a


def plot_privacy_profile(
    eps: Any,
    delta: Values,
    ax: Any = None,
    *,
    label: Optional[str] = None,
    logy: bool = True,
    **kw: Any,
) -> Any:
    """Plot the privacy profile ε ↦ δ(ε) (a mechanism is (ε, δ(ε))-DP for every ε).

    ``eps``: 1-D array of privacy levels ε ≥ 0. ``delta``: array of δ(ε) of the same length,
    or a callable evaluated on ``eps`` (any vectorized pabi function: ``pabi.pnsgd_delta``
    with its keywords bound, ``pabi.theta`` for μ-GDP, ...). ``logy`` (default True): log δ
    axis (δ = 0 is not drawn there); False leaves the y scale as it is. Extra keywords go to ``Axes.plot``. Returns the Axes;
    the line is ``ax.lines[-1]`` with y-data exactly the δ values.

    >>> import numpy as np, pabi
    >>> from matplotlib.figure import Figure
    >>> eps = np.array([0.5, 1.0, 2.0])
    >>> ax = plot_privacy_profile(eps, lambda e: pabi.theta(e, 1.0), ax=Figure().subplots(), label="1-GDP")
    >>> ax.lines[-1].get_ydata().round(6)
    array([0.238422, 0.126937, 0.020924])
    >>> ax.get_ylabel()
    'δ(ε)'
    """
    ax = _axes(ax)
    x = _abscissa(eps, "eps")
    y = _evaluate(x, delta, "delta")
    ax.plot(x, y, label=label, **kw)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel("privacy level ε")
    ax.set_ylabel("δ(ε)")
    if label is not None:
        ax.legend()
    return ax


def plot_delta_convergence(
    n: Any,
    delta: Values,
    delta_star: Optional[float] = None,
    ax: Any = None,
    *,
    gap: bool = False,
    noise: Optional[Values] = None,
    noise_label: str = "noise level",
    label: Optional[str] = None,
    color: str = "black",
    **kw: Any,
) -> Any:
    """Plot the convergence of δ(n) to its limit δ* as the number of steps n grows (log-log).

    ``n``: 1-D array of step counts; ``delta``: δ(n) values or a callable of ``n`` (e.g.
    ``lambda n: pabi.laplace_schedule_delta(1.0, 10.0, 0.1, 1.0, n, 1e5, 2.0)``);
    ``delta_star``: the limit, drawn as a dashed horizontal line. With ``gap=True`` the y-axis
    is |δ(n) − δ*| instead (``delta_star`` required), whose slope on log-log axes is the rate
    of convergence (−1 for the Laplace schedule of Sordello–Bu–Dong Thm 3, 1 − α for the online
    schedules). ``noise``: values or callable giving the noise level (σ or Laplace scale) for
    each n, drawn in blue on a second y-axis (``ax.figure.axes[-1]``), as in the paper's figures.
    Extra keywords go to ``Axes.plot``. Returns the main Axes; its first line is δ(n) (or the gap).

    >>> import numpy as np, pabi
    >>> from matplotlib.figure import Figure
    >>> n = np.array([1e4, 1e6, 1e8])
    >>> d = lambda n: pabi.laplace_schedule_delta(1.0, max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=n, c1=1e5, c2=2.0)
    >>> star = pabi.laplace_schedule_delta_limit(1.0, c1=1e5)
    >>> ax = plot_delta_convergence(n, d, star, ax=Figure().subplots(), gap=True)
    >>> ax.lines[0].get_ydata()   # rate 1/n for large n
    array([7.3687...e-05, 1.1297...e-06, 1.2120...e-08])
    """
    ax = _axes(ax)
    x = _abscissa(n, "n")
    y = _evaluate(x, delta, "delta")
    if gap:
        if delta_star is None:
            raise ValueError("gap=True needs delta_star")
        y = np.abs(y - float(delta_star))
    ax.plot(x, y, color=color, label=label if label is not None else ("|δ(n) − δ*|" if gap else "δ(n)"), **kw)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("number of steps n")
    ax.set_ylabel("|δ(n) − δ*|" if gap else "δ(n)")
    if delta_star is not None and not gap:
        ax.axhline(float(delta_star), color="gray", linestyle="--", linewidth=1,
                   label=f"δ* = {float(delta_star):.4g}")
    handles, labels = ax.get_legend_handles_labels()
    if noise is not None:
        v = _evaluate(x, noise, "noise")
        twin = ax.twinx()
        twin.plot(x, v, color="tab:blue", label=noise_label)
        twin.set_ylabel(noise_label, color="tab:blue")
        twin.tick_params(axis="y", colors="tab:blue")
        h2, l2 = twin.get_legend_handles_labels()
        handles, labels = handles + h2, labels + l2
        twin.legend(handles, labels, loc="best", fontsize="small")
    else:
        ax.legend(handles, labels, loc="best", fontsize="small")
    return ax


def plot_per_instance_histogram(
    eps_values: Any,
    data_independent: Optional[float] = None,
    ax: Any = None,
    *,
    bins: Union[int, Any] = 30,
    relative: bool = False,
    log_x: bool = False,
    label: Optional[str] = None,
    **kw: Any,
) -> Any:
    """Histogram of per-instance privacy levels ε_i of the records of a data set.

    ``eps_values``: the per-record ε (e.g. from :func:`pabi.dpsgd_per_instance_rdp` converted
    by :func:`pabi.rdp_to_dp_epsilon`). ``data_independent``: the classical ε of the same
    training run, drawn as a dashed vertical line (Thudi et al. 2024 Figs. 2, 6–9 draw it in
    purple). ``relative=True`` plots ε_i / ε_data-independent (line at 1). ``log_x=True`` uses
    logarithmically spaced bins and a log x-axis (the "long tail" of very private records).
    Extra keywords go to ``Axes.hist``. Returns the Axes; the bars are ``ax.patches``.

    >>> from matplotlib.figure import Figure
    >>> ax = plot_per_instance_histogram([1.0, 1.5, 2.0, 4.0], 5.0, ax=Figure().subplots(), bins=4)
    >>> [int(p.get_height()) for p in ax.patches]
    [2, 1, 0, 1]
    """
    ax = _axes(ax)
    e = np.asarray(eps_values, dtype=np.float64).reshape(-1)
    if e.size == 0:
        raise ValueError("eps_values must be non-empty")
    di = None if data_independent is None else float(data_independent)
    if relative:
        if di is None or not di > 0:
            raise ValueError("relative=True needs a positive data_independent epsilon")
        e = e / di
    if log_x and isinstance(bins, (int, np.integer)):
        pos = e[e > 0]
        if pos.size == 0:
            raise ValueError("log_x=True needs positive eps_values")
        lo, hi = pos.min(), pos.max()
        if di is not None:
            ref = 1.0 if relative else di
            lo, hi = min(lo, ref), max(hi, ref)
        bins = np.geomspace(lo, hi * (1 + 1e-9), int(bins) + 1)
    kw.setdefault("color", "tab:gray")
    kw.setdefault("edgecolor", "white")
    ax.hist(e, bins=bins, label=label, **kw)
    if log_x:
        ax.set_xscale("log")
    if di is not None:
        ax.axvline(1.0 if relative else di, color="purple", linestyle="--",
                   label="data-independent" + ("" if relative else f" ε = {di:.3g}"))
    ax.set_xlabel("per-instance ε / data-independent ε" if relative else "per-instance ε")
    ax.set_ylabel("number of records")
    if label is not None or di is not None:
        ax.legend(fontsize="small")
    return ax
