"""The DP-SGD accountant (PLD composed by FFT, certified brackets) under a neighbouring relation
and a sampling scheme: ``neighboring="add_remove"`` (default) or ``"replace_one"``, and
``sampling="poisson"`` (default) or ``"without_replacement"`` (a fixed batch size b out of n
records, q = b/n; defined for replace-one only). The single-step pairs are derived in
docs/derivations/neighbouring.md; the numerics are the core's (``pabi_core::composition::dpsgd``).
Re-exported by :mod:`pabi.composition`.
"""

from __future__ import annotations

from typing import Literal, overload

import numpy as np
from numpy.typing import NDArray

from . import _core
from ._bridge import ArrayLike, Float, call, choice, domain_error, int_scalar, real_scalar
from .composition import Bracket

__all__ = ["dpsgd_epsilon", "dpsgd_delta", "dpsgd_calibrate_noise_multiplier", "NEIGHBORING", "SAMPLING"]

Neighboring = Literal["add_remove", "replace_one"]
Sampling = Literal["poisson", "without_replacement"]
#: the allowed values of ``neighboring`` and ``sampling`` (the glossary's)
NEIGHBORING = ("add_remove", "replace_one")
SAMPLING = ("poisson", "without_replacement")
#: the default relative tolerance of :func:`dpsgd_calibrate_noise_multiplier`
CALIBRATE_RTOL = 1e-4


def _check_steps(steps: object) -> float:
    """The ``steps`` count of the DP-SGD accountant (an integer ≥ 1, see pabi._bridge), as the
    float the core takes (exact below 2^53)."""
    return float(int_scalar("steps", steps))


def relation(neighboring: object, sampling: object) -> tuple[str, str]:
    """``(neighboring, sampling)`` checked: each one of its allowed strings, and sampling without
    replacement only with replace-one neighbours (under add or remove the dataset size, hence
    q = b/n, differs between the neighbours). A DomainError names the parameter."""
    nb, sa = choice("neighboring", neighboring, NEIGHBORING), choice("sampling", sampling, SAMPLING)
    if sa == "without_replacement" and nb != "replace_one":
        raise domain_error("sampling", "'poisson' under neighboring='add_remove' (sampling without "
                           "replacement, a fixed batch size b out of n records, is defined for "
                           "neighboring='replace_one': adding or removing a record changes n and so q = b/n)",
                           sa)
    return nb, sa


@overload
def dpsgd_epsilon(delta: float, *, sample_rate: float, noise_multiplier: float, steps: int,
                  grid_step: float = ..., bracket: Literal[False] = ..., neighboring: Neighboring = ...,
                  sampling: Sampling = ...) -> float: ...
@overload
def dpsgd_epsilon(delta: float, *, sample_rate: float, noise_multiplier: float, steps: int,
                  grid_step: float = ..., bracket: Literal[True], neighboring: Neighboring = ...,
                  sampling: Sampling = ...) -> Bracket[float]: ...
def dpsgd_epsilon(delta, *, sample_rate, noise_multiplier, steps, grid_step=1e-4, bracket=False,
                  neighboring="add_remove", sampling="poisson"):
    """ε(δ) of DP-SGD: ``steps`` compositions of the subsampled Gaussian mechanism
    (``sample_rate`` q, ``noise_multiplier`` z = noise std / clipping norm) by the PLD/FFT
    accountant. Returns the **valid upper bound**; ``bracket=True`` returns the
    :class:`Bracket` (lower, estimate, upper).

    ``neighboring``/``sampling`` (docs/derivations/neighbouring.md):

    * ``"add_remove"``, ``"poisson"`` (default): (1−q)N(1, z²) + qN(0, z²) against N(0, z²),
      both directions (the worse one);
    * ``"replace_one"``, ``"poisson"``: (1−q)N(0, z²) + qN(1, z²) against
      (1−q)N(0, z²) + qN(−1, z²) (symmetric: one PLD);
    * ``"replace_one"``, ``"without_replacement"`` (a batch of fixed size b out of n records,
      q = b/n): P = (1−q)N(0, z²) + qN(2, z²) against Q = N(0, z²). (P, Q) is the worst case of one
      step for γ = e^ε ≥ 1 and (Q, P) for γ < 1, so the upper end composes the *symmetrised* pair,
      whose profile is the worse of the two at every γ; the lower end is the worse ordered pair's
      (attained by datasets). Composing each order separately, as peers do, is not a valid bound
      here and comes out 4–13 % lower at typical settings
      (docs/derivations/neighbouring.md#symmetrised-pair).
    * ``"add_remove"``, ``"without_replacement"``: not defined (a DomainError naming ``sampling``).

    Matches dp-accounting's PLD accountant and prv-accountant to ~1e-5 (their tight values
    1.828 / 6.188 / 25.573 for q = 0.01, z = 1, δ = 1e-5, T = 1e3 / 1e4 / 1e5, add/remove).
    q ∈ [0, 1], z > 0, steps an integer in [1, 1e12], δ ∈ (0, 1); ``grid_step`` h of the loss
    grid ∈ [1e-6, 0.1] (default 1e-4).

    Resource limits: the single-step PLD has at most 2^21 grid points and the composed FFT
    window at most 2^22. Where h is too fine for them the accountant uses the finest
    h·2^k (or 0.1) that fits (still a valid, slightly looser bound; at most 18 rounds, sizes
    checked before allocation); if nothing fits at h = 0.1, z is too small for ``steps``
    compositions and a DomainError names ``noise_multiplier``.

    >>> round(dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000), 3)
    1.828
    >>> round(dpsgd_epsilon(1e-5, sample_rate=0.01, noise_multiplier=1.0, steps=1000,
    ...                     neighboring="replace_one"), 3)
    2.843
    """
    nb, sa = relation(neighboring, sampling)
    r = _core.dpsgd_epsilon(real_scalar("sample_rate", sample_rate), real_scalar("noise_multiplier", noise_multiplier),
                            _check_steps(steps), real_scalar("delta", delta), real_scalar("grid_step", grid_step),
                            nb, sa)
    return Bracket(*r) if bracket else r[2]


