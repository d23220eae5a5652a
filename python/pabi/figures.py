"""The figures of the source papers, recomputed with pabi (``pabi figures OUTDIR``).

:func:`make_all` writes one PNG per entry of :data:`FIGURES` (a few seconds each, matplotlib's
Agg renderer, no display needed; ``pip install 'pabi[plot]'``). The parameters are those of the
papers' captions, the same as in ``tests/test_pnsgd.py`` and ``tests/test_schedules.py``, which
assert the numbers drawn here. Where pabi corrects a paper (docs/errata.md), the figure shows
the corrected quantity and says so in its title:

* Asoodeh–Diaz–Calmon 2020 ("000") Figs. 2–3 compare the amplification bound of Thm 4 with the
  RDP bound of Prop. 1; the parameters were lost in the paper's text and are taken as
  σ = L = D = 1, n = 100 (docs/errata.md#p-t2: which bound wins depends on D/(ησ), so both regimes are
  drawn);
* Sordello–Bu–Dong ("003") Figs. 2–5: noise schedules (docs/errata.md#p-t7, #p-t8) and online noise, where the
  true limit δ_∞ and the rate n^{1−α} replace the paper's 1/log n (docs/errata.md#p-t9, #p-t15);
* Thudi et al. 2024 ("002"): a histogram of per-instance ε of a small DP-SGD run (synthetic
  data; the paper's CIFAR/MNIST models are out of scope) against the data-independent ε.
"""

from __future__ import annotations

import pathlib
from typing import Any, Callable, Iterable, Optional, Union, cast

import numpy as np

__all__ = ["FIGURES", "make_all"]

#: name → one-line description of every figure :func:`make_all` can write (``<name>.png``).
FIGURES: dict[str, str] = {
    "contraction_fig2": "Asoodeh-Diaz-Calmon 2020 Fig. 2: delta(eps) of Thm 4 vs the RDP bound of Prop. 1, "
                        "records i = 1, 50, 99 of n = 100, convex loss (and delta per record, docs/errata.md#p-t2)",
    "contraction_fig3": "Asoodeh-Diaz-Calmon 2020 Fig. 3: the same comparison for a strongly convex loss "
                        "(beta = 4, rho = 1, eta = 0.2), second half of the data set",
    "schedule_fig2": "Sordello-Bu-Dong Fig. 2: shuffled PNSGD with the Laplace schedule, delta(n) -> delta* "
                     "and v(n); rate 1/n (and n^-1/2 for kappa_L = 0.5, docs/errata.md#p-t7)",
    "schedule_fig3": "Sordello-Bu-Dong Fig. 3: shuffled PNSGD with the Gaussian (Lambert-W) schedule, "
                     "eta in {0.1, 0.02, 0.01}; 1/(delta - delta*) linear in log n",
    "online_fig4": "Sordello-Bu-Dong Fig. 4: online Laplace noise, delta_n(i = 100) -> exact limit and the "
                   "eq. (13) bounds; rate n^(1 - alpha) (docs/errata.md#p-t9)",
    "online_fig5": "Sordello-Bu-Dong Fig. 5: online Gaussian noise, delta_n(i = 100) -> exact limit and the "
                   "corrected eq. (15) bounds; rate n^(1 - alpha) (docs/errata.md#p-t6, #p-t9, #p-t15)",
    "per_instance_hist": "Thudi et al. 2024 style: histogram of per-instance epsilon of a DP-SGD logistic "
                         "regression (synthetic data) vs the data-independent epsilon",
}

_DPI = 110


def _figure(width: float, height: float) -> Any:
    try:
        from matplotlib.figure import Figure
    except ImportError:
        raise ImportError("pabi.figures needs matplotlib: pip install 'pabi[plot]'", name="matplotlib") from None
    # A Figure outside pyplot renders with the Agg canvas on savefig: no display, no global state.
    return Figure(figsize=(width, height), layout="constrained")


