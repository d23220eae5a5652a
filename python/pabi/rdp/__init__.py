"""Rényi-DP bounds for DP-SGD: the sampled Gaussian mechanism at any order (data-independent
and per-instance), per-instance composition over a training run (Hölder composition),
RDP → (ε, δ) conversions, composition of RDP curves and the privacy profile → RDP bound.

Sources: Thudi et al., *Gradients look alike: sensitivity is often overestimated in DP-SGD*
(USENIX Security 2024): Thm 3.2 (per-instance sampled Gaussian RDP), Thm 3.3 (composition
with Hölder's inequality; the order map is the corrected g_p(α) = (pα − 1)/(p − 1) of the
proof, the printed statement's map is available as ``variant="as_published"``); Mironov 2017
Prop. 3; Balle et al. 2020 / Canonne–Kamath–Steinke 2020 Prop. 12.

Fractional orders of the sampled Gaussian mechanism are exact by default (the series of
Mironov, Talwar & Zhang 2019 §3.3, evaluated without cancellation and with a rigorous
truncation bound); ``fractional="ceil"`` gives the ceiling rule of [002] §3.2. The scalar
helpers of the family (Cor. 3.1, the last-iterate bounds, the ERM quantities, calibration)
broadcast like ufuncs.

Every returned ε or δ is an upper bound of the formula it implements (rounded up), within
~1e-13 relative of the exact value (see ``pabi.reference`` for the mpmath definitions).

>>> import pabi
>>> round(pabi.sampled_gaussian_rdp(2, sample_rate=1.0, noise_multiplier=1.0), 12)   # q = 1: α/(2 z²)
1.0
>>> round(pabi.sampled_gaussian_rdp(32, sample_rate=0.01, noise_multiplier=1.0), 10)   # the k = 32 term dominates
11.246275937
"""

from __future__ import annotations

# The concept modules (their public names; __all__ below is the list of this package's API).
from ._conversions import *  # noqa: F401,F403
from ._erm import *  # noqa: F401,F403
from ._last_iterate import *  # noqa: F401,F403
from ._sampled import *  # noqa: F401,F403

__all__ = [
    "DEFAULT_ORDERS",
    "sampled_gaussian_rdp",
    "sampled_gaussian_rdp_per_instance",
    "dpsgd_per_instance_rdp",
    "holder_orders",
    "holder_composition_bound",
    "holder_min_exponent",
    "hoeffding_sample_size",
    "rdp_to_dp_epsilon",
    "rdp_to_dp_delta",
    "rdp_compose",
    "profile_to_rdp",
    # named results
    "RdpWithTerms",
    "EpsilonAtOrder",
    "DeltaAtOrder",
    "AmplifiedGuarantee",
    "PerInstanceGuarantee",
    # classical Gaussian mechanism, amplification, L_p per-instance, general updates, unlearning
    "gaussian_dp_constant",
    "gaussian_mechanism_epsilon",
    "amplify_by_sampling",
    "lp_per_instance_epsilon_delta",
    "general_update_rdp",
    "weak_triangle_bound",
    "unlearning_keep",
    "shifted_drift_bound",
    # last iterate of cyclic DP-SGD (Kong-Ribero)
    "shift_weight",
    "cyclic_shift_weight_sum",
    "clipped_step_kappa",
    "last_iterate_rdp_general",
    "last_iterate_rdp_bounded",
    "last_iterate_rdp_cyclic",
    "shifted_cycle_bound",
    "optimal_shifts",
    "cyclic_calibrate",
    "CyclicCalibration",
    "shift_weight_min_steps",
    "last_iterate_rdp_small_step",
    # ERM output perturbation (paper 001)
    "gd_contraction",
    "GdContraction",
    "sensitivity_multi_epoch",
    "averaged_rdp",
    "mixture_rdp_bound",
    "gaussian_mechanism_rdp",
]

# The functions live in the concept modules imported above; they present themselves as
# ``pabi.rdp.<name>``, their public home (help(), doctest, the documentation).
for _name in __all__:
    _obj = globals()[_name]
    if callable(_obj):
        _obj.__module__ = __name__
del _name, _obj
