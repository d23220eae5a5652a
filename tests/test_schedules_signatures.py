"""The schedule functions share their signatures per family (``schedules._shaped``): each public
function still has its own name, docstring and exact signature (names, order, defaults,
keyword-only flags). The quantity asked about (``eps``, or ``steps``/``index`` for a noise
level) is the one positional argument; the setup is keyword-only (issue 15, convention 1)."""

from __future__ import annotations

import inspect

import pytest

import pabi

SETUP = ["smoothness", "strong_convexity"]
ONLINE = ["eps", "max_grad_norm", "lr", "diameter", "index", "c1", "c2", "decay", *SETUP]
EXPECTED = {
    "laplace_schedule_noise_scale": ["steps", "c1", "c2", "lr", "diameter", *SETUP],
    "gaussian_schedule_noise_scale": ["steps", "c1", "c2", "lr", "diameter", *SETUP],
    "laplace_schedule_delta": ["eps", "max_grad_norm", "lr", "diameter", "steps", "c1", "c2", *SETUP],
    "gaussian_schedule_delta": ["eps", "max_grad_norm", "lr", "diameter", "steps", "c1", "c2", *SETUP],
    "online_laplace_noise_scale": ["index", "c1", "c2", "decay", "lr", "diameter", *SETUP],
    "online_gaussian_noise_scale": ["index", "c1", "c2", "decay", "lr", "diameter", *SETUP],
    **{f"online_{m}_delta": ["eps", "max_grad_norm", "lr", "diameter", "steps", *ONLINE[4:], "log"]
       for m in ("laplace", "gaussian")},
    **{f"online_{m}_delta_{q}": [*ONLINE, "log"] for m in ("laplace", "gaussian")
       for q in ("limit", "limit_upper", "limit_lower")},
    **{f"online_{m}_delta_limit_closed_upper": [*ONLINE, "variant", "log"] for m in ("laplace", "gaussian")},
}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_signature_name_and_doc(name):
    f = getattr(pabi, name)
    sig = inspect.signature(f)
    assert list(sig.parameters) == EXPECTED[name]
    assert f.__name__ == name and f.__doc__ and f.__doc__.strip()
    ps = sig.parameters
    assert ps["smoothness"].default is None and ps["strong_convexity"].default == 0.0
    first, *rest = ps.values()
    assert first.kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in rest)
    required = {p.name: 1.0 for p in rest if p.default is inspect.Parameter.empty}
    with pytest.raises(TypeError, match=rf"^{name}\(\) got an unexpected keyword argument 'bogus'"):
        f(1.0, **required, bogus=1)
    # the interpreter's own messages (the call is bound by the interpreter), under the public name
    with pytest.raises(TypeError, match=rf"^{name}\(\) takes 1 positional argument but \d+ were given"):
        f(1.0, *required.values())
    missing = next(iter(required))
    with pytest.raises(TypeError, match=rf"^{name}\(\) missing 1 required keyword-only argument: '{missing}'"):
        f(1.0, **{k: v for k, v in required.items() if k != missing})


def test_positional_and_keyword_calls_agree():
    args = dict(eps=1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, index=100, c1=100.0, c2=100.0, decay=1.5)
    setup = {k: v for k, v in args.items() if k != "eps"}
    for f in (pabi.online_gaussian_delta_limit, pabi.online_laplace_delta_limit_lower):
        assert f(1.0, **setup) == f(**args)
    v = pabi.online_gaussian_delta_limit_closed_upper(1.0, **setup, variant="as_published", log=True)
    assert v == pabi.online_gaussian_delta_limit_closed_upper(**args, log=True, variant="as_published") < -1e42
    with pytest.raises(ValueError, match="variant"):
        pabi.online_gaussian_delta_limit_closed_upper(1.0, **setup, variant="published")
    d = pabi.online_gaussian_delta(1.0, max_grad_norm=10.0, lr=0.01, diameter=1.0, steps=10**12, index=100, c1=100.0, c2=100.0, decay=1.5)
    assert d == pabi.online_gaussian_delta(**args, steps=10**12)
    # independent value (pabi 2.8580253366856775e-23): the defining product A_i·∏B_t in mpmath
    # (pabi.reference: the direct sum of ln B_t, Euler–Maclaurin tails), 2.85802533668425628e-23;
    # never below it, within 1e-12 (a composed bound; pabi is 5e-13 above)
    import mpmath as mp
    from pabi import reference as ref

    exact = ref.online_schedule_delta("gaussian", 1.0, 10.0, 0.01, 1.0, 10**12, 100, 100.0, 100.0, 1.5, dps=20, T=300)
    assert exact <= d <= exact * (1 + mp.mpf(1e-12))
    assert pabi.gaussian_schedule_delta(1.0, max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=1e6, c1=1e5, c2=100.0, smoothness=None, strong_convexity=0.0) == \
        pabi.gaussian_schedule_delta(eps=1.0, max_grad_norm=10.0, lr=0.1, diameter=1.0, steps=1e6, c1=1e5, c2=100.0)
