"""The schedule functions share their signatures per family (``schedules._shaped``): each public
function still has its own name, docstring and exact signature (names, order, defaults,
keyword-only flags), and binds positional and keyword arguments alike."""

from __future__ import annotations

import inspect

import pytest

import pabi

SETUP = ["smoothness", "strong_convexity"]
ONLINE = ["eps", "lipschitz", "lr", "diameter", "index", "c1", "c2", "decay", *SETUP]
EXPECTED = {
    "laplace_schedule_scale": ["n", "c1", "c2", "lr", "diameter", *SETUP],
    "gauss_schedule_sigma": ["n", "c1", "c2", "lr", "diameter", *SETUP],
    "laplace_schedule_delta": ["eps", "lipschitz", "lr", "diameter", "n", "c1", "c2", *SETUP],
    "gauss_schedule_delta": ["eps", "lipschitz", "lr", "diameter", "n", "c1", "c2", *SETUP],
    "online_laplace_scale": ["index", "c1", "c2", "decay", "lr", "diameter", *SETUP],
    "online_gauss_sigma": ["index", "c1", "c2", "decay", "lr", "diameter", *SETUP],
    **{f"online_{m}_delta": ["eps", "lipschitz", "lr", "diameter", "n", *ONLINE[4:], "log"]
       for m in ("laplace", "gauss")},
    **{f"online_{m}_delta_{q}": [*ONLINE, "log"] for m in ("laplace", "gauss")
       for q in ("limit", "limit_bound", "star_lower")},
    **{f"online_{m}_delta_star_upper": [*ONLINE, "variant", "log"] for m in ("laplace", "gauss")},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_signature_name_and_doc(name):
    f = getattr(pabi, name)
    sig = inspect.signature(f)
    assert list(sig.parameters) == EXPECTED[name]
    assert f.__name__ == name and f.__doc__ and f.__doc__.strip()
    ps = sig.parameters
    assert ps["smoothness"].default is None and ps["strong_convexity"].default == 0.0
    for kw in ("log", "variant"):
        if kw in ps:
            assert ps[kw].kind is inspect.Parameter.KEYWORD_ONLY
    with pytest.raises(TypeError, match=rf"^{name}\(\) got an unexpected keyword argument 'bogus'"):
        f(*([1.0] * len([p for p in ps.values() if p.default is inspect.Parameter.empty])), bogus=1)


def test_positional_and_keyword_calls_agree():
    args = dict(eps=1.0, lipschitz=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    pos = list(args.values())
    for f in (pabi.online_gauss_delta_limit, pabi.online_laplace_delta_star_lower):
        assert f(*pos) == f(**args) == f(*pos[:4], **dict(list(args.items())[4:]))
    v = pabi.online_gauss_delta_star_upper(*pos, variant="as_published", log=True)
    assert v == pabi.online_gauss_delta_star_upper(**args, log=True, variant="as_published") < -1e42
    with pytest.raises(ValueError, match="variant"):
        pabi.online_gauss_delta_star_upper(*pos, variant="published")
    d = pabi.online_gauss_delta(1.0, 10.0, 0.01, 1.0, 10**12, 100, 100.0, 100.0, 1.5)
    assert d == pabi.online_gauss_delta(**args, n=10**12) == pytest.approx(2.858025336e-23, rel=1e-9)
    assert pabi.gauss_schedule_delta(1.0, 10.0, 0.1, 1.0, 1e6, 1e5, 100.0, None, 0.0) == \
        pabi.gauss_schedule_delta(eps=1.0, lipschitz=10.0, lr=0.1, diameter=1.0, n=1e6, c1=1e5, c2=100.0)
