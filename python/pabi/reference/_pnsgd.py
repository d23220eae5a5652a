"""Reference (mpmath) implementations of the PNSGD amplification bounds (docs/derivations/pnsgd.md#factors).

Each function evaluates the *defining* formula — A·B^(n−i), A(1 − B^n)/(n(1 − B)), ... with
A and B the exact hockey-stick divergences θ (Gaussian) or the Laplace divergence, M the exact
contraction factor — at enough working digits that the result is correct to ``dps``
significant digits: B is computed with extra digits to absorb 1 − B ≈ 1e-300 and B^(n−i) with
n − i up to 1e15. Float inputs are taken as exact binary values.

>>> import mpmath
>>> from pabi import reference as ref
>>> d = ref.pnsgd_delta(1.0, noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0,
...                     steps=100, ordering="shuffled")
>>> mpmath.nstr(d, 15)
'0.0104024031278912'
"""

from __future__ import annotations

from typing import Any, Callable, Optional, Union

import mpmath as mp

from . import _engine

Real = Union[float, int, "mp.mpf"]

__all__ = [
    "pnsgd_contraction",
    "pnsgd_factors",
    "pnsgd_delta",
    "pnsgd_epsilon",
    "pnsgd_calibrate_noise_scale",
    "pnsgd_rdp_slope",
    "pnsgd_rdp_delta",
    "pnsgd_rdp_epsilon",
    "pnsgd_stepwise_delta",
    "pnsgd_stepwise_epsilon",
]

DEFAULT_DPS = 50


def pnsgd_contraction(
    lr: Real, smoothness: Optional[Real] = None, strong_convexity: Real = 0.0
) -> tuple[mp.mpf, mp.mpf]:
    """(M, x = 1 − M²) with x = 2ηβρ/(β+ρ) (000 Lemma 4; docs/derivations/pnsgd.md#step-constant),
    at the current precision; M = ηβ − 1 where η exceeds 2/(β+ρ) by less than the tolerance."""
    rho = mp.mpf(strong_convexity)
    if smoothness is None or rho == 0:
        if rho != 0:
            raise ValueError("strong_convexity > 0 requires smoothness")
        return mp.mpf(1), mp.mpf(0)
    beta, eta = mp.mpf(smoothness), mp.mpf(lr)
    # lr is accepted up to the double nearest to 2/(β+ρ) (as pabi.gd does)
    if rho > beta or eta > 2 / (beta + rho) * (1 + mp.mpf(2) ** -52):
        raise ValueError("need strong_convexity <= smoothness and lr <= 2/(smoothness + strong_convexity)")
    with mp.workprec(2300):  # exact for any doubles: η(β + ρ) > 2 decided, not rounded
        over = eta * (beta + rho) > 2
    if over:
        # accepted a hair above 2/(β+ρ) (the double nearest to it): Lemma 4 no longer holds there,
        # the general Lipschitz constant max(|1 − ηρ|, |1 − ηβ|) = ηβ − 1 of the step does
        m = eta * beta - 1
        return m, 1 - m * m
    x = 2 * eta * beta * rho / (beta + rho)
    return mp.sqrt(1 - x), x


def _h(noise: str, eps: mp.mpf, r: mp.mpf, dps: int) -> mp.mpf:
    if noise == "gaussian":
        return _engine.theta(eps, r, dps=dps)
    if noise == "laplace":
        return _engine.laplace_theta(eps, r, dps=dps)
    raise ValueError(f"unknown noise {noise!r}")


def _hc(noise: str, eps: mp.mpf, r: mp.mpf, dps: int) -> mp.mpf:
    if noise == "gaussian":
        return _engine.theta_complement(eps, r, dps=dps)
    return _engine.laplace_theta_complement(eps, r, dps=dps)


def _digits(u: mp.mpf, n: Real) -> int:
    """Extra decimal digits so that B = 1 − u keeps u and B^n keeps its digits."""
    ln = int(mp.log10(mp.mpf(n) + 1)) + 1
    extra = 10 + ln
    if 0 < u < 1:
        # beyond dps + log10(n) + 30 digits, B = 1 − u rounds to 1 and A·B^k = A to dps digits
        extra += min(max(0, int(-mp.log10(u)) + 1), DEFAULT_DPS + ln + 40)
    return extra


