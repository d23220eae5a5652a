"""Options crossing into ``pabi._core`` are typed values converted in one place (the binding's
``options.rs``): a bad option string is a DomainError naming the parameter with one wording; an
online quantity is named (no integer codes); an absent smoothness is None (no flag with a
placeholder). The named quantities give the public functions' values bit for bit."""

import numpy as np
import pytest

import pabi
from pabi import _core
from pabi._core import DomainError

A = lambda *v: np.array(v, dtype=np.float64)  # noqa: E731


def _option_error(exc, param, value):
    e = exc.value
    assert isinstance(e, ValueError)
    assert e.param == param and e.value == value and e.index is None
    assert e.allowed.startswith("one of '")
    assert str(e).startswith(f"{param} must be one of '")
    assert str(e).endswith(f'got "{value}"')


@pytest.mark.parametrize("call, param, value", [
    (lambda: pabi.pnsgd_delta(1.0, noise="gauss", noise_scale=1, max_grad_norm=1, lr=0.5, diameter=1,
                              steps=10), "noise", "gauss"),
    (lambda: pabi.pnsgd_delta(1.0, noise_scale=1, max_grad_norm=1, lr=0.5, diameter=1, steps=10,
                              ordering="cyclic"), "ordering", "cyclic"),
    (lambda: pabi.online_gaussian_delta_limit_closed_upper(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0,
                                                           index=100, c1=100.0, c2=100.0, decay=1.5,
                                                           variant="x"), "variant", "x"),
    (lambda: pabi.clipped_step_kappa(0.1, weak_convexity=0.5, smoothness=1.0, contraction="bogus"),
     "contraction", "bogus"),
    (lambda: pabi.rdp_to_dp_epsilon(1e-5, orders=[2.0], rdp=[1.0], conversion="loose"), "conversion", "loose"),
    (lambda: pabi.sweep(pabi.theta, eps=[1.0], fixed={"r": 1.0}, backend="spark"), "backend", "spark"),
])
def test_python_option_errors_have_the_core_wording(call, param, value):
    """Options checked in Python (before any core call) raise the core's DomainError wording."""
    with pytest.raises(DomainError) as exc:
        call()
    _option_error(exc, param, value)


def _pnsgd(noise="gaussian", order="fixed", variant="corrected"):
    one = A(1.0)
    return _core.pnsgd_delta(A(1.0), A(2.0), one, A(0.1), one, A(10.0), A(3.0), None, A(0.0),
                             noise, order, variant, False, 1)


@pytest.mark.parametrize("kw, param, value", [
    (dict(noise="gauss"), "noise", "gauss"),
    (dict(order="cyclic"), "ordering", "cyclic"),
    (dict(variant="published"), "variant", "published"),
    (dict(order="fixed", variant="as_published"), "variant", "as_published"),
])
def test_pnsgd_option_errors(kw, param, value):
    with pytest.raises(DomainError) as exc:
        _pnsgd(**kw)
    _option_error(exc, param, value)


def test_pnsgd_options_accepted():
    assert 0.0 < _pnsgd()[0] < 1.0
    assert 0.0 <= _pnsgd(noise="laplace")[0] <= 1.0
    assert _pnsgd(order="random_stop", variant="as_published")[0] <= 1.0


def test_neighbour_option_error():
    with pytest.raises(DomainError) as exc:
        _core._Pld.subsampled_gaussian(0.1, 1.0, "replace", 1e-3)
    _option_error(exc, "direction", "replace")


ONLINE = (A(1.0), A(10.0), A(0.01), A(1.0), A(1e6), A(100.0), A(100.0), A(100.0), A(1.5))
NAMES = ["delta", "limit", "limit_bound", "star_upper", "star_lower"]


def _online_core(quantity, smoothness, strong_convexity, **kw):
    """The online binding on ONLINE (the setup's arrays cross as one tuple: lr, diameter,
    smoothness, strong_convexity)."""
    eps, lip, lr, d, *rest = ONLINE
    return _core.online_schedule_bound(quantity, eps, lip, *rest, (lr, d, smoothness, strong_convexity), **kw)


# the public function of each named quantity (online Laplace / Gaussian), same arguments
PUBLIC = {"delta": "delta", "limit": "delta_limit", "limit_bound": "delta_limit_upper",
          "star_upper": "delta_limit_closed_upper", "star_lower": "delta_limit_lower"}