# ---------------------------------------------------------------------------------------------
# Asoodeh-Diaz-Calmon 2020 (000), Figs. 2-3


def _contraction(fig: Any, records: Iterable[int], regimes: list[tuple[str, dict[str, Any]]],
                 title: str, right_title: str) -> None:
    import pabi

    n = 100
    eps = np.linspace(0.02, 6.0, 300)
    base: dict[str, Any] = dict(noise_scale=1.0, max_grad_norm=1.0, steps=n)
    axes = fig.subplots(1, len(regimes) + 1)
    colors = ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"]
    for ax, (name, kw) in zip(axes, regimes):
        for c, i in zip(colors, records):
            thm4 = pabi.pnsgd_delta(eps, diameter=1.0, ordering="fixed", index=i, **base, **kw)
            rdp = pabi.pnsgd_rdp_delta(eps, index=i, **base, **kw)
            ax.plot(eps, thm4, color=c, label=f"Thm 4, i = {i}")
            ax.plot(eps, rdp, color=c, linestyle="--", label=f"RDP (Prop. 1), i = {i}")
        ax.set_yscale("log")
        ax.set_ylim(1e-40, 2)
        ax.set_xlabel("privacy level ε")
        ax.set_ylabel("δ(ε)")
        note = "" if "strong_convexity" in kw or kw["lr"] > 0.1 else " (B ≈ 1: the Thm 4 curves coincide)"
        ax.set_title(name + note, fontsize="small")
        ax.legend(fontsize="x-small", ncol=1)
    # last panel: delta at eps = 1 for every record, both regimes (docs/errata.md#p-t2)
    ax = axes[-1]
    idx = np.arange(1, n + 1)
    for c, (name, kw) in zip(colors, regimes):
        thm4 = pabi.pnsgd_delta(1.0, diameter=1.0, ordering="fixed", index=idx, **base, **kw)
        ax.plot(idx, thm4, color=c, label=f"Thm 4, {name.split(':')[0]}")
    lrs = {kw["lr"] for _, kw in regimes}
    for c, (name, kw) in zip(colors, regimes):
        if len(lrs) > 1 and "strong_convexity" not in kw and kw["lr"] != min(lrs):
            continue  # ρ = 0: the RDP bound depends neither on η nor on D, one curve for all
        rdp = pabi.pnsgd_rdp_delta(1.0, index=idx, **base, **kw)
        lab = "RDP (Prop. 1), independent of η, D for ρ = 0" if len(lrs) > 1 else "RDP (Prop. 1)"
        ax.plot(idx, rdp, color="gray" if len(lrs) > 1 else c, linestyle="--", label=lab)
    ax.set_yscale("log")
    ax.set_xlabel("record index i (processed at step i of n = 100)")
    ax.set_ylabel("δ at ε = 1")
    ax.set_ylim(1e-40, 2)
    ax.set_title(right_title, fontsize="small")
    ax.legend(fontsize="x-small")
    fig.suptitle(title, fontsize="medium")


def contraction_fig2(fig: Any) -> None:
    """000 Fig. 2: convex loss (ρ = 0), records i = 1, 50, 99 of n = 100, σ = L = D = 1."""
    _contraction(fig, (1, 50, 99),
                 [("D/(ησ) = 2: η = 0.5", dict(lr=0.5)), ("D/(ησ) = 20: η = 0.05", dict(lr=0.05))],
                 "Asoodeh–Diaz–Calmon Fig. 2: PNSGD, Gaussian noise, convex loss — Thm 4 (solid) vs "
                 "RDP bound of Prop. 1 (dashed)",
                 "per record at ε = 1 (erratum T2: the winner depends on D/(ησ))")


