"""The sampled Gaussian mechanism (data-independent and per-instance RDP, Thudi et al. 2024
Thm 3.2), per-instance composition over a training run (Hölder composition, Thm 3.3) and the
other bounds of Thudi et al. 2024: the classical Gaussian mechanism and amplification by
sampling, the L_p per-instance (ε, δ) (Cor. 3.1), general update rules (Thm 3.6), the weak
triangle inequality and the unlearning keep-rule (§5.4). Re-exported by :mod:`pabi.rdp` (whose ``__all__`` lists the
public names).
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np

from .. import _core
from .._bridge import ArrayLike, DomainError, Float, as_real as _as_real, call as _call, int_scalar as _int
from .._bridge import opt_real_scalar as _opt_real, real_array as _real_array, real_scalar as _real
from .._bridge import relocate as _relocate, rename as _rename
from ._common import _map_flag, _samples



_FRACTIONAL = ("exact", "ceil")


def _fractional_flag(fractional: str) -> bool:
    if fractional not in _FRACTIONAL:
        raise ValueError(f"fractional must be one of {_FRACTIONAL}, got {fractional!r}")
    return fractional == "exact"


def sampled_gaussian_rdp(
    alpha: ArrayLike, q: ArrayLike, noise_multiplier: ArrayLike, *, fractional: str = "exact"
) -> Float:
    """Data-independent RDP of the Poisson-sampled Gaussian mechanism (DP-SGD step).

    Integer orders: ε(α) = (1/(α − 1))·ln Σ_k C(α,k)(1 − q)^{α−k} q^k e^{(k² − k)/(2z²)}, equal
    to dp-accounting's ``_compute_rdp_poisson_subsampled_gaussian`` and finite where it
    overflows (stable to α = 1e7, any q ∈ [0, 1]).

    Fractional orders (``fractional``):

    * ``"exact"`` (default): the exact Rényi divergence at α by the series of Mironov, Talwar
      & Zhang (2019, §3.3; dp-accounting's ``_compute_log_a_frac``), rearranged so that
      A_α − 1 has no cancellation, its alternating tails summed by an Euler transform; where
      the series cancels (q near ½ with z ≳ 10, or α < 1.05) A_α − 1 = E[g(qY)] is evaluated
      instead by a trapezoidal quadrature of a non-negative integrand with proven
      discretisation, truncation and rounding bounds. Rounded up and never above the ceiling
      rule. Within 1e-12 of the exact value over the whole domain (measured ≤ 2.1e-13 on 651
      golden points against 50-digit mpmath quadrature, never below it).
    * ``"ceil"``: ε(⌈α⌉) (valid since D_α is non-decreasing in α; α ∈ (1, 2] uses 2; looser).

    Domain: α > 1 (≤ 1e7), q ∈ [0, 1], z > 0. Broadcasts like a ufunc.

    >>> round(sampled_gaussian_rdp(8, 0.01, 1.0), 12)
    0.000893643908
    >>> round(sampled_gaussian_rdp(1.5, 0.01, 1.0), 15)   # exact fractional order
    0.000127253743327
    >>> round(sampled_gaussian_rdp(1.5, 0.01, 1.0, fractional="ceil"), 15)   # = order 2
    0.000171813422075
    >>> sampled_gaussian_rdp(4096, 1e-3, 1.0) > 0
    True
    """
    exact = _fractional_flag(fractional)
    try:
        return _call(
            lambda a, qq, zz: _core.sampled_gaussian_rdp(a, qq, np.ones_like(zz), zz, exact),
            ("alpha", "q", "noise_multiplier"),
            alpha,
            q,
            noise_multiplier,
        )
    except DomainError as exc:
        raise _rename(exc, "sigma", "noise_multiplier") from None


def sampled_gaussian_rdp_per_instance(
    alpha: ArrayLike,
    q: ArrayLike,
    sensitivity: ArrayLike,
    sigma: ArrayLike,
    *,
    fractional: str = "exact",
) -> Float:
    """Per-instance RDP of the sampled Gaussian mechanism (Thudi et al. 2024, Thm 3.2).

    The same quantity as :func:`sampled_gaussian_rdp` with r = sensitivity/σ: ``sensitivity``
    is ‖U(X_B) − U(X_B ∪ {x*})‖ for the record x* (e.g. its clipped gradient norm divided by
    the batch normalisation) and σ the absolute noise std on the update. It bounds both
    directions of D_α between the neighbouring outputs. Fractional orders as in
    :func:`sampled_gaussian_rdp` (``fractional="exact"`` or ``"ceil"``, the rule of [002]
    §3.2). Broadcasts like a ufunc.

    >>> round(sampled_gaussian_rdp_per_instance(8, 0.01, 0.5, 1.0), 12)
    0.000115756148
    """
    exact = _fractional_flag(fractional)
    return _call(
        lambda a, qq, s, sg: _core.sampled_gaussian_rdp(a, qq, s, sg, exact),
        ("alpha", "q", "sensitivity", "sigma"),
        alpha,
        q,
        sensitivity,
        sigma,
    )


def holder_orders(alpha: float, p: float, n: int, variant: str = "corrected") -> np.ndarray:
    """Orders β_i = g_p^i(α), i = 0..n−1, of the Hölder composition (Thm 3.3).

    Corrected map: β_i = 1 + (α − 1)(p/(p − 1))^i. Step j (1-based) of an n-step run needs the
    order β_{n−j}: the last step uses α, the first step the largest order.

    Domain (checked in the core, errors name the parameter): α > 1 and p > 1 finite, n an
    integer in [0, 2^26] (the length of the returned array).

    >>> holder_orders(2.0, 2.0, 3)
    array([2., 3., 5.])
    """
    nn = _int("n", n, lo=0)
    alpha, p = _real("alpha", alpha), _real("p", p)
    try:
        betas, _ = _core.holder_orders(alpha, p, nn, _map_flag(variant))
    except DomainError as exc:
        raise _relocate(exc, (), True) from None
    return betas


def holder_composition_bound(
    alpha: float,
    p: float,
    divergences: ArrayLike,
    weights: Optional[ArrayLike] = None,
    *,
    variant: str = "corrected",
    return_terms: bool = False,
) -> Union[float, tuple[float, np.ndarray]]:
    """Hölder ("generalised") RDP composition of an adaptive n-step process (Thudi et al. 2024
    Thm 3.3, stable soft-max form) from per-step divergences:

        D_α(X‖Y) ≤ Σ_{i=0}^{n−2} (1/t_i) ln E[e^{t_i D_{β_i}(X_{n−i}‖Y_{n−i})}] + D_{β_{n−1}}(X_1‖Y_1)

    with β_i from :func:`holder_orders` and t_i = p(β_i − 1). ``divergences`` has shape
    (steps, samples): row j holds D_{β_{n−1−j}}(X_{j+1}(x, ·)‖Y_{j+1}(x, ·)) at states x of the
    FIRST argument's chain (evaluated at that order or any larger one); ``weights`` (same
    shape, rows summing to 1) make the expectations exact, otherwise plug-in means (biased
    low). The first step uses the maximum over its samples. For DP-SGD use
    :func:`dpsgd_per_instance_rdp`, which evaluates the per-step divergences itself.

    >>> round(holder_composition_bound(2.0, 2.0, [[0.5], [0.5]]), 12)   # Thm A.2, constant
    1.0
    """
    flag = _map_flag(variant)
    alpha, p = _real("alpha", alpha), _real("p", p)
    d = _real_array("divergences", divergences)
    if d.ndim != 2 or d.size == 0:
        raise ValueError(f"divergences must be a non-empty (steps, samples) array, got shape {d.shape}")
    w = None
    if weights is not None:
        wa = _as_real("weights", weights)
        try:
            wb = np.broadcast_to(wa, d.shape)
        except ValueError:
            raise ValueError(f"weights of shape {wa.shape} cannot be broadcast to divergences' shape {d.shape}") from None
        w = np.ascontiguousarray(wb, dtype=np.float64).reshape(-1)
    try:
        terms = _core.holder_composition_terms(alpha, p, d.reshape(-1), d.shape[0], d.shape[1], flag, w)
    except DomainError as exc:
        raise _relocate(exc, d.shape, False) from None
    total = float(_core.sum_terms_up(terms))
    return (total, terms) if return_terms else total


def dpsgd_per_instance_rdp(
    alpha: float,
    q: float,
    sigma: float,
    sensitivities: ArrayLike,
    p: Optional[float] = None,
    *,
    variant: str = "corrected",
    confidence: Optional[float] = None,
    max_sensitivity: Optional[float] = None,
    return_terms: bool = False,
) -> Union[float, tuple[float, np.ndarray]]:
    """Per-instance RDP of a DP-SGD training run (Thudi et al. 2024, Thm 3.3, soft-max form).

    ``sensitivities`` has shape (steps, samples): row j holds the sensitivities of the record
    at step j + 1 (training order) observed over independent training runs on the dataset of
    the first argument of D_α (e.g. the clipped gradient norm of the record divided by the
    batch normalisation). With n steps, β_i = 1 + (α − 1)(p/(p − 1))^i and t_i = p(β_i − 1):

        bound = Σ_{i=0}^{n−2} (1/t_i)·ln mean_s exp(t_i·D(step n−i, s)) + max_s D(step 1, s)

    where D is the sampled Gaussian RDP (Thm 3.2) at order ⌈β_i⌉ with r = sensitivity/σ.
    Default p = 3n (every order then stays ≤ 1 + 1.5(α − 1)). Evaluate once with runs on D and
    once with runs on D' and take the maximum for a two-sided per-instance guarantee.

    Options:
    * ``variant="as_published"``: the order map printed in the statement of Thm 3.3,
      g_p(α) = pα/(p − 1) − 1/p (docs/errata.md#r-t1: larger orders, still valid but
      looser), with the printed Hölder weights.
    * ``confidence=J``: Hoeffding upper-confidence bound of each mean (the plain sample mean
      is biased low by Jensen's inequality, so it is not a certified bound); with probability
      ≥ 1 − J over the runs (union bound over the n − 1 random terms) the result is a bound.
      Requires ``max_sensitivity`` (every sample ≤ it; d_max = baseline per-step RDP), and
      ``max_sensitivity`` requires ``confidence`` (either alone is a DomainError).
    * ``return_terms=True``: also return the n per-step contributions in training order.

    Raises DomainError on p (or α) when the order map overflows (β_{n−1} > 1e5: increase p), for α ≤ 1,
    q ∉ [0, 1], σ ≤ 0, p ≤ 1, and for negative/NaN sensitivities (with the (row, col) index).

    >>> import numpy as np
    >>> s = np.full((100, 4), 0.5)
    >>> round(dpsgd_per_instance_rdp(8.0, 0.01, 1.0, s), 8)
    0.01431007
    """
    flag = _map_flag(variant)
    alpha, q, sigma = _real("alpha", alpha), _real("q", q), _real("sigma", sigma)
    p, confidence = _opt_real("p", p), _opt_real("confidence", confidence)
    max_sensitivity = _opt_real("max_sensitivity", max_sensitivity)
    arr = _as_real("sensitivities", sensitivities)
    if arr.ndim != 2:
        raise ValueError(f"sensitivities must have shape (steps, samples), got shape {arr.shape}")
    steps, samples = arr.shape
    if steps == 0 or samples == 0:
        raise ValueError(f"sensitivities must be non-empty, got shape {arr.shape}")
    pp = 3.0 * steps if p is None else p
    if (confidence is None) != (max_sensitivity is None):
        # max_sensitivity alone was silently ignored (even NaN); confidence alone fails in the
        # core with a message about a NaN the caller never passed
        name = "max_sensitivity" if confidence is None else "confidence"
        given = max_sensitivity if confidence is None else confidence
        err = DomainError(
            "confidence and max_sensitivity go together (the Hoeffding upper-confidence bound "
            f"needs both); got only {name} = {given!r}"
        )
        err.param, err.allowed, err.index = name, "given together with the other", None  # type: ignore[attr-defined]
        err.value = float(given)  # type: ignore[attr-defined,arg-type]
        raise err
    flat = np.ascontiguousarray(arr, dtype=np.float64).reshape(-1)
    try:
        terms = _core.dpsgd_per_instance_terms(
            alpha, q, sigma, flat, steps, samples, pp, flag, confidence, max_sensitivity
        )
    except DomainError as exc:
        raise _relocate(exc, arr.shape, False) from None
    total = float(_core.sum_terms_up(terms))
    return (total, terms) if return_terms else total


def holder_min_p(n: ArrayLike, alpha: ArrayLike, cap_factor: ArrayLike = 2.0) -> Float:
    """Smallest Hölder exponent p keeping every order of an n-step composition at most
    ``cap_factor``·α (Thudi et al. 2024 Fact 3.4, corrected: p = Ω(n) is needed, docs/errata.md#r-t4):
    p_min = 1/(−expm1(−c)), c = ln((Kα − 1)/(α − 1))/(n − 1). p = 3n always works for K = 2.

    >>> holder_min_p(1, 8.0)
    1.0
    >>> holder_min_p(100, 8.0) <= 300
    True
    """
    return _call(_core.holder_min_p, ("n", "alpha", "cap_factor"), n, alpha, cap_factor)


def hoeffding_sample_size_ln(
    alpha: ArrayLike, eps: ArrayLike, eps_prime: ArrayLike, c: ArrayLike, J: ArrayLike,
    variant: str = "corrected",
) -> Float:
    """ln of the number of training runs needed by Fact 3.5 (Thudi et al. 2024). Variants:
    ``"corrected"`` (two-sided Hoeffding, range e^{3(2α−1)ε'} − 1),
    ``"proof_consistent"`` (the printed proof's tail) and ``"as_published"`` (the statement,
    whose exponent has the wrong sign, docs/errata.md#r-t5). Returned in log form (l overflows).

    >>> round(hoeffding_sample_size_ln(8, 1.0, 2.0, 0.1, 0.05), 1)   # l >= e^143
    143.2
    """
    if variant not in ("corrected", "proof_consistent", "as_published"):
        raise ValueError(f"variant must be 'corrected', 'proof_consistent' or 'as_published', got {variant!r}")
    return _call(
        lambda *a: _core.hoeffding_sample_size_ln(*a, variant),
        ("alpha", "eps", "eps_prime", "c", "J"), alpha, eps, eps_prime, c, J,
    )


def gaussian_dp_constant(delta: ArrayLike, sigma: ArrayLike) -> Float:
    """C_{δ,σ} = √(2 ln(1.25/δ))/σ of the classical Gaussian mechanism (Dwork–Roth Thm A.1;
    Thudi et al. 2024 footnote 3). ε = C_{δ,σ}·Δ is a valid (ε, δ) guarantee only for ε ≤ 1.
    Domain δ ∈ (0, 1), σ > 0; broadcasts.

    >>> round(gaussian_dp_constant(1e-5, 1.0), 10)
    4.8448052626
    """
    return _call(_core.gaussian_dp_constant, ("delta", "sigma"), delta, sigma)


def gaussian_mechanism_epsilon(
    delta: ArrayLike, sigma: ArrayLike, sensitivity: ArrayLike, allow_invalid: bool = False
) -> Float:
    """Classical ε = C_{δ,σ}·Δ of the Gaussian mechanism (broadcasts). Raises ValueError when
    some ε > 1 (the classical calibration is then NOT a valid guarantee, docs/errata.md#r-t9: e.g.
    δ = 1e-5, ε = 10 has exact δ(ε) = 2.27e-5) unless ``allow_invalid=True``; use
    ``pabi.theta(eps, Δ/σ)`` for the exact δ(ε).

    >>> round(gaussian_mechanism_epsilon(1e-5, 10.0, 1.0), 10)
    0.4844805263
    """
    eps, valid = _call(
        _core.gaussian_mechanism_epsilon, ("delta", "sigma", "sensitivity"), delta, sigma, sensitivity, nout=2
    )
    ok = np.asarray(valid) == 1.0
    if not allow_invalid and not ok.all():
        idx = "" if ok.ndim == 0 else f" at index {tuple(int(i) for i in np.unravel_index(np.argmin(ok), ok.shape))}"
        e0 = float(np.asarray(eps)[np.unravel_index(np.argmin(ok), ok.shape)] if ok.ndim else eps)
        raise DomainError(
            f"the classical Gaussian calibration is only valid for eps <= 1, got eps = {e0!r}{idx}; "
            "pass allow_invalid=True to get the number anyway, or use pabi.theta for the exact delta"
        )
    return eps


def amplify_by_sampling(eps: ArrayLike, delta: ArrayLike, q: ArrayLike) -> tuple[Float, Float]:
    """(ln(1 + q(e^ε − 1)), qδ): (ε, δ)-DP amplified by Poisson sampling with rate q, stable
    for tiny q·ε (log1p/expm1) and huge ε. Broadcasts.

    >>> amplify_by_sampling(1e-10, 0.0, 1e-8)[0]
    1.0000000000500144e-18
    """
    return _call(_core.amplify_by_sampling, ("eps", "delta", "q"), eps, delta, q, nout=2)


def lp_per_instance_epsilon_delta(
    q: ArrayLike,
    p: ArrayLike,
    delta: ArrayLike,
    delta_prime: ArrayLike,
    sigma: ArrayLike,
    sensitivities: ArrayLike,
    allow_invalid: bool = False,
) -> tuple[Float, Float]:
    """Per-instance (ε', δ'') via the L_p norm of the sensitivity distribution (Thudi et al.
    2024 Cor. 3.1), stable form: η = (ln q + ln mean e^{pC_{δ,σ}Δ_k} − ln δ')/(p − 1),
    ε' = ln(1 − q + q e^η), δ'' = qδ + δ'. ``sensitivities``: samples of Δ(X_B) over
    mini-batches without x* on the LAST axis (leading axes: several records); q, p, δ, δ', σ
    broadcast against the leading axes. One direction only (M(X') vs M(X)). Raises ValueError
    when some C_{δ,σ}Δ_k > 1 (outside the classical calibration's validity, docs/errata.md#r-t9) unless
    ``allow_invalid``. Domain q ∈ (0, 1], p > 1, δ, δ' ∈ (0, 1), σ > 0, samples ≥ 0.

    >>> e, d = lp_per_instance_epsilon_delta(0.01, 100.0, 1e-5, 1e-6, 10.0, [0.1, 0.5])
    >>> round(e, 6), round(d, 15)
    (0.003912, 1.1e-06)
    """
    flat, rows, m = _samples("sensitivities", sensitivities)
    e, d, valid = _call(
        lambda *a: _core.lp_per_instance_eps_delta(*a, flat, m),
        ("q", "p", "delta", "delta_prime", "sigma", "sensitivities"),
        q, p, delta, delta_prime, sigma, rows, nout=3,
    )
    if not allow_invalid and not np.all(np.asarray(valid) == 1.0):
        raise DomainError(
            "some per-batch C_{delta,sigma}*sensitivity exceeds 1: the classical Gaussian "
            "calibration is not valid there (pass allow_invalid=True to reproduce the paper)"
        )
    return e, d


def general_update_rdp(alpha: int, sigma: float, outer: ArrayLike, inner: ArrayLike) -> float:
    """Thudi et al. 2024 Thm 3.6 (general update rules), translation-invariant form:
    (1/(α − 1))·mean_b ln mean_j exp[(‖Σ_i w_i‖² − Σ_i‖w_i‖²)/(2σ²)], w_i = U(T_i) − U(V_b).
    ``outer`` (B, d): updates U(V_b) on batches of the SECOND argument's dataset; ``inner``
    (B, J, α, d): α-tuples of updates on batches of the FIRST argument's dataset (the bound is
    on D_α(M(first)‖M(second)); docs/errata.md#r-t11). Plug-in means are biased low. (Scalar α, σ: the
    update arrays define the problem.)

    >>> round(general_update_rdp(3, 1.0, [[0.0]], [[[[1.0], [1.0], [1.0]]]]), 12)  # α‖u − v‖²/(2σ²)
    1.5
    """
    a, sg = _int("alpha", alpha, lo=2), _real("sigma", sigma)
    o = _real_array("outer", outer)
    i = _real_array("inner", inner)
    if o.ndim != 2 or i.ndim != 4 or i.shape[0] != o.shape[0] or i.shape[3] != o.shape[1]:
        raise ValueError(f"outer must be (B, d) and inner (B, J, alpha, d); got {o.shape}, {i.shape}")
    b, j, _, d = i.shape
    try:
        if i.shape[2] != a:
            raise ValueError(f"inner tuples must have length alpha = {a}, got {i.shape[2]}")
        return _core.general_update_rdp(a, sg, o.reshape(-1), i.reshape(-1), b, j, d)
    except DomainError as exc:
        raise _relocate(exc, (), True) from None


def weak_triangle_bound(
    alpha: ArrayLike, p: ArrayLike, d_p_alpha: ArrayLike, d_g_alpha: ArrayLike
) -> Float:
    """Weak triangle inequality of Rényi divergences (Mironov 2017 Prop. 11, Hölder-p form):
    D_α(P‖R) ≤ (α − 1/p)/(α − 1)·D_{pα}(P‖Q) + D_{g_p(α)}(Q‖R), g_p(α) = (pα − 1)/(p − 1).

    >>> weak_triangle_bound(2.0, 2.0, 0.1, 0.2)
    0.35000000000000503
    """
    return _call(
        _core.weak_triangle_bound, ("alpha", "p", "d_p_alpha", "d_g_alpha"), alpha, p, d_p_alpha, d_g_alpha
    )


def unlearning_keep(
    alpha: ArrayLike,
    beta: ArrayLike,
    d_2alpha_prev: ArrayLike,
    d_2alpha_minus_1_step: ArrayLike,
    variant: str = "corrected",
) -> Union[bool, np.ndarray]:
    """Keep-rule of the per-instance unlearning algorithm (Thudi et al. 2024 §5.4): keep the
    previous output iff (α − ½)/(α − 1)·D_{2α}(prev‖A(D^{t−1})) + D_{2α−1}(A(D^{t−1})‖A(D^t)) ≤ β.
    ``variant="as_published"`` uses the printed coefficient (α − 1)/(α − 2): undefined at
    α = 2 and UNSOUND for α ∈ (1, 2) (docs/errata.md#r-t8; at α = 1.5 it keeps an output with D = 6.75
    > β = 0.1). Broadcasts (bool array out).

    >>> unlearning_keep(1.5, 0.1, 0.0, 6.75, variant="as_published"), unlearning_keep(1.5, 0.1, 0.0, 6.75)
    (False, False)
    """
    flag = _map_flag(variant)
    v = _call(
        lambda *a: _core.unlearning_keep(*a, flag),
        ("alpha", "beta", "d_2alpha_prev", "d_2alpha_minus_1_step"),
        alpha, beta, d_2alpha_prev, d_2alpha_minus_1_step,
    )
    return bool(v == 1.0) if isinstance(v, float) else v == 1.0