def dpsgd_delta(eps: float, *, sample_rate: float, noise_multiplier: float, steps: int,
                grid_step: float = 1e-4, neighboring: Neighboring = "add_remove",
                sampling: Sampling = "poisson") -> Bracket[float]:
    """δ(ε) of DP-SGD as a :class:`Bracket` (lower, estimate, valid upper bound), ε ∈ [0, +∞]; see
    :func:`dpsgd_epsilon` (same parameters, relations, domains and resource limits)."""
    nb, sa = relation(neighboring, sampling)
    return Bracket(*_core.dpsgd_delta(real_scalar("sample_rate", sample_rate),
                                      real_scalar("noise_multiplier", noise_multiplier), _check_steps(steps),
                                      real_scalar("eps", eps), real_scalar("grid_step", grid_step), nb, sa))


def dpsgd_calibrate_noise_multiplier(
    eps: float, delta: float, *, sample_rate: float, steps: int, grid_step: float = 1e-4,
    rtol: float = CALIBRATE_RTOL, neighboring: Neighboring = "add_remove", sampling: Sampling = "poisson"
) -> float:
    """Smallest noise multiplier z (to relative tolerance ``rtol``) whose certified upper ε of
    DP-SGD is ≤ ``eps`` at ``delta``, under ``neighboring``/``sampling`` (see
    :func:`dpsgd_epsilon`). The returned z is certified (its upper ε ≤ eps).

    Domains, checked before any work: ``eps`` ∈ (0, 100], ``delta`` ∈ (0, 1), ``sample_rate`` ∈
    (0, 1], ``steps`` an integer in [1, 1e12], ``grid_step`` ∈ [1e-6, 0.1], ``rtol`` ∈
    [1e-12, 0.1). An ε above 100 certifies nothing (e^100 ≈ 2.7e43), and the z it would call for
    can be so small that its loss grid exceeds the caps of :func:`dpsgd_epsilon`: such a target
    is a DomainError on ``eps`` up front. z is searched in [1e-3, 1e6] (a ValueError says which
    end was hit) with every loop bounded up front: geometric bracketing on a 10× coarser grid,
    then Illinois regula falsi safeguarded by bisection in ln z (≤ 3·log2(ln 2/rtol) + 3 steps
    per phase), a few hundred evaluations at the very most. An error while evaluating ε(z) is
    raised, never read as "target not met"; if the search reaches a z whose grid exceeds the
    caps, the DomainError names ``eps`` (the target is too loose to certify within them).

    >>> z = dpsgd_calibrate_noise_multiplier(1.828, 1e-5, sample_rate=0.01, steps=1000)
    >>> abs(z - 1.0) < 1e-3
    True
    """
    nb, sa = relation(neighboring, sampling)
    return _core.dpsgd_calibrate_sigma(  # type: ignore[no-any-return]
        real_scalar("eps", eps), real_scalar("delta", delta), real_scalar("sample_rate", sample_rate),
        _check_steps(steps), real_scalar("grid_step", grid_step), real_scalar("rtol", rtol), nb, sa
    )


def calibrate_many(eps: NDArray[np.float64], delta: NDArray[np.float64], *, sample_rate: float, steps: int,
                   grid_step: float, neighboring: str, sampling: str
                   ) -> tuple[NDArray[np.float64], dict[int, BaseException]]:
    """:func:`dpsgd_calibrate_noise_multiplier` (default ``rtol``) of every target (``eps[i]``,
    ``delta[i]``; flat, equally long, checked by the caller), each distinct target once, all in
    one core call that runs them in parallel (``_core.dpsgd_calibrate_sigma_many``: each value
    the scalar calibration's): (values, errors), NaN where a calibration failed and ``errors``
    mapping each such index to the scalar calibration's exception."""
    uniq, inv = np.unique(np.stack([eps, delta], axis=1), axis=0, return_inverse=True)
    z, failed = _core.dpsgd_calibrate_sigma_many(np.ascontiguousarray(uniq[:, 0]), np.ascontiguousarray(uniq[:, 1]),
                                                 float(sample_rate), int(steps), float(grid_step), CALIBRATE_RTOL,
                                                 neighboring, sampling)
    inv = inv.reshape(-1)
    by_target = dict(failed)
    errors = {int(i): by_target[int(inv[i])] for i in np.flatnonzero(np.isin(inv, list(by_target)))}
    return np.asarray(z, dtype=np.float64)[inv], errors


def iterate_noise_std(lr: ArrayLike, noise_multiplier: ArrayLike, max_grad_norm: ArrayLike,
                      batch_size: ArrayLike) -> Float:
    """The standard deviation of the noise on a DP-SGD iterate, lr·noise_multiplier·max_grad_norm
    / batch_size, rounded down by the core (a larger noise gives a smaller bound, so no noise
    parameter of a bound may exceed its exact value). Broadcasts: a float for scalars, an array
    otherwise (one core call)."""
    return call(_core.noise_std_down, ("lr", "noise_multiplier", "max_grad_norm", "batch_size"),
                lr, noise_multiplier, max_grad_norm, batch_size)