def contraction_fig3(fig: Any) -> None:
    """000 Fig. 3: strongly convex loss (β = 4, ρ = 1, η = 0.2: M = 0.825), second half."""
    _contraction(fig, (50, 90, 96, 99),
                 [("strongly convex: β = 4, ρ = 1, η = 0.2 (M = 0.825)",
                   dict(lr=0.2, smoothness=4.0, strong_convexity=1.0))],
                 "Asoodeh–Diaz–Calmon Fig. 3: strongly convex loss — Thm 4 (solid) vs RDP bound of "
                 "Prop. 1 (dashed), records of the second half (RDP for i = 50 is below 1e-40)",
                 "per record at ε = 1: RDP smaller for i ≤ 96, Thm 4 for the last four records")


# ---------------------------------------------------------------------------------------------
# Sordello-Bu-Dong (003), Figs. 2-5


def _int_grid(lo: float, hi: float, num: int) -> np.ndarray:
    return np.unique(np.round(np.logspace(np.log10(lo), np.log10(hi), num)))


def schedule_fig2(fig: Any) -> None:
    """003 Fig. 2: L = 10, η = 0.1, ε = 1, (a, b) = (0, 1), C1 = 1e5, C2 = 2."""
    import pabi
    from .plot import plot_delta_convergence

    eps, L, lr, D, c1, c2 = 1.0, 10.0, 0.1, 1.0, 1e5, 2.0
    star = float(pabi.laplace_schedule_delta_limit(eps, c1=c1))
    n = _int_grid(10, 1e12, 240)
    left, right = fig.subplots(1, 2)
    plot_delta_convergence(n, lambda m: pabi.laplace_schedule_delta(eps, max_grad_norm=L, lr=lr, diameter=D, steps=m, c1=c1, c2=c2), star,
                           ax=left, noise=lambda m: pabi.laplace_schedule_noise_scale(m, c1=c1, c2=c2, lr=lr, diameter=D),
                           noise_label="Laplace scale v(n)")
    left.set_title("δ(n) → δ* (eq. (8)), v(n) of eq. (7)", fontsize="small")
    plot_delta_convergence(n, lambda m: pabi.laplace_schedule_delta(eps, max_grad_norm=L, lr=lr, diameter=D, steps=m, c1=c1, c2=c2), star,
                           ax=right, gap=True, label=r"η = 0.1 ($\kappa_L$ = 2): slope −1")
    plot_delta_convergence(n, lambda m: pabi.laplace_schedule_delta(eps, max_grad_norm=L, lr=0.025, diameter=D, steps=m, c1=c1, c2=c2), star,
                           ax=right, gap=True, color="tab:red",
                           label=r"η = 0.025 ($\kappa_L$ = 0.5): slope −1/2 (erratum T7)")
    ref = n[n >= 1e6]
    right.plot(ref, 1.21306 / ref, color="gray", linestyle=":", label="1.213/n")
    right.legend(fontsize="small")
    right.set_title("rate of convergence", fontsize="small")
    fig.suptitle("Sordello–Bu–Dong Fig. 2: shuffled PNSGD, Laplace schedule (L = 10, ε = 1, [a, b] = [0, 1], "
                 "C1 = 1e5, C2 = 2)", fontsize="medium")


