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


def random_pnsgd_kw(rnd, noise: str, n: int, smooth_share: float) -> dict:
    """Random PNSGD arguments for ``steps=n`` from ``rnd`` (a ``random.Random``): the scales
    log-uniform, and with probability ``smooth_share`` a smooth, strongly convex loss (the
    learning rate kept below 2/(β + ρ)); ordering and index are the caller's."""
    kw = dict(noise=noise, noise_scale=10 ** rnd.uniform(-1, 1), max_grad_norm=10 ** rnd.uniform(-1, 0.5),
              lr=10 ** rnd.uniform(-2, 0), diameter=10 ** rnd.uniform(-1, 1), steps=n)
    if rnd.random() < smooth_share:
        beta = 10 ** rnd.uniform(-1, 1)
        rho = beta * rnd.uniform(0, 1)
        kw.update(smoothness=beta, strong_convexity=rho, lr=min(kw["lr"], 1.99 / (beta + rho)))
    return kw


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


def dpa_symmetric_epsilon(profile, steps: int, delta: float, h: float = 1e-4) -> float:
    """ε(``delta``) of ``steps`` compositions of the symmetric pair whose profile is ``profile``
    (δ(ε) for ε ≥ 0, a vectorised callable), by a route that shares no code with pabi's PLD:
    the profile is extended to ε < 0 as a symmetric pair's, δ(−t) = 1 − e^{−t} + e^{−t}δ(t)
    (docs/derivations/neighbouring.md#symmetrised-pair), discretised by dp-accounting's
    pessimistic connect-the-dots (``create_pmf_pessimistic_connect_dots``, Doroshenko et al.
    2022, Alg. 1) on the grid ε = kh, |ε| up to where δ < 1e-25, and composed by dp-accounting
    (``self_compose``)."""
    import numpy as np
    from dp_accounting.pld import pld_pmf
    from dp_accounting.pld import privacy_loss_distribution as dpa_pld

    top = 1.0
    while float(np.asarray(profile(np.array([top])))[0]) > 1e-25:  # 1.5^k, k <= 40: ε up to ~1e7
        top *= 1.5
        assert top < 1e7, "the profile does not fall below 1e-25"
    k = np.arange(0, math.ceil(top / h) + 1)
    d = np.clip(np.asarray(profile(k * h), dtype=float), 0.0, 1.0)
    t = k[1:][::-1] * h  # the negative half, ε = −t, ascending
    ks = np.concatenate([-k[1:][::-1], k])
    ds = np.concatenate([-np.expm1(-t) + np.exp(-t) * d[1:][::-1], d])
    pld = dpa_pld.PrivacyLossDistribution(pld_pmf.create_pmf_pessimistic_connect_dots(h, ks, ds))
    return float(pld.self_compose(steps).get_epsilon_for_delta(delta))


def assert_one_line_error(rc: int, err: str, status: int = 2, contains: str = "") -> None:
    """A CLI failure: exit status ``status`` and one line on stderr, ``pabi: error: ...`` naming
    the problem (``contains``), no traceback."""
    assert rc == status
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("pabi: error: ")
    assert "Traceback" not in err
    assert contains in lines[0]
