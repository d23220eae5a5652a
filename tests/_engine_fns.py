"""The log forms of the engine functions as plain callables, for tests that iterate over a list of
functions (``pabi.theta(..., log=True)`` is the API; these wrappers only give it a name)."""

from __future__ import annotations

from typing import Any

import pabi


def log_theta(eps: Any, shift: Any) -> Any:
    return pabi.theta(eps, shift, log=True)


def log_theta_complement(eps: Any, shift: Any) -> Any:
    return pabi.theta_complement(eps, shift, log=True)


def log_gaussian_tail(x: Any) -> Any:
    return pabi.gaussian_tail(x, log=True)


def ref_log_theta(eps: Any, shift: Any, *a: Any, **kw: Any) -> Any:
    from pabi import reference as ref

    return ref.theta(eps, shift, *a, log=True, **kw)


def ref_log_theta_complement(eps: Any, shift: Any, *a: Any, **kw: Any) -> Any:
    from pabi import reference as ref

    return ref.theta_complement(eps, shift, *a, log=True, **kw)
