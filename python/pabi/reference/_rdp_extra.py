"""Reference (mpmath) implementations of the remaining Rényi-DP helpers (the defining formulas).

Thudi et al. 2024, *Gradients look alike* ([002]; docs/derivations/rdp.md):

* :func:`sampled_gaussian_rdp_per_instance`: Thm 3.2, D_α((1 − q)N(0, 1) + qN(r, 1) ‖ N(0, 1))
  with r = sensitivity/σ: the binomial sum at integer orders (and at ⌈α⌉ for
  ``fractional="ceil"``, §3.2), the defining integral at fractional orders.
* :func:`holder_orders`: β_i = g_p^i(α) by iterating the order map (corrected (pα − 1)/(p − 1)
  or the printed pα/(p − 1) − 1/p, docs/errata.md#r-t1).
* :func:`holder_composition_bound`: Thm 3.3 in its printed weighted form
  (1/(α−1))·Σ_{i<n−1} (p−1)^i/p^{i+1} ln E e^{p(β_i−1)D_i} + (1/(α−1))((p−1)/p)^{n−1}(β_{n−1}−1)·max D.
* :func:`holder_min_exponent`: Fact 3.4 (corrected, docs/errata.md#r-t4): the root p of g_p^{n−1}(α) = Kα, found
  numerically (not from the closed form).
* :func:`hoeffding_sample_size`: Fact 3.5, the sample size l (ln l with ``log=True``) (corrected two-sided
  Hoeffding l = ln(2/J)(R − 1)²/(2c²e^{6(α−1)ε}), R = e^{3(2α−1)ε'}; the printed proof's tail and
  the printed statement, docs/errata.md#r-t5).
* :func:`general_update_rdp`: Thm 3.6 with the printed Δ_{U,α} (exact rational arithmetic).
* :func:`weak_triangle_bound`, :func:`unlearning_keep`: §5.4 / Mironov 2017 Prop. 11 (keep-rule
  with the corrected (α − ½)/(α − 1) or the printed (α − 1)/(α − 2), docs/errata.md#r-t8).
* :func:`gaussian_dp_constant`, :func:`gaussian_mechanism_epsilon`: footnote 3 / Dwork–Roth
  Thm A.1 (valid for ε ≤ 1, docs/errata.md#r-t9); :func:`amplify_by_sampling`: §3.1, ln(qe^ε + 1 − q), qδ.
* :func:`rdp_compose`: Mironov 2017 Prop. 1, Σ_k ε_k(α).

Paper 001 (Rényi-DP ERM supplement; docs/derivations/rdp.md#erm):

* :func:`gd_contraction`: Lemma 2, ρ = max{|1 − ημ|, |1 − ηL|} and 1 − ρ (exact rationals).
* :func:`mixture_rdp_bound`: Lemma 3, (1/(α − 1)) ln Σ_j q_j e^{(α−1)ε_j}.
* :func:`gaussian_mechanism_rdp`: Mironov 2017 / Prop. 3 proof, αΔ²/(2σ²).

Rational-valued quantities (sums, products, the ρ of Lemma 2, the Thm 3.6 exponents, the
keep-rule's left side) are computed exactly with :class:`fractions.Fraction` from the exact
binary inputs and rounded once; transcendental ones at ``dps`` plus guard digits (increased
until two precisions agree where the formula can cancel).

>>> import mpmath
>>> from pabi import reference as ref
>>> mpmath.nstr(ref.weak_triangle_bound(2.0, 2.0, 0.1, 0.2), 15)   # 1.5·0.1 + 0.2
'0.35'
>>> ref.unlearning_keep(1.5, 0.1, 6.75, 0.0, variant="as_published"), ref.unlearning_keep(1.5, 0.1, 6.75, 0.0)
(True, False)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable, Optional, Sequence, Union

import mpmath as mp

from ._rdp import holder_order_map, sampled_gaussian_rdp, sampled_gaussian_rdp_quad

Real = Union[float, int, "mp.mpf"]

__all__ = [
    "sampled_gaussian_rdp_per_instance",
    "general_update_rdp",
    "mixture_rdp_bound",
    "holder_composition_bound",
    "holder_orders",
    "holder_min_exponent",
    "hoeffding_sample_size",
    "unlearning_keep",
    "weak_triangle_bound",
    "amplify_by_sampling",
    "gaussian_dp_constant",
    "gaussian_mechanism_rdp",
    "gaussian_mechanism_epsilon",
    "rdp_compose",
    "gd_contraction",
]

DEFAULT_DPS = 50
_VARIANTS = ("corrected", "as_published")


# ------------------------------------------------------------------------------------ helpers


def _frac(x: Real) -> Fraction:
    """The exact rational value of a float / int (an mpf is converted through its binary value)."""
    if isinstance(x, mp.mpf):
        man, exp = x.man_exp
        return Fraction(int(man)) * (Fraction(2) ** int(exp))
    return Fraction(float(x)) if not isinstance(x, int) else Fraction(x)


def _round(f: Fraction, dps: int) -> mp.mpf:
    """A rational rounded to ``dps`` digits."""
    with mp.workdps(dps + 10):
        v = mp.mpf(f.numerator) / f.denominator
    with mp.workdps(dps):
        return +v


def _converged(fn: Callable[[], mp.mpf], dps: int, guard: int = 20) -> mp.mpf:
    """``fn()`` at dps + guard, dps + 2·guard, ... until two successive values agree to dps + 5
    digits (for formulas whose cancellation is not known in advance); rounded to ``dps``."""
    prev = None
    g = guard
    for _ in range(8):
        with mp.workdps(dps + g):
            val = fn()
        if prev is not None:
            if val == prev or (mp.isfinite(val) and abs(val - prev) <= abs(val) * mp.mpf(10) ** (-dps - 5)):
                with mp.workdps(dps):
                    return +val
        prev, g = val, 2 * g
    raise ArithmeticError("reference evaluation did not converge")


def _variant(variant: str) -> str:
    if variant not in _VARIANTS:
        raise ValueError(f"variant must be one of {_VARIANTS}, got {variant!r}")
    return variant


def _log_wsum_exp(xs: Sequence[mp.mpf], ws: Sequence[Fraction]) -> mp.mpf:
    """ln Σ_k w_k e^{x_k} (zero weights dropped) at the current precision, as
    log1p((Σw − 1) + Σ w_k expm1(x_k)) with Σw − 1 exact: no loss when Σ w e^x is near 1."""
    pairs = [(x, w) for x, w in zip(xs, ws) if w != 0]
    off = sum((w for _, w in pairs), Fraction(0)) - 1
    s = mp.fsum([mp.mpf(off.numerator) / off.denominator] + [mp.mpf(w.numerator) / w.denominator * mp.expm1(x)
                                                             for x, w in pairs])
    return mp.log1p(s)


# ---------------------------------------------------------------- [002] Thm 3.2, 3.3, facts


def sampled_gaussian_rdp_per_instance(
    order: Real, sample_rate: Real, sensitivity: Real, noise_scale: Real, *, fractional: str = "exact",
    dps: int = DEFAULT_DPS,
) -> mp.mpf:
    """Thm 3.2: D_α((1 − q)N(0, 1) + qN(r, 1) ‖ N(0, 1)), r = sensitivity/σ (exact quotient).

    Integer α, or ``fractional="ceil"``: the binomial sum at max(2, ⌈α⌉)
    (:func:`sampled_gaussian_rdp`); fractional α with ``"exact"``: the defining integral
    (:func:`sampled_gaussian_rdp_quad`).
    """
    if fractional not in ("exact", "ceil"):
        raise ValueError(f"fractional must be one of ('exact', 'ceil'), got {fractional!r}")
    alpha, q = order, sample_rate
    with mp.workdps(dps + 30):
        r = mp.mpf(sensitivity) / mp.mpf(noise_scale)
    a = mp.mpf(alpha)
    if fractional == "ceil" or a == mp.floor(a):
        return sampled_gaussian_rdp(alpha, q, r, dps=dps)
    return sampled_gaussian_rdp_quad(alpha, q, r, dps=dps)


def holder_orders(
    order: Real, holder_exponent: Real, steps: int, variant: str = "corrected", dps: int = DEFAULT_DPS
) -> list:
    """[β_0, ..., β_{n−1}], β_0 = α = ``order``, β_{i+1} = g_p(β_i), p = ``holder_exponent``,
    n = ``steps``, iterating :func:`holder_order_map` (the orders are carried at its 60 digits)."""
    alpha, p, n = order, holder_exponent, steps
    _variant(variant)
    if not mp.mpf(alpha) > 1 or not mp.mpf(p) > 1:
        raise ValueError("order and holder_exponent must be > 1")
    out, b = [], mp.mpf(alpha)
    for i in range(int(n)):
        if i:
            b = holder_order_map(b, p, 1, variant)
        with mp.workdps(dps):
            out.append(+b)
    return out


def holder_composition_bound(
    order: Real,
    holder_exponent: Real,
    divergences,
    weights=None,
    *,
    variant: str = "corrected",
    return_terms: bool = False,
    dps: int = DEFAULT_DPS,
):
    """Thm 3.3, printed weighted form, with exact (weighted) or plug-in (mean) expectations:

        (1/(α−1)) Σ_{i=0}^{n−2} (p−1)^i/p^{i+1} ln E[e^{p(β_i−1)D_i}]
          + (1/(α−1)) ((p−1)/p)^{n−1} (β_{n−1} − 1) max D_{n−1},

    D_i = row n − 1 − i of ``divergences`` (row j = step j + 1), β_i from :func:`holder_orders`,
    the maximum over the samples of positive weight. ``return_terms``: also the n terms in
    chain order (row order).
    """
    alpha, p = order, holder_exponent
    _variant(variant)
    rows = [[float(d) for d in row] for row in divergences]
    n = len(rows)
    if n == 0 or any(len(r) != len(rows[0]) for r in rows) or len(rows[0]) == 0:
        raise ValueError("divergences must be a non-empty (steps, samples) array")
    m = len(rows[0])
    if weights is None:
        wrows = [[Fraction(1, m)] * m for _ in range(n)]
    else:
        wrows = [[_frac(float(w)) for w in row] for row in weights]
    betas = holder_orders(alpha, p, n, variant, dps=dps + 10)

    def terms() -> list:
        a, pp = mp.mpf(alpha), mp.mpf(p)
        out = [mp.mpf(0)] * n
        for i in range(n):
            j = n - 1 - i
            d = [mp.mpf(x) for x in rows[j]]
            beta = betas[i]
            if i == n - 1:
                dmax = max(x for x, w in zip(d, wrows[j]) if w > 0)
                out[j] = ((pp - 1) / pp) ** (n - 1) * (beta - 1) / (a - 1) * dmax
            else:
                t = pp * (beta - 1)
                out[j] = (pp - 1) ** i / pp ** (i + 1) / (a - 1) * _log_wsum_exp([t * x for x in d], wrows[j])
        return out

    with mp.workdps(dps + 20):
        ts = terms()
        total = mp.fsum(ts)
    with mp.workdps(dps):
        total = +total
        ts = [+t for t in ts]
    return (total, ts) if return_terms else total


def holder_min_exponent(steps: int, order: Real, cap_factor: Real = 2.0, dps: int = DEFAULT_DPS) -> mp.mpf:
    """Fact 3.4 (corrected): the smallest p > 1 with g_p^{n−1}(α) ≤ Kα (K = ``cap_factor``).

    g_p^{n−1}(α) = 1 + (α − 1)(p/(p − 1))^{n−1} is decreasing in p, so this is the root of
    h(p) = ln(g_p^{n−1}(α) − 1) − ln(Kα − 1), bracketed by bisection in ln(p − 1) and polished
    by mpmath's root finder. 1 for n = 1 (every p > 1 works; the infimum). n = ``steps``,
    α = ``order``.
    """
    n, alpha = int(steps), order
    if n < 1:
        raise ValueError("steps must be >= 1")
    with mp.workdps(dps + 20):
        a, K = mp.mpf(alpha), mp.mpf(cap_factor)
        if not (a > 1 and K > 1):
            raise ValueError("order and cap_factor must be > 1")
        if n == 1:
            return mp.mpf(1)
        target = mp.log(K * a - 1)

        def h(p):
            return mp.log(a - 1) + (n - 1) * mp.log(p / (p - 1)) - target

        lo, hi = mp.mpf(-1), mp.mpf(1)  # u = ln(p − 1)
        while h(1 + mp.exp(lo)) <= 0:
            lo -= 2 * abs(lo)
        while h(1 + mp.exp(hi)) > 0:
            hi += 2 * abs(hi)
        for _ in range(60):  # bisection to a narrow bracket, then the secant / Anderson solver
            mid = (lo + hi) / 2
            if h(1 + mp.exp(mid)) > 0:
                lo = mid
            else:
                hi = mid
        u = mp.findroot(lambda u: h(1 + mp.exp(u)), (lo, hi), solver="anderson")
        val = 1 + mp.exp(u)
    with mp.workdps(dps):
        return +val


def hoeffding_sample_size(
    order: Real, rdp: Real, rdp_bound: Real, tolerance: Real, failure_prob: Real, variant: str = "corrected",
    dps: int = DEFAULT_DPS, *, log: bool = False,
) -> mp.mpf:
    """Fact 3.5: l, the number of runs (``log=True``: ln l; the public function returns
    ⌈l⌉ as a double, +inf beyond the double range), at α = ``order``, ε = ``rdp``,
    ε' = ``rdp_bound``, c = ``tolerance``, J = ``failure_prob``.

    * ``"corrected"``: l = ln(2/J)(R − 1)²/(2c²e^{6(α−1)ε}), R = e^{3(2α−1)ε'} (two-sided
      Hoeffding for f ∈ [1, R] at deviation c·e^{3(α−1)ε});
    * ``"proof_consistent"``: l = (−ln J)/c² · e^{3(2α−1)ε' − 6(α−1)ε} (the printed proof's tail);
    * ``"as_published"``: l = (−ln J)/c² · e^{6(α−1)ε − 3(2α−1)ε'} (the statement).
    """
    if variant not in ("corrected", "proof_consistent", "as_published"):
        raise ValueError(f"unknown variant {variant!r}")
    with mp.workdps(dps + 20):
        a, e, ep, cc, j = (mp.mpf(x) for x in (order, rdp, rdp_bound, tolerance, failure_prob))
        if variant == "corrected":
            R = mp.exp(3 * (2 * a - 1) * ep)
            l = mp.log(2 / j) * (R - 1) ** 2 / (2 * cc**2 * mp.exp(6 * (a - 1) * e))
        elif variant == "proof_consistent":
            l = -mp.log(j) / cc**2 * mp.exp(3 * (2 * a - 1) * ep - 6 * (a - 1) * e)
        else:
            l = -mp.log(j) / cc**2 * mp.exp(6 * (a - 1) * e - 3 * (2 * a - 1) * ep)
        val = mp.log(l) if log else l
    with mp.workdps(dps):
        return +val


def general_update_rdp(
    order: int, noise_scale: Real, updates_second, updates_first, dps: int = DEFAULT_DPS
) -> mp.mpf:
    """Thm 3.6 with plug-in means, printed form:

        (1/(α − 1)) mean_b ln mean_j exp(−Δ_{U,α}(T^{(b,j)}, V_b)/(2σ²)),
        Δ_{U,α}(T, V) = Σ_i ‖U(T_i)‖² − (α − 1)‖U(V)‖² − ‖Σ_i U(T_i) − (α − 1)U(V)‖²,

    ``updates_second[b]`` = U(V_b), ``updates_first[b][j]`` = the α-tuple (U(T_1), ..., U(T_α)),
    α = ``order``, σ = ``noise_scale``. The exponents are exact rationals; the logarithms at
    increasing precision until stable.
    """
    a, outer, inner = int(order), updates_second, updates_first
    if a < 2:
        raise ValueError("order must be an integer >= 2")
    s2 = 2 * _frac(noise_scale) ** 2
    zs = []
    for v, tuples in zip(outer, inner):
        V = [_frac(x) for x in v]
        zrow = []
        for tup in tuples:
            T = [[_frac(x) for x in u] for u in tup]
            if len(T) != a:
                raise ValueError("updates_first tuples must have length order")
            sq_t = sum((x * x for u in T for x in u), Fraction(0))
            sq_v = sum((x * x for x in V), Fraction(0))
            dvec = [sum((u[k] for u in T), Fraction(0)) - (a - 1) * V[k] for k in range(len(V))]
            delta = sq_t - (a - 1) * sq_v - sum((x * x for x in dvec), Fraction(0))
            zrow.append(-delta / s2)
        zs.append(zrow)

    def value():
        per_b = []
        for zrow in zs:
            x = [mp.mpf(z.numerator) / z.denominator for z in zrow]
            per_b.append(_log_wsum_exp(x, [Fraction(1, len(x))] * len(x)))
        return mp.fsum(per_b) / len(per_b) / (a - 1)

    return _converged(value, dps)


def weak_triangle_bound(
    order: Real, holder_exponent: Real, divergence_pq: Real, divergence_qr: Real, dps: int = DEFAULT_DPS
) -> mp.mpf:
    """Mironov 2017 Prop. 11 (Hölder-p form): (α − 1/p)/(α − 1)·D_{pα}(P‖Q) + D_{g_p(α)}(Q‖R),
    an exact rational rounded once."""
    a, pp = _frac(order), _frac(holder_exponent)
    if not (a > 1 and pp > 1):
        raise ValueError("order and holder_exponent must be > 1")
    return _round((a - 1 / pp) / (a - 1) * _frac(divergence_pq) + _frac(divergence_qr), dps)


def unlearning_keep(
    order: Real, threshold: Real, divergence_previous: Real, divergence_step: Real, variant: str = "corrected",
    dps: int = DEFAULT_DPS,
) -> bool:
    """§5.4 keep-rule: c(α)·D_{2α}(prev‖A(D^{t−1})) + D_{2α−1}(A(D^{t−1})‖A(D^t)) ≤ β, decided
    exactly in rationals; c(α) = (α − ½)/(α − 1) (corrected, Mironov Cor. 4) or the printed
    (α − 1)/(α − 2) (``"as_published"``, undefined at α = 2: ValueError). ``dps`` is unused."""
    _variant(variant)
    a = _frac(order)
    if not a > 1:
        raise ValueError("order must be > 1")
    if variant == "as_published":
        if a == 2:
            raise ValueError("the published coefficient (alpha-1)/(alpha-2) is undefined at alpha = 2")
        coef = (a - 1) / (a - 2)
    else:
        coef = (a - Fraction(1, 2)) / (a - 1)
    return coef * _frac(divergence_previous) + _frac(divergence_step) <= _frac(threshold)


# ------------------------------------------------------------ classical mechanism, conversions


def gaussian_dp_constant(delta: Real, noise_scale: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """C_{δ,σ} = √(2 ln(1.25/δ))/σ, σ = ``noise_scale`` (Dwork–Roth Thm A.1; [002] footnote 3)."""
    with mp.workdps(dps + 15):
        val = mp.sqrt(2 * mp.log(mp.mpf(1.25) / mp.mpf(delta))) / mp.mpf(noise_scale)
    with mp.workdps(dps):
        return +val


def gaussian_mechanism_epsilon(
    delta: Real, noise_scale: Real, sensitivity: Real, allow_invalid: bool = False, dps: int = DEFAULT_DPS
) -> mp.mpf:
    """ε = C_{δ,σ}·Δ; ValueError when ε > 1 (not a valid guarantee, docs/errata.md#r-t9) unless
    ``allow_invalid``."""
    with mp.workdps(dps + 15):
        val = gaussian_dp_constant(delta, noise_scale, dps + 15) * mp.mpf(sensitivity)
    if val > 1 and not allow_invalid:
        raise ValueError("the classical Gaussian calibration is only valid for eps <= 1")
    with mp.workdps(dps):
        return +val


def amplify_by_sampling(eps: Real, delta: Real, sample_rate: Real, dps: int = DEFAULT_DPS) -> tuple:
    """(ln(q e^ε + 1 − q), qδ): (ε, δ)-DP under Poisson sampling with rate q = ``sample_rate``
    ([002] §3.1).

    The defining form is evaluated with guard digits for the cancellation in 1 − q + q e^ε
    (about −log10(q·min(ε, 1)) digits)."""
    q = sample_rate
    e, d, qq = mp.mpf(eps), mp.mpf(delta), mp.mpf(q)
    if qq == 0 or e == 0:
        eps_out = mp.mpf(0)
    else:
        lost = max(0, int(-math.floor(math.log10(float(qq)) + math.log10(min(float(e), 1.0)))))
        with mp.workdps(dps + 20 + lost):
            eps_out = mp.log(qq * mp.exp(e) + 1 - qq)
    with mp.workdps(dps):
        return +eps_out, _round(_frac(q) * _frac(delta), dps)


def rdp_compose(rdp, dps: int = DEFAULT_DPS) -> list:
    """Mironov 2017 Prop. 1: the curve Σ_k ε_k(α) of ``rdp`` (mechanisms × orders; a 1-D curve
    is one mechanism), exact rational sums rounded once."""
    curves = rdp
    rows = [list(curves)] if not hasattr(curves[0], "__len__") else [list(r) for r in curves]
    if any(float(x) < 0 or math.isnan(float(x)) for r in rows for x in r):
        raise ValueError("rdp must be >= 0")
    return [_round(sum((_frac(float(r[j])) for r in rows), Fraction(0)), dps) for j in range(len(rows[0]))]


def gaussian_mechanism_rdp(order: Real, sensitivity: Real, noise_scale: Real, dps: int = DEFAULT_DPS) -> mp.mpf:
    """D_α(N(Δ, σ²) ‖ N(0, σ²)) = αΔ²/(2σ²) (Mironov 2017), an exact rational rounded once."""
    return _round(_frac(order) * _frac(sensitivity) ** 2 / (2 * _frac(noise_scale) ** 2), dps)


# ----------------------------------------------------------------------------- paper 001


def gd_contraction(lr: Real, strong_convexity: Real, smoothness: Real, dps: int = DEFAULT_DPS) -> tuple:
    """(ρ, 1 − ρ), ρ = max{|1 − ημ|, |1 − ηL|} (001 Lemma 2; η = ``lr``, μ = ``strong_convexity``,
    L = ``smoothness``), both exact rationals rounded once (1 − ρ by its definition, no
    cancellation). Domain 0 < μ ≤ L, 0 < η < 2/L."""
    e, m, L = _frac(lr), _frac(strong_convexity), _frac(smoothness)
    if not (0 < m <= L and 0 < e and e * L < 2):
        raise ValueError("need 0 < strong_convexity <= smoothness and 0 < lr < 2/smoothness")
    rho = max(abs(1 - e * m), abs(1 - e * L))
    return _round(rho, dps), _round(1 - rho, dps)


def mixture_rdp_bound(order: Real, weights, rdp, dps: int = DEFAULT_DPS) -> mp.mpf:
    """001 Lemma 3: (1/(α − 1)) ln Σ_j q_j e^{(α−1)ε_j} (one mixture: 1-D ``weights``, ``rdp``;
    the weights as given, zero weights dropped)."""
    ws = [_frac(float(w)) for w in weights]
    es = [float(x) for x in rdp]
    if len(ws) != len(es) or not ws:
        raise ValueError("weights and rdp must be non-empty with equal lengths")

    def value():
        t = mp.mpf(order) - 1
        return _log_wsum_exp([t * mp.mpf(x) for x in es], ws) / t

    return _converged(value, dps)