def pnsgd_factors(
    eps: Real,
    *,
    noise: str = "gaussian",
    noise_scale: Real,
    max_grad_norm: Real,
    lr: Real,
    diameter: Real,
    smoothness: Optional[Real] = None,
    strong_convexity: Real = 0.0,
    dps: int = DEFAULT_DPS,
    extra: int = 0,
) -> tuple[mp.mpf, mp.mpf, mp.mpf]:
    """(A, B, 1 − B) = (h(ε, 2L/s), h(ε, M·D/(η s)), 1 − h(ε, M·D/(η s))), h = θ or Laplace
    (docs/derivations/pnsgd.md#factors). B carries ``dps + extra`` digits."""
    with mp.workdps(dps + extra + 30):
        m, _ = pnsgd_contraction(lr, smoothness, strong_convexity)
        e, s = mp.mpf(eps), mp.mpf(noise_scale)
        ra = 2 * mp.mpf(max_grad_norm) / s
        rb = m * mp.mpf(diameter) / (mp.mpf(lr) * s)
        a = _h(noise, e, ra, dps + 10)
        b = _h(noise, e, rb, dps + extra + 10)
        u = _hc(noise, e, rb, dps + 10)
    return a, b, u


def pnsgd_delta(
    eps: Real,
    *,
    noise: str = "gaussian",
    noise_scale: Real,
    max_grad_norm: Real,
    lr: Real,
    diameter: Real,
    steps: int,
    ordering: str = "shuffled",
    index: Optional[int] = None,
    smoothness: Optional[Real] = None,
    strong_convexity: Real = 0.0,
    variant: str = "corrected",
    dps: int = DEFAULT_DPS,
    log: bool = False,
) -> mp.mpf:
    """δ of the PNSGD bound by its defining formula (docs/derivations/pnsgd.md); its ln
    (−inf where δ = 0) with ``log=True``:

    * fixed: A·B^(n−i) (003 Thm 1; 000 Thms 3, 4)
    * shuffled: A(1 − B^n)/(n(1 − B)) (003 Thm 2)
    * random_stop: A(1 − B^(n−i+1))/(n(1 − B)), i = 1 when index is None (003 §1);
      variant="as_published": min(1, A/(n(1 − B))) (000 eq. (16)).
    """
    if log:
        kw: dict[str, Any] = dict(noise=noise, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr,
                                  diameter=diameter, steps=steps, ordering=ordering, index=index,
                                  smoothness=smoothness, strong_convexity=strong_convexity, variant=variant)
        v = pnsgd_delta(eps, **kw, dps=dps)
        if 0.5 < v < 1:
            # ln δ ≈ −(1 − δ) where δ is near 1: δ needs −log10(1 − δ) more digits for ln δ to keep dps
            v = pnsgd_delta(eps, **kw, dps=dps + int(-mp.log10(1 - v)) + 5)
        with mp.workdps(dps):
            return mp.log(v) if v > 0 else mp.ninf
    n, order = int(steps), ordering
    _, _, u0 = pnsgd_factors(
        eps, noise=noise, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter,
        smoothness=smoothness, strong_convexity=strong_convexity, dps=20,
    )
    extra = _digits(u0, n)
    a, b, u = pnsgd_factors(
        eps, noise=noise, noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter,
        smoothness=smoothness, strong_convexity=strong_convexity, dps=dps, extra=extra,
    )
    with mp.workdps(dps + extra + 10):
        if order == "fixed":
            if index is None:
                raise ValueError("index is required with ordering='fixed'")
            val = a * b ** (n - int(index))
        elif order == "shuffled":
            val = a if b == 1 else a * (1 - b**n) / (n * (1 - b))
        elif order == "random_stop" and variant == "corrected":
            m = n - (1 if index is None else int(index)) + 1
            val = a * m / n if b == 1 else a * (1 - b**m) / (n * (1 - b))
        elif order == "random_stop" and variant == "as_published":
            # 1 − B as the complement (equal to 1 − b; b may have rounded to 1)
            val = mp.mpf(0) if a == 0 else (mp.mpf(1) if u == 0 else min(mp.mpf(1), a / (n * u)))
        else:
            raise ValueError(f"unknown ordering/variant {order!r}/{variant!r}")
    with mp.workdps(dps):
        return +val