def schedule_fig3(fig: Any) -> None:
    """003 Fig. 3: η ∈ {0.1, 0.02, 0.01}, L = 10, ε = 1, D = 1, C1 = 1e5, C2 = 100."""
    import pabi
    from .plot import plot_delta_convergence

    eps, L, D, c1, c2 = 1.0, 10.0, 1.0, 1e5, 100.0
    star = float(pabi.gaussian_schedule_delta_limit(eps, c1=c1))
    n = _int_grid(10, 1e40, 300)
    axes = fig.subplots(2, 2).ravel()
    for ax, lr in zip(axes[:3], (0.1, 0.02, 0.01)):
        plot_delta_convergence(n, lambda m: pabi.gaussian_schedule_delta(eps, max_grad_norm=L, lr=lr, diameter=D, steps=m, c1=c1, c2=c2), star,
                               ax=ax, noise=lambda m: pabi.gaussian_schedule_noise_scale(m, c1=c1, c2=c2, lr=lr, diameter=D),
                               noise_label="σ(n) of eq. (9)")
        ax.set_ylim(star / 20, 1.5)
        ax.set_title(f"η = {lr} ($\\kappa_G$ = {2 * lr * L / D:g})", fontsize="small")
    ax = axes[3]
    big = _int_grid(1e4, 1e300, 300)
    d = pabi.gaussian_schedule_delta(eps, max_grad_norm=L, lr=0.1, diameter=D, steps=big, c1=c1, c2=c2)
    ax.plot(np.log(big), 1e-6 / (d - star), color="black", label="η = 0.1")
    ax.set_xlabel("ln n")
    ax.set_ylabel("(δ(n) − δ*)⁻¹ × 1e-6")
    ax.set_title("rate 1/log n: (δ − δ*)⁻¹ linear in log n (T8: constant 1 + ε²/8)", fontsize="small")
    ax.legend(fontsize="small")
    fig.suptitle("Sordello–Bu–Dong Fig. 3: shuffled PNSGD, Gaussian schedule (L = 10, ε = 1, D = 1, "
                 "C1 = 1e5, C2 = 100)", fontsize="medium")


_ONLINE = dict(eps=1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)


def _online(fig: Any, kind: str) -> None:
    import pabi

    p = _ONLINE
    short = "laplace" if kind == "laplace" else "gaussian"
    delta, limit, upper, lower = (getattr(pabi, f"online_{short}_{what}") for what in
                                  ("delta", "delta_limit", "delta_limit_closed_upper", "delta_limit_lower"))
    if kind == "laplace":
        noise = pabi.online_laplace_noise_scale
        noise_label, eq = r"Laplace scale $v_n$ of eq. (12)", "13"
    else:
        noise = pabi.online_gaussian_noise_scale
        noise_label, eq = r"$\sigma_n$ of eq. (14)", "15 corrected (T6)"
    # δ_n costs O(min(n, 2^18)) (direct sum, then a certified tail bound): few points at large n
    if kind == "laplace":  # ~0.05 s per n beyond 2^18
        n = np.concatenate([_int_grid(100, 2e5, 60), _int_grid(1e6, 1e12, 13)])
    else:  # ~0.4 s per n beyond 1e5
        n = np.concatenate([_int_grid(100, 1e4, 40), [3e4, 1e5, 1e6, 1e8, 1e10, 1e12]])
    d = delta(steps=n, **p)
    lim, up, lo = limit(**p), upper(**p), lower(**p)
    left, right = fig.subplots(1, 2)
    left.plot(n, d, color="black", marker=".", markersize=3, label=r"$\delta_n(i = 100)$")
    left.axhline(up, color="tab:red", linestyle="--", linewidth=1, label=f"δ* upper bound, eq. ({eq}): {up:.4g}")
    left.axhline(lim, color="tab:green", linewidth=1, label=f"exact limit $\\delta_\\infty$: {lim:.4g}")
    left.axhline(lo, color="tab:orange", linestyle=":", linewidth=1, label=f"lower bound (§6): {lo:.4g}")
    left.set_xscale("log")
    left.set_yscale("log")
    left.set_xlabel("number of steps n")
    left.set_ylabel(r"$\delta_n(i)$")
    twin = left.twinx()
    j = _int_grid(1, 1e12, 200)
    twin.plot(j, noise(j, c1=p["c1"], c2=p["c2"], decay=p["decay"], lr=p["lr"], diameter=p["diameter"]),
              color="tab:blue",
              label=noise_label)
    twin.set_ylabel(noise_label + " at step n", color="tab:blue")
    twin.tick_params(axis="y", colors="tab:blue")
    h1, l1 = left.get_legend_handles_labels()
    h2, l2 = twin.get_legend_handles_labels()
    twin.legend(h1 + h2, l1 + l2, fontsize="x-small", loc="upper right")
    left.set_title(r"$\delta_n \to \delta_\infty$ (inset: the paper's bounds bracket $\delta_\infty$)", fontsize="small")
    # inset (on the twin, drawn last): the three limits are 1-5 % apart
    ins = twin.inset_axes([0.42, 0.3, 0.5, 0.36])
    far = n >= 1e7
    ins.plot(n[far], d[far], color="black", marker=".", label=r"$\delta_n$")
    ins.axhline(up, color="tab:red", linestyle="--", linewidth=1)
    ins.axhline(lim, color="tab:green", linewidth=1)
    ins.axhline(lo, color="tab:orange", linestyle=":", linewidth=1)
    ins.set_xscale("log")
    ins.set_ylim(0.98 * lo, 1.03 * up)
    ins.tick_params(labelsize="x-small")
    ins.yaxis.get_offset_text().set_fontsize("x-small")
    ins.set_title("n ≥ 1e7, linear δ", fontsize="x-small")
    gap = d - lim
    right.plot(n, gap, color="black", marker=".", markersize=3, label=r"$\delta_n - \delta_\infty$ (exact limit)")
    tail = n[n >= 1e4]
    c = gap[n == 1e12][0] * 1e6  # anchor the reference slope at n = 1e12
    right.plot(tail, c * tail ** (1 - p["decay"]), color="gray", linestyle=":",
               label=f"$\\propto n^{{1-\\alpha}} = n^{{{1 - p['decay']:g}}}$")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("number of steps n")
    right.set_ylabel(r"$\delta_n - \delta_\infty$")
    right.set_title(r"rate $n^{1-\alpha}$, not 1/log n (erratum T9)", fontsize="small")
    right.legend(fontsize="small")
    what = "Laplace" if kind == "laplace" else "Gaussian"
    fig.suptitle(f"Sordello–Bu–Dong Fig. {4 if kind == 'laplace' else 5}: online {what} noise (L = 10, ε = 1, "
                 "η = 0.01, α = 1.5, D = 1, i = 100, C1 = C2 = 100)", fontsize="medium")


