"""mpmath implementations of pabi's public functions at arbitrary precision.

This package is the executable specification: each function evaluates the *defining* formula
(not the reformulation used by the Rust kernels), at ``dps`` significant decimal digits plus
enough guard digits to absorb the cancellation the formula suffers, and returns an
``mpmath.mpf``. Float inputs are taken as exact binary values. It is slow (milliseconds per
call) and meant for tests, audits and spot checks. Requires ``mpmath``
(``pip install pabi[reference]``).

One submodule per family, all names re-exported here:

* ``_engine``: Gaussian tail, θ and its log/complement, Laplace θ, Lambert W.
* ``_pnsgd``: PNSGD amplification bounds (fixed, shuffled, randomly stopped order).
* ``_schedules``: noise schedules, online decaying noise, limits δ*.
* ``_rdp``: Rényi-DP bounds; ``_rdp_extra``: the remaining Rényi-DP helpers;
  ``_last_iterate``: last-iterate bounds of cyclic DP-SGD (Kong–Ribero).
* ``_composition``: f-DP, GDP, exact and FFT composition, DP-SGD accounting.
* ``_divergence``: E_γ of given distributions, contraction coefficients of finite kernels.
"""

try:
    import mpmath  # noqa: F401  (every reference module needs it)
except ImportError as exc:  # the one message a user without the extra sees
    raise ImportError("pabi.reference needs mpmath: pip install 'pabi[reference]'") from exc

from ._composition import *  # noqa: F401,F403
from ._composition import __all__ as _all_composition
from ._divergence import *  # noqa: F401,F403
from ._divergence import __all__ as _all_divergence
from ._engine import *  # noqa: F401,F403
from ._engine import __all__ as _all_engine
from ._pnsgd import *  # noqa: F401,F403
from ._pnsgd import __all__ as _all_pnsgd
from ._rdp import *  # noqa: F401,F403
from ._rdp import __all__ as _all_rdp
from ._rdp_extra import *  # noqa: F401,F403
from ._rdp_extra import __all__ as _all_rdp_extra
from ._last_iterate import *  # noqa: F401,F403
from ._last_iterate import __all__ as _all_last_iterate
from ._schedules import *  # noqa: F401,F403
from ._schedules import __all__ as _all_schedules

__all__ = [*_all_engine, *_all_pnsgd, *_all_schedules, *_all_rdp, *_all_rdp_extra, *_all_last_iterate,
           *_all_composition, *_all_divergence]