@pytest.mark.parametrize("laplace", [False, True])
@pytest.mark.parametrize("name", NAMES)
def test_online_quantity_names_give_the_public_values(name, laplace):
    import pabi
    fn = getattr(pabi, f"online_{'laplace' if laplace else 'gaussian'}_{PUBLIC[name]}")
    eps, lip, lr, d, n, i, c1, c2, decay = (float(a[0]) for a in ONLINE)
    for log in (False, True):
        core = _online_core(name, None, A(0.0), laplace=laplace, as_published=False, log=log)
        kw = dict(max_grad_norm=lip, lr=lr, diameter=d, index=i, c1=c1, c2=c2, decay=decay, log=log)
        if name == "delta":
            kw["steps"] = n
        public = fn(eps, **kw)
        assert np.float64(public).tobytes() == core[0].tobytes()
        smooth = _online_core(name, A(1.0), A(0.5), laplace=laplace, as_published=False, log=log)
        assert np.isfinite(smooth).all()


def test_online_quantity_rounding_direction():
    # the lower integral bound is below the exact limit, which is below the certified bound
    lo, lim, hi = (_online_core(q, None, A(0.0), laplace=False, as_published=False, log=False)[0]
                   for q in ("star_lower", "limit", "limit_bound"))
    assert lo < lim <= hi


def test_online_quantity_code_is_not_accepted():
    with pytest.raises(TypeError):
        _online_core(3, None, A(0.0), laplace=False, as_published=False, log=False)


@pytest.mark.parametrize("bad", ["upper", "Delta", ""])
def test_online_quantity_error(bad):
    with pytest.raises(DomainError) as exc:
        _online_core(bad, None, A(0.0), laplace=False, as_published=False, log=False)
    assert exc.value.param == "quantity" and exc.value.index is None
    assert exc.value.allowed == "one of 'delta', 'limit', 'limit_bound', 'star_upper', 'star_lower'"


def test_smoothness_none_is_the_absent_argument():
    import pabi
    for laplace in (False, True):
        args = (A(1e6), A(1e5), A(2.0), A(0.1), A(1.0))
        new = _core.schedule_noise(*args[:3], (*args[3:], None, A(0.0)), laplace)
        pub = (pabi.laplace_schedule_noise_scale if laplace else pabi.gaussian_schedule_noise_scale)(1e6, c1=1e5, c2=2.0, lr=0.1, diameter=1.0)
        assert new.tobytes() == np.float64(pub).tobytes()
        with_beta = _core.schedule_noise(*args[:3], (*args[3:], A(1.0), A(0.5)), laplace)
        assert with_beta[0] != new[0]
        oargs = (A(100.0), A(100.0), A(100.0), A(1.5), A(0.01), A(1.0))
        new = _core.online_schedule_noise(*oargs[:4], (*oargs[4:], None, A(0.0)), laplace)
        pub = (pabi.online_laplace_noise_scale if laplace else pabi.online_gaussian_noise_scale)(100.0, c1=100.0, c2=100.0, decay=1.5, lr=0.01, diameter=1.0)
        assert new.tobytes() == np.float64(pub).tobytes()
        d = (A(1.0), A(10.0), A(0.1), A(1.0), A(1e12, 1e6), A(1e5), A(2.0))
        new = _core.schedule_bound(*d, None, A(0.0), laplace, 2, False)
        sched = pabi.laplace_schedule_delta if laplace else pabi.gaussian_schedule_delta
        assert new.tobytes() == np.asarray(sched(1.0, max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=[1e12, 1e6], c1=1e5, c2=2.0)).tobytes()
        assert (new > 0).all()


def test_composition_queries_check_before_work():
    pld = _core._Pld.eps_delta(1.0, 1e-6, 1e-3)
    comp = _core.pld_compose([(pld, 3)])
    with pytest.raises(DomainError) as exc:
        comp.delta(A(0.5, -1.0, np.nan))
    assert (exc.value.param, exc.value.value, exc.value.index) == ("eps", -1.0, 1)
    with pytest.raises(DomainError) as exc:
        comp.epsilon(A(1e-6, 1.0))
    assert (exc.value.param, exc.value.value, exc.value.index) == ("delta", 1.0, 1)
    lo, est, hi = comp.delta(A(0.5, 3.0))
    assert (lo <= est).all() and (est <= hi).all()
    assert [k for k, _ in comp.budget()] == list(pabi.ErrorBudget._fields)  # the named result's fields