def smallest_eps(delta_at: Callable[[Any], Any], delta: float, end: Any = None, dps: int = 30,
                 rel: Any = 1e-13) -> mp.mpf:
    """The least ε ≥ 0 with ``delta_at(ε) <= delta`` for an exact δ(ε) non-increasing in ε
    (``delta_at`` takes an ``mpmath.mpf``), by doubling to a bracket from 1 and bisection to
    relative width ``rel``; returns the upper end of the last bracket (it meets the target).
    ``end``: δ is defined only for ε < ``end`` (the bracket approaches it geometrically and
    never evaluates there): +inf when no ε more than ``rel``·end below it meets the target, as
    ``_smallest_eps``."""
    goal = mp.mpf(delta)
    with mp.workdps(dps + 10):
        if delta_at(mp.mpf(0)) <= goal:
            return mp.mpf(0)
        lo, hi = mp.mpf(0), mp.mpf(1) if end is None else min(mp.mpf(1), mp.mpf(end) / 2)
        for _ in range(4000):
            if delta_at(hi) <= goal:
                break
            lo, hi = hi, (hi * 2 if end is None else (hi + mp.mpf(end)) / 2)
            if end is not None and mp.mpf(end) - hi <= rel * mp.mpf(end):
                return mp.inf  # the bracket reached the end of the domain unmet
        else:
            return mp.inf
        return bisect_least(delta_at, goal, lo, hi, rel)


def bisect_least(f: Callable[[Any], Any], goal: Any, lo: Any, hi: Any, rel: Any) -> Any:
    """Bisection of a bracket [lo, hi] of a non-increasing ``f`` (f(lo) > goal ≥ f(hi)) to
    relative width ``rel``: the upper end, which meets the goal (at the working precision of
    the caller)."""
    while hi - lo > rel * hi:
        mid = (lo + hi) / 2
        if f(mid) <= goal:
            hi = mid
        else:
            lo = mid
    return hi


def pnsgd_epsilon(delta: Real, *, dps: int = 30, **kwargs) -> mp.mpf:
    """Smallest ε ≥ 0 with δ(ε) ≤ delta, by bisection on the reference δ (to ~dps digits)."""
    return smallest_eps(lambda e: pnsgd_delta(e, dps=dps, **kwargs), delta, None, dps, mp.mpf(10) ** -dps)


def _delta_zero_noise(
    max_grad_norm: Real, lr: Real, diameter: Real, n: int, order: str, index: Optional[int],
    smoothness: Optional[Real], strong_convexity: Real, variant: str,
) -> mp.mpf:
    """lim_{σ→0+} of :func:`pnsgd_delta` (any ε ≥ 0 finite): A → 1 when L > 0 (0 when L = 0),
    B → 1 when M·D > 0 (0 when M·D = 0; 1 − B → 0 resp. 1)."""
    if mp.mpf(max_grad_norm) == 0:
        return mp.mpf(0)
    m, _ = pnsgd_contraction(lr, smoothness, strong_convexity)
    b1 = m * mp.mpf(diameter) > 0
    if order == "fixed":
        if index is None:
            raise ValueError("ordering='fixed' needs index")
        return mp.mpf(1) if (b1 or n == int(index)) else mp.mpf(0)
    if order == "shuffled":
        return mp.mpf(1) if b1 else mp.mpf(1) / n
    if order == "random_stop" and variant == "corrected":
        k = n - (1 if index is None else int(index)) + 1
        return mp.mpf(k) / n if b1 else mp.mpf(1) / n
    if order == "random_stop" and variant == "as_published":
        return mp.mpf(1) if b1 else min(mp.mpf(1), mp.mpf(1) / n)
    raise ValueError(f"unknown ordering/variant {order!r}/{variant!r}")


