"""Small helpers shared by several test modules (imported as ``from _helpers import ...``: the
tests folder is on ``sys.path`` under pytest's rootdir-relative import mode)."""

from __future__ import annotations

import inspect
import math

import pytest

import pabi
from pabi import reference as ref

#: the engine's outward rounding of every log-factor (``pabi_core::num::INFLATE``)
INFLATE = 2.0 ** -46


def pub(fn_name, *args, log=None, variant=None, **kw):
    """pabi's ``fn_name`` on arguments written positionally in the reference's order (the public
    signature takes the setup by keyword, question first). The reference twin of a
    ``*_limit_upper`` function is the ``*_limit`` one (same arguments)."""
    twin = getattr(ref, fn_name, None) or getattr(ref, fn_name.replace("_limit_upper", "_limit"))
    bound = inspect.signature(twin).bind_partial(*args, **kw)
    extra = {k: v for k, v in (("log", log), ("variant", variant)) if v is not None}
    return getattr(pabi, fn_name)(**bound.arguments, **extra)


def assert_rejects_bad_delta(fn, kw) -> None:
    """An ε(δ) inversion ``fn(delta, **kw)`` rejects every δ outside (0, 1) with a DomainError
    naming ``delta`` (and, in an array, the first bad index), and takes its setup by keyword only."""
    for bad in (0.0, 1.0, -1e-3, math.nan, math.inf):
        with pytest.raises(pabi.DomainError) as e:
            fn(bad, **kw)
        assert e.value.param == "delta", bad
    with pytest.raises(pabi.DomainError) as e:
        fn([1e-3, 2.0], **kw)
    assert e.value.param == "delta" and e.value.index == 1
    with pytest.raises(TypeError):
        fn(1e-3, 10.0)  # the setup is keyword-only
