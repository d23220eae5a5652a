"""pabi: tight, high-precision differential-privacy bounds for iterative training.

The engine (this release): the Gaussian tail family and hockey-stick divergences that every
privacy-amplification-by-iteration bound is built from, evaluated in Rust to near machine
precision over the whole domain, vectorized over numpy arrays. ``pabi.reference`` holds the
same functions in mpmath at arbitrary precision (the executable specification).
"""

from ._api import (
    DomainError,
    InternalError,
    gaussian_tail,
    get_num_threads,
    lambertw,
    laplace_theta,
    laplace_theta_complement,
    set_num_threads,
    simd_level,
    theta,
    theta_complement,
    wright_omega,
)
from ._core import __version__
from .composition import *  # noqa: F401,F403
from .composition import __all__ as _all_composition
from .divergence import contraction_coefficient, hockey_stick_divergence
from .divergence import mixture_hockey_stick_divergence
from .pnsgd import *  # noqa: F401,F403
from .pnsgd import __all__ as _all_pnsgd
from .rdp import *  # noqa: F401,F403
from .rdp import __all__ as _all_rdp
from .schedules import *  # noqa: F401,F403
from .schedules import __all__ as _all_schedules
from .setups import DPSGD, PNSGD, CyclicDPSGD, ScheduledPNSGD
from .setups import ERMGradientDescent, LastIterateSGD, OnlinePNSGD, StepwisePNSGD
from ._bounds import Assumption, Bound, bounds
from .sweep import grid_size, sweep

__all__ = [
    "DomainError",
    "InternalError",
    "__version__",
    "gaussian_tail",
    "get_num_threads",
    "lambertw",
    "laplace_theta",
    "laplace_theta_complement",
    "set_num_threads",
    "simd_level",
    "sweep",
    "grid_size",
    "theta",
    "theta_complement",
    "wright_omega",
    "hockey_stick_divergence",
    "contraction_coefficient",
    "mixture_hockey_stick_divergence",
    "PNSGD",
    "DPSGD",
    "CyclicDPSGD",
    "ScheduledPNSGD",
    "StepwisePNSGD",
    "OnlinePNSGD",
    "LastIterateSGD",
    "ERMGradientDescent",
    "bounds",
    "Bound",
    "Assumption",
    *_all_pnsgd,
    *_all_schedules,
    *_all_rdp,
    *_all_composition,
]