def pnsgd_calibrate_noise_scale(
    eps: Real,
    delta: Real,
    *,
    noise: str = "gaussian",
    max_grad_norm: Real,
    lr: Real,
    diameter: Real,
    steps: int,
    ordering: str = "shuffled",
    index: Optional[int] = None,
    smoothness: Optional[Real] = None,
    strong_convexity: Real = 0.0,
    variant: str = "corrected",
    dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Smallest noise σ (Gaussian std or Laplace scale) with :func:`pnsgd_delta` (eps,
    noise_scale=σ, ...) ≤ delta, i.e. inf{σ > 0 : δ(σ) ≤ delta}; 0 when every σ > 0 works
    (δ(0+) ≤ delta, e.g. max_grad_norm = 0). δ is continuous and non-increasing in σ: σ is bracketed by factors of
    4 from σ = 1 (ValueError beyond 4^500 ≈ 1e301) and the bracket [δ > delta, δ ≤ delta] is
    shrunk on ln δ(σ) − ln delta (reference δ at ``dps + 10`` digits) by Illinois regula falsi
    with bisection fallback, to relative 10^-(dps+3)."""
    n, order = int(steps), ordering
    kw: dict[str, Any] = dict(noise=noise, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter, steps=n,
                              ordering=order, index=index, smoothness=smoothness,
                              strong_convexity=strong_convexity, variant=variant)
    with mp.workdps(dps + 20):
        e, t = mp.mpf(eps), mp.mpf(delta)
        if not (e >= 0 and mp.isfinite(e)):
            raise ValueError("eps must be >= 0 and finite")
        if not (0 < t < 1):
            raise ValueError("delta must be in (0, 1)")
        if _delta_zero_noise(max_grad_norm, lr, diameter, n, order, index, smoothness,
                             strong_convexity, variant) <= t:
            return mp.mpf(0)
        lt = mp.log(t)

        def g(s: mp.mpf) -> mp.mpf:
            v = pnsgd_delta(e, noise_scale=s, dps=dps + 10, **kw)
            return mp.log(v) - lt if v > 0 else mp.ninf

        hi = mp.mpf(1)
        if g(hi) <= 0:
            lo = hi / 4
            while g(lo) <= 0:  # terminates: δ(0+) > delta
                lo /= 4
            hi = lo * 4
        else:
            for _ in range(500):
                hi *= 4
                if g(hi) <= 0:
                    break
            else:
                raise ValueError(f"no noise level sigma <= 1e300 reaches (eps={eps}, delta={delta})")
            lo = hi / 4
        from ._composition import _solve_dec

        v = _solve_dec(g, lo, hi, dps)
    with mp.workdps(dps):
        return +v


def pnsgd_rdp_slope(
    *,
    noise_scale: Real,
    max_grad_norm: Real,
    lr: Real,
    steps: int,
    index: int,
    smoothness: Optional[Real] = None,
    strong_convexity: Real = 0.0,
    dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """c_i of 000 Prop. 1 (docs/derivations/pnsgd.md#rdp-comparison): PNSGD is (α, α c_i)-RDP for record i,
    c_i = (2L²/σ²)·M^{2k}(1 − M²)/(1 − M^{2(k+1)}), k = n − i; 2L²/(σ²(k+1)) when M = 1."""
    k = int(steps) - int(index)
    with mp.workdps(dps + 40):
        m, x = pnsgd_contraction(lr, smoothness, strong_convexity)
        base = 2 * mp.mpf(max_grad_norm) ** 2 / mp.mpf(noise_scale) ** 2
        if x == 0:
            return base / (k + 1)
        # (x < 0 where η is accepted a hair above 2/(β+ρ): M > 1, see pnsgd_contraction)
        extra = max(0, int(-mp.log10(abs(x) * (k + 1))) + 5)
    with mp.workdps(dps + 40 + extra):
        m, x = pnsgd_contraction(lr, smoothness, strong_convexity)
        m2 = 1 - x
        val = base * m2**k * x / (1 - m2 ** (k + 1))
    with mp.workdps(dps):
        return +val


def _rdp_log_delta(eps: Real, *, dps: int = DEFAULT_DPS, **kwargs) -> mp.mpf:
    """ln δ_B = −(ε − c)²/(4c) for ε > c, else 0 (000 Prop. 1). c = 0 (L = 0, or M = 0 with
    k > 0) is 0-zCDP: the two output distributions are equal and δ = 0 at every ε ≥ 0 (−inf),
    as the inverse ε(δ) = 0 says; the "else 0" (δ = 1) is only the trivial bound."""
    c = pnsgd_rdp_slope(dps=dps + 10, **kwargs)
    with mp.workdps(dps + 10):
        e = mp.mpf(eps)
        if c == 0:
            return mp.ninf
        if e <= c:
            return mp.mpf(0)
        return -((e - c) ** 2) / (4 * c)


def pnsgd_rdp_delta(eps: Real, *, dps: int = DEFAULT_DPS, log: bool = False, **kwargs) -> mp.mpf:
    """δ_B = exp(−(ε − c)²/(4c)) for ε > c, else 1 (000 Prop. 1, docs/derivations/pnsgd.md#rdp-comparison);
    its ln with ``log=True``."""
    lv = _rdp_log_delta(eps, dps=dps, **kwargs)
    if log:
        return lv
    with mp.workdps(dps):
        return mp.exp(lv)


def pnsgd_rdp_epsilon(delta: Real, *, dps: int = DEFAULT_DPS, **kwargs) -> mp.mpf:
    """ε(δ) = c + 2√(c ln(1/δ)) (000 Prop. 1)."""
    c = pnsgd_rdp_slope(dps=dps + 10, **kwargs)
    with mp.workdps(dps + 10):
        val = c + 2 * mp.sqrt(c * mp.log(1 / mp.mpf(delta)))
    with mp.workdps(dps):
        return +val


# ---------------------------------------------------------------------------------------------
# Per-step parameters (docs/derivations/pnsgd.md#per-step)


def _pieces(noise_scale, max_grad_norm, lr, diameter, smoothness, strong_convexity, run_lengths):
    """The pieces of a per-step schedule: a list of (σ, L, η, D, β, ρ, m)."""
    cols = dict(noise_scale=noise_scale, max_grad_norm=max_grad_norm, lr=lr, diameter=diameter,
                smoothness=smoothness, strong_convexity=strong_convexity)
    lists = {k: (list(v) if hasattr(v, "__len__") else None) for k, v in cols.items()}
    if run_lengths is not None:
        runs = [int(m) for m in run_lengths]
    else:
        runs = [1] * max([len(v) for v in lists.values() if v is not None] or [1])
    out = []
    for j, m in enumerate(runs):
        row = [lists[k][j] if lists[k] is not None else cols[k] for k in cols]
        out.append((*row, m))
    return out


def pnsgd_stepwise_delta(
    eps: Real,
    *,
    noise: str = "gaussian",
    noise_scale,
    max_grad_norm,
    lr,
    diameter,
    ordering: str = "shuffled",
    index: Optional[int] = None,
    smoothness=None,
    strong_convexity=0.0,
    run_lengths=None,
    dps: int = DEFAULT_DPS,
    log: bool = False,
) -> mp.mpf:
    """δ of PNSGD with per-step (or piecewise-constant) parameters, composed from the constant
    pieces by hand: piece k (m_k steps) has the factors A_k, B_k of :func:`pnsgd_factors` and
    contributes the geometric sums Σ_{j<m} B_k^j = (1 − B_k^m)/(1 − B_k) (m where B_k = 1):

    * fixed, record i in piece p (last step e_p): A_p·B_p^(e_p − i)·∏_{q>p} B_q^(m_q);
    * shuffled: (1/n)·Σ_k A_k·(Σ_{j<m_k} B_k^j)·∏_{q>k} B_q^(m_q);
    * random_stop, record i: (A_p/n)·(1 + Σ over the later segments of P·B·Σ_{j<m} B^j), P the
      product of the B before the segment; index None: the maximum over i, attained at an end
      of a piece (docs/derivations/pnsgd.md#per-step), S_j from S_{j} = 1 + B_{j+1}·S_{j+1}.

    ``log=True`` returns ln δ (−inf where δ = 0).
    """
    if log:
        v = pnsgd_stepwise_delta(eps, noise=noise, noise_scale=noise_scale, max_grad_norm=max_grad_norm,
                                 lr=lr, diameter=diameter, ordering=ordering, index=index,
                                 smoothness=smoothness, strong_convexity=strong_convexity,
                                 run_lengths=run_lengths, dps=dps)
        with mp.workdps(dps):
            return mp.log(v) if v > 0 else mp.ninf
    pcs = _pieces(noise_scale, max_grad_norm, lr, diameter, smoothness, strong_convexity, run_lengths)
    n = sum(p[-1] for p in pcs)
    fac = []
    extra_max = 0
    for (sg, L, eta, D, beta, rho, m) in pcs:
        kw = dict(noise=noise, noise_scale=sg, max_grad_norm=L, lr=eta, diameter=D, smoothness=beta,
                  strong_convexity=rho)
        _, _, u0 = pnsgd_factors(eps, dps=20, **kw)
        extra = _digits(u0, n)
        extra_max = max(extra_max, extra)
        a, b, _ = pnsgd_factors(eps, dps=dps, extra=extra, **kw)
        fac.append((a, b, m))
    with mp.workdps(dps + extra_max + 10):
        def geo(b, m):
            return mp.mpf(m) if b == 1 else (1 - b**m) / (1 - b)

        ends = []
        e = 0
        for (_, _, m) in fac:
            e += m
            ends.append(e)
        if ordering == "fixed":
            if index is None:
                raise ValueError("index is required with ordering='fixed'")
            i = int(index)
            p = next(k for k, e in enumerate(ends) if e >= i)
            val = fac[p][0] * fac[p][1] ** (ends[p] - i)
            for (_, b, m) in fac[p + 1:]:
                val *= b**m
        elif ordering == "shuffled":
            tot, prod = mp.mpf(0), mp.mpf(1)
            for (a, b, m) in reversed(fac):
                tot += a * geo(b, m) * prod
                prod *= b**m
            val = tot / n
        elif ordering == "random_stop" and index is not None:
            i = int(index)
            p = next(k for k, e in enumerate(ends) if e >= i)
            s, prod = mp.mpf(1), mp.mpf(1)
            segs = [(fac[p][1], ends[p] - i)] + [(b, m) for (_, b, m) in fac[p + 1:]]
            for (b, m) in segs:
                if m > 0:
                    s += prod * b * geo(b, m)
                    prod *= b**m
            val = fac[p][0] * s / n
        elif ordering == "random_stop":
            best, s_next, b_next = mp.mpf(0), None, None
            for (a, b, m) in reversed(fac):
                s_end = mp.mpf(1) if s_next is None else 1 + b_next * s_next
                s_start = geo(b, m - 1) + b ** (m - 1) * s_end if m > 1 else s_end
                best = max(best, a * max(s_start, s_end))
                s_next, b_next = s_start, b
            val = best / n
        else:
            raise ValueError(f"unknown ordering {ordering!r}")
    with mp.workdps(dps):
        return +val


def pnsgd_stepwise_epsilon(delta: Real, *, dps: int = 30, **kwargs) -> mp.mpf:
    """Smallest ε ≥ 0 with :func:`pnsgd_stepwise_delta` (ε) ≤ delta, by bisection (to ~dps
    digits)."""
    return smallest_eps(lambda e: pnsgd_stepwise_delta(e, dps=dps, **kwargs), delta, None, dps, mp.mpf(10) ** -dps)