def online_fig4(fig: Any) -> None:
    """003 Fig. 4: online Laplace schedule (eq. (12)), Thm 6."""
    _online(fig, "laplace")


def online_fig5(fig: Any) -> None:
    """003 Fig. 5: online Gaussian schedule (eq. (14)), Thm 7."""
    _online(fig, "gaussian")


# ---------------------------------------------------------------------------------------------
# Thudi et al. 2024 (002): per-instance epsilon histogram


def _synthetic_dpsgd(n: int, d: int, steps: int, runs: int, q: float, z: float, clip: float,
                     lr: float, seed: int) -> np.ndarray:
    """Clipped per-record gradient norms norms[run, step, record] of DP-SGD logistic regression
    on two Gaussian classes (means 4 standard deviations apart) with 3 % flipped labels (the hard records)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.5).astype(float)
    x = rng.normal(0.0, 1.0, (n, d)) + np.outer(2 * y - 1, np.full(d, 2.0 / np.sqrt(d)))
    flip = rng.random(n) < 0.03
    y[flip] = 1 - y[flip]
    x = np.hstack([x, np.ones((n, 1))])
    out = np.empty((runs, steps, n))
    batch_size = q * n
    for run in range(runs):
        w = np.zeros(d + 1)
        for t in range(steps):
            resid = 1.0 / (1.0 + np.exp(-(x @ w))) - y
            norms = np.abs(resid) * np.linalg.norm(x, axis=1)
            scale = np.minimum(1.0, clip / np.maximum(norms, 1e-300))
            out[run, t] = np.minimum(norms, clip)
            batch = rng.random(n) < q
            g = (resid[batch] * scale[batch]) @ x[batch]
            w -= lr * (g + rng.normal(0.0, z * clip, d + 1)) / batch_size
    return out


def per_instance_hist(fig: Any) -> None:
    """Per-instance ε (Thudi et al. Thm 3.2 per step, Thm 3.3 Hölder composition) of every record."""
    import pabi
    from .rdp._conversions import _rdp_scale as rdp_scale
    from .plot import plot_per_instance_histogram

    steps, runs, q, z, clip, delta = 300, 3, 0.1, 1.0, 1.0, 1e-5
    norms = _synthetic_dpsgd(n=300, d=10, steps=steps, runs=runs, q=q, z=z, clip=clip, lr=1.0, seed=0)
    orders = np.array([2.0, 4.0, 8.0, 16.0, 32.0])
    sigma = z * clip
    eps = np.empty(norms.shape[2])
    for i in range(eps.size):
        sens = np.ascontiguousarray(norms[:, :, i].T)
        curve = np.array([cast(float, pabi.dpsgd_per_instance_rdp(a, sample_rate=q, noise_scale=sigma, sensitivities=sens)) for a in orders])
        eps[i] = pabi.rdp_to_dp_epsilon(delta, orders=orders, rdp=curve)[0]
    base = rdp_scale(pabi.sampled_gaussian_rdp(orders, sample_rate=q, noise_multiplier=z), steps, "steps")
    eps_di = pabi.rdp_to_dp_epsilon(delta, orders=orders, rdp=base)[0]
    left, right = fig.subplots(1, 2)
    plot_per_instance_histogram(eps, eps_di, ax=left, bins=30)
    left.set_title(f"{eps.size} records: median ε = {np.median(eps):.2f}, data-independent {eps_di:.2f}",
                   fontsize="small")
    plot_per_instance_histogram(eps, eps_di, ax=right, bins=30, relative=True, log_x=True)
    right.set_title(f"relative to the data-independent ε (log scale); "
                    f"{np.mean(eps < eps_di / 2):.0%} below one half", fontsize="small")
    fig.suptitle(f"Per-instance DP-SGD privacy (Thudi et al. Thms 3.2–3.3): logistic regression, synthetic "
                 f"data, T = {steps}, q = {q}, z = {z}, {runs} runs, δ = {delta:g}", fontsize="medium")


_MAKERS: dict[str, tuple[Callable[[Any], None], tuple[float, float]]] = {
    "contraction_fig2": (contraction_fig2, (15.0, 4.6)),
    "contraction_fig3": (contraction_fig3, (11.0, 4.6)),
    "schedule_fig2": (schedule_fig2, (12.0, 4.6)),
    "schedule_fig3": (schedule_fig3, (11.0, 8.0)),
    "online_fig4": (online_fig4, (12.0, 4.8)),
    "online_fig5": (online_fig5, (12.0, 4.8)),
    "per_instance_hist": (per_instance_hist, (12.0, 4.6)),
}


def make_all(outdir: Union[str, "pathlib.Path"], only: Optional[Iterable[str]] = None) -> list[pathlib.Path]:
    """Write the figures of :data:`FIGURES` (all, or the names in ``only``) as ``OUTDIR/<name>.png``.

    Creates ``outdir`` if needed and returns the written paths in :data:`FIGURES` order.
    Raises ValueError for an unknown name and ImportError (``pip install 'pabi[plot]'``) without
    matplotlib. Each figure takes a few seconds at most.
    """
    names = list(FIGURES)
    if only is not None:
        wanted = [only] if isinstance(only, str) else list(only)
        unknown = [w for w in wanted if w not in FIGURES]
        if unknown:
            raise ValueError(f"unknown figure name(s) {unknown}; known: {', '.join(FIGURES)}")
        names = [nm for nm in names if nm in wanted]
    _figure(1.0, 1.0)  # ImportError before anything is written when matplotlib is missing
    out = pathlib.Path(outdir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for name in names:
        maker, size = _MAKERS[name]
        fig = _figure(*size)
        maker(fig)
        path = out / f"{name}.png"
        fig.savefig(path, dpi=_DPI)
        written.append(path)
    return written
