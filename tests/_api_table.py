"""The table of pabi's public callables, one valid and cheap call of each, and the classes of bad
inputs fed to their parameters: the one table of the bad-input matrix (``tests/_matrix_worker.py``)
and of the behaviour snapshot (``tools/probe_snapshot.py``).

* :func:`table`: name -> (callable, valid default keyword arguments, kinds of the non-scalar
  parameters, coupled parameter names), in today's vocabulary (the glossary's names). A new
  public callable gets ONE entry here. The snapshot's probe set is frozen in the vocabulary it
  was first recorded in: its older entries are that record (``tools/probe_snapshot.py``
  ``table()``, translated to today's names when called); its entries in today's vocabulary are
  taken from here by name (``probe_snapshot.FROM_API_TABLE``), so each is written once.
* the input classes: :data:`SCALAR_CLASSES`, :data:`ARRAY_CLASSES`, :data:`OPTION_CLASSES` and
  the inputs of each class, :func:`scalar_input` and :func:`array_input`.

Importing this module builds nothing; :func:`table` calls pabi (a grid of a profile).
"""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

#: one entry of the table: (callable, defaults, kinds, coupled)
Entry = tuple[Callable[..., Any], dict[str, Any], dict[str, str], dict[str, tuple[str, ...]]]

# ----------------------------------------------------------------------------- input classes

#: scalar-valued classes (replace the whole argument)
SCALAR_CLASSES = (
    "nan", "+inf", "-inf", "-0.0", "negative", "zero", "5e-324", "1e308", "2**63", "10**30",
    "half", "str", "None", "complex", "bool", "object",
    "empty", "0-d", "noncontig", "bigendian", "float32", "int-array", "bool-array", "object-array",
    "mismatch",
)
#: classes of array-valued parameters (the valid default array with its LAST element replaced,
#: or the whole array converted)
ARRAY_CLASSES = (
    "el-nan", "el-+inf", "el--inf", "el--0.0", "el-negative", "el-zero", "el-5e-324", "el-1e308",
    "el-2**63", "el-10**30", "str", "None", "complex", "bool", "object",
    "empty", "0-d", "noncontig", "bigendian", "float32", "int-array", "bool-array", "object-array",
    "mismatch",
)
OPTION_CLASSES = ("bogus", "None", "number")

_SPECIAL = {"nan": math.nan, "+inf": math.inf, "-inf": -math.inf, "-0.0": -0.0, "zero": 0.0,
            "5e-324": 5e-324, "1e308": 1e308, "2**63": 2**63, "10**30": 10**30}


def scalar_input(cls: str, v: Any) -> Any:
    """The input of class ``cls`` for a parameter whose valid value is the scalar ``v``."""
    fv = float(v)
    if cls in _SPECIAL:
        return _SPECIAL[cls]
    if cls == "negative":
        return -abs(fv) if fv != 0 else -1.0
    if cls == "half":
        return fv + 0.5
    if cls == "str":
        return repr(fv)
    if cls == "None":
        return None
    if cls == "complex":
        return complex(fv, 0.0)
    if cls == "bool":
        return True
    if cls == "object":
        return object()
    if cls == "empty":
        return np.array([], dtype=np.float64)
    if cls == "0-d":
        return np.array(fv)
    if cls == "noncontig":
        return np.array([fv, -1.0, fv, -1.0])[::2]
    if cls == "bigendian":
        return np.array([fv, fv], dtype=">f8")
    if cls == "float32":
        return np.array([fv, fv], dtype=np.float32)
    if cls == "int-array":
        return np.array([round(fv), round(fv)], dtype=np.int64)
    if cls == "bool-array":
        return np.array([True, False])
    if cls == "object-array":
        return np.array([fv, fv], dtype=object)
    if cls == "mismatch":
        return np.array([fv, fv])
    raise KeyError(cls)


def array_input(cls: str, v: np.ndarray) -> Any:
    """The input of class ``cls`` for a parameter whose valid value is the array ``v``."""
    v = np.asarray(v, dtype=np.float64)
    if cls.startswith("el-"):
        what = cls[3:]
        if what in ("2**63", "10**30"):
            lst = v.tolist()
            inner = lst
            while isinstance(inner[-1], list):
                inner = inner[-1]
            inner[-1] = _SPECIAL[what]
            return lst
        out = v.copy()
        out.reshape(-1)[-1] = -abs(out.reshape(-1)[-1]) - 1.0 if what == "negative" else _SPECIAL[what]
        return out
    if cls in ("str", "None", "complex", "bool", "object"):
        return scalar_input(cls, 1.0)
    if cls == "empty":
        return np.empty((0,) * v.ndim if v.ndim else (0,))
    if cls == "0-d":
        return np.array(v.reshape(-1)[0])
    if cls == "noncontig":
        big = np.repeat(v[..., None], 2, axis=-1)
        return big[..., 0]
    if cls == "bigendian":
        return v.astype(">f8")
    if cls == "float32":
        return v.astype(np.float32)
    if cls == "int-array":
        return np.ceil(v).astype(np.int64)
    if cls == "bool-array":
        return v.astype(bool)
    if cls == "object-array":
        return v.astype(object)
    if cls == "mismatch":
        return np.concatenate([v.reshape(-1), v.reshape(-1)[:1]]).reshape(-1, 1) if v.ndim <= 1 else v[..., :-1][:-1]
    raise KeyError(cls)




# ----------------------------------------------------------------------------- the table
#
# Each entry: name -> (callable factory, defaults, kinds, coupled). ``defaults`` are keyword
# arguments of a valid, cheap call; ``kinds`` marks non-scalar parameters: "array" (array-valued
# input), "option" (string/flag option), "skip" (callables, objects: not varied). ``coupled``
# maps a parameter to other parameter names an error about it may legitimately name (joint
# constraints such as lr <= 2/(smoothness + strong_convexity)).


def _pabi() -> Any:
    import pabi

    return pabi


def _profile(e: np.ndarray) -> np.ndarray:
    import pabi

    return pabi.gdp_delta(e, 0.5)


_GRID = np.arange(0, 101) * 0.1


def _grid_delta() -> np.ndarray:
    d = np.asarray(_profile(_GRID), dtype=np.float64)
    d[-1] = 0.0
    return d


_BUILT: dict[str, Any] = {}


def _pld() -> Any:
    """The base PLD (Gaussian, σ 1, grid step 0.01), built once (it is immutable)."""
    if "pld" not in _BUILT:
        _BUILT["pld"] = _pabi().PrivacyLossDistribution.gaussian(1.0, grid_step=0.01)
    return _BUILT["pld"]


def forget_built() -> None:
    """Forget the base PLDs (the next use builds them again, e.g. under another thread count)."""
    _BUILT.clear()


def _composed() -> Any:
    """The base PLD composed 3 times, built once."""
    if "composed" not in _BUILT:
        _BUILT["composed"] = _pld().compose(3)
    return _BUILT["composed"]


#: how an entry's callable is found and called: (qualified name, owner, keyword arguments) ->
#: (callable, keyword arguments)
Resolve = Callable[[str, Any, dict[str, Any]], tuple[Callable[..., Any], dict[str, Any]]]


def plain(qual: str, owner: Any, kw: dict[str, Any]) -> tuple[Callable[..., Any], dict[str, Any]]:
    """The callable ``qual`` names on ``owner`` and ``kw`` as they are: a call in today's
    vocabulary (``tools/probe_snapshot.py`` resolves through its ``translate`` instead, which
    maps its recorded vocabulary to today's)."""
    name = qual.split(".")[-1]
    return (owner if name == "__init__" else getattr(owner, name)), kw


def on(owner: Callable[[], Any], qual: str, resolve: Resolve = plain) -> Callable[..., Any]:
    """An entry's callable: ``qual`` (``"name"``, ``"Class.method"`` or ``"Class.__init__"``)
    looked up on ``owner()`` and called with the keyword arguments, both through ``resolve``."""
    def f(**kw: Any) -> Any:
        fn, kw2 = resolve(qual, owner(), kw)
        return fn(**kw2)

    f.__name__ = qual
    return f


def _pld_class() -> Any:
    return _pabi().PrivacyLossDistribution


def _adapters() -> Any:
    from pabi import adapters

    return adapters


def _accountant_class() -> Any:
    from pabi.adapters import PNSGDAccountant

    return PNSGDAccountant


def _call_pld(method: str, resolve: Resolve = plain) -> Callable[..., Any]:
    return on(_pld_class, f"PrivacyLossDistribution.{method}", resolve)


def _pld_compose(**kw: Any) -> Any:
    return on(_pld, "PrivacyLossDistribution.compose")(**kw)


def _composed_method(method: str, resolve: Resolve = plain) -> Callable[..., Any]:
    return on(_composed, f"ComposedPLD.{method}", resolve)


def _compose_plds(count: Any, tail_mass: Any = 1e-15) -> Any:
    return _pabi().compose_plds([(_pld(), count)], tail_mass=tail_mass)


def _sweep(**kw: Any) -> Any:
    return _pabi().sweep(_pabi().theta, progress=False, **kw)


def _accountant(**kw: Any) -> Any:
    return on(_accountant_class, "PNSGDAccountant.__init__")(**kw)


_ACC_KW = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=10, grid_step=0.05)


def _acc_method(method: str, make: Callable[..., Any] = _accountant, acc_kw: dict[str, Any] = _ACC_KW,
                resolve: Resolve = plain) -> Callable[..., Any]:
    """``method`` of an accountant ``make(**acc_kw)`` that has recorded 10 steps."""
    def started() -> Any:
        acc = make(**acc_kw)
        acc.record_steps(10)
        return acc

    return on(started, f"PNSGDAccountant.{method}", resolve)


def _adapter(name: str, resolve: Resolve = plain) -> Callable[..., Any]:
    return on(_adapters, name, resolve)


def _set_num_threads(**kw: Any) -> Any:
    pabi = _pabi()
    try:
        return pabi.set_num_threads(**kw)
    finally:
        pabi.set_num_threads(1)


_PNSGD = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.5, diameter=1.0, steps=10.0, index=3.0, smoothness=2.0,
              strong_convexity=0.5)
_PNSGD_OPT = dict(noise="gaussian", ordering="fixed", variant="corrected")
_PNSGD_COUPLED = {p: ("lr", "smoothness", "strong_convexity", "index", "steps", "noise_scale", "diameter",
                      "max_grad_norm", "eps", "delta")
                  for p in ("lr", "smoothness", "strong_convexity", "index", "steps", "noise", "ordering", "variant")}
_RDP_PNSGD = dict(noise_scale=1.0, max_grad_norm=1.0, lr=0.1, steps=10.0, index=3.0, smoothness=2.0,
                  strong_convexity=0.5)
_SCHED = dict(eps=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, steps=100.0, c1=10.0, c2=2.0, smoothness=2.0,
              strong_convexity=0.5)
_SCHED_COUPLED = {p: ("lr", "smoothness", "strong_convexity", "steps", "c1", "c2", "eps", "index", "decay")
                  for p in ("lr", "smoothness", "strong_convexity", "steps", "c1", "c2", "index", "decay", "eps")}
_ONLINE = dict(eps=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, index=3.0, c1=10.0, c2=2.0, decay=1.5,
               smoothness=2.0, strong_convexity=0.5)
_S = np.array([[0.5, 0.25], [0.5, 0.75], [1.0, 0.5]])


def _setup_epsilon(name: str) -> Callable[..., Any]:
    def f(**kw: Any) -> Any:
        return getattr(_pabi(), name)(**kw).epsilon(1e-3)

    f.__name__ = name
    return f


def _bounds_best(**kw: Any) -> Any:
    pabi = _pabi()
    recs = pabi.bounds(pabi.DPSGD(sample_rate=0.1, noise_multiplier=1.0, steps=10, grid_step=0.01), **kw)
    return recs[0].epsilon


def _f(name: str, resolve: Resolve = plain) -> Callable[..., Any]:
    return on(_pabi, name, resolve)


def table() -> dict[str, Entry]:
    """name -> (callable, valid default keyword arguments, kinds, coupled): see the module doc."""
    T: dict[str, Entry] = {}

    def add(name: str, defaults: dict[str, Any], kinds: dict[str, str] | None = None,
            coupled: dict[str, tuple[str, ...]] | None = None, fn: Callable[..., Any] | None = None) -> None:
        T[name] = (fn or _f(name), defaults, kinds or {}, coupled or {})

    add("gaussian_tail", dict(x=1.0, log=False), {"log": "option"})
    for f in ("lambertw", "wright_omega"):
        add(f, dict(x=1.0))
    for f in ("theta", "theta_complement"):
        add(f, dict(eps=1.0, shift=1.0, log=False), {"log": "option"})
    for f in ("laplace_theta", "laplace_theta_complement"):
        add(f, dict(eps=1.0, shift=1.0))
    add("gdp_delta", dict(eps=1.0, mu=1.0))
    add("set_num_threads", dict(threads=2), fn=_set_num_threads)
    add("hockey_stick_divergence", dict(p_mass=np.array([0.5, 0.25, 0.25]), q_mass=np.array([0.25, 0.25, 0.5]),
                                        eps=1.0), {"p_mass": "array", "q_mass": "array"})
    add("contraction_coefficient", dict(kernel=np.array([[0.9, 0.1], [0.1, 0.9]]), eps=0.5), {"kernel": "array"})
    opt = {"noise": "option", "ordering": "option", "variant": "option"}
    add("pnsgd_delta", dict(eps=1.0, **_PNSGD, **_PNSGD_OPT), opt, _PNSGD_COUPLED)
    add("pnsgd_delta#log", dict(eps=1.0, **_PNSGD, **_PNSGD_OPT, log=True), dict(opt, log="option"),
        _PNSGD_COUPLED, fn=_f("pnsgd_delta"))
    add("pnsgd_epsilon", dict(delta=1e-3, **_PNSGD, **_PNSGD_OPT), opt, _PNSGD_COUPLED)
    add("pnsgd_calibrate_noise_scale", dict(eps=1.0, delta=1e-3, **{k: v for k, v in _PNSGD.items() if k != "noise_scale"},
                                      **_PNSGD_OPT), opt, _PNSGD_COUPLED)
    add("pnsgd_factors", dict(eps=1.0, noise="gaussian", **{k: v for k, v in _PNSGD.items() if k not in ("steps", "index")}),
        {"noise": "option"}, _PNSGD_COUPLED)
    for f, first in (("pnsgd_rdp_delta", dict(eps=1.0)), ("pnsgd_rdp_epsilon", dict(delta=1e-3)),
                     ("pnsgd_rdp_slope", {})):
        add(f, dict(**first, **_RDP_PNSGD), None, _PNSGD_COUPLED)
    add("pnsgd_rdp_delta#log", dict(eps=1.0, **_RDP_PNSGD, log=True), {"log": "option"}, _PNSGD_COUPLED,
        fn=_f("pnsgd_rdp_delta"))
    step = dict(noise_scale=np.array([1.0, 1.5]), max_grad_norm=1.0, lr=np.array([0.5, 0.2]), diameter=1.0,
                run_lengths=np.array([10.0, 20.0]), smoothness=2.0, strong_convexity=0.5, noise="gaussian",
                ordering="random_stop", index=12.0)
    step_k = {"noise_scale": "array", "lr": "array", "run_lengths": "array", "noise": "option", "ordering": "option"}
    step_c = {p: ("lr", "smoothness", "strong_convexity", "index", "run_lengths", "noise_scale", "max_grad_norm",
                  "diameter", "eps", "delta") for p in ("lr", "smoothness", "strong_convexity", "index", "run_lengths",
                                                       "noise_scale", "max_grad_norm", "diameter", "ordering")}
    add("pnsgd_stepwise_delta", dict(eps=1.0, **step, log=False), dict(step_k, log="option"), step_c)
    add("pnsgd_stepwise_epsilon", dict(delta=1e-3, **step), step_k, step_c)
    noise_kw = {k: _SCHED[k] for k in ("steps", "c1", "c2", "lr", "diameter", "smoothness", "strong_convexity")}
    add("laplace_schedule_noise_scale", noise_kw, None, _SCHED_COUPLED)
    add("gaussian_schedule_noise_scale", noise_kw, None, _SCHED_COUPLED)
    add("laplace_schedule_delta", dict(_SCHED), None, _SCHED_COUPLED)
    add("gaussian_schedule_delta", dict(_SCHED), None, _SCHED_COUPLED)
    _sched_inv = {k: v for k, v in _SCHED.items() if k != "eps"}
    _inv_coupled = {p: c + ("delta",) for p, c in _SCHED_COUPLED.items()} | {"delta": _SCHED_COUPLED["eps"]}
    for f in ("laplace_schedule_epsilon", "gaussian_schedule_epsilon"):
        add(f, dict(delta=1e-3, **_sched_inv), None, _inv_coupled)
    add("laplace_schedule_delta_limit", dict(eps=1.0, c1=10.0))
    add("gaussian_schedule_delta_limit", dict(eps=1.0, c1=10.0))
    add("schedule_calibrate_c1", dict(eps=1.0, delta=1e-3, noise="laplace"), {"noise": "option"})
    add("online_delta", dict(eps=1.0, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=np.array([2.0, 2.0, 2.0]),
                             index=2, noise="gaussian", smoothness=2.0, strong_convexity=0.5, log=False),
        {"noise_scale": "array", "noise": "option", "log": "option"}, _SCHED_COUPLED | {"noise_scale": ("index",)})
    on_noise = dict(index=3.0, c1=10.0, c2=2.0, decay=1.5, lr=0.1, diameter=1.0, smoothness=2.0,
                    strong_convexity=0.5)
    add("online_epsilon", dict(delta=1e-3, max_grad_norm=1.0, lr=0.1, diameter=1.0, noise_scale=np.array([2.0, 2.0, 2.0]),
                               index=2, noise="gaussian", smoothness=2.0, strong_convexity=0.5),
        {"noise_scale": "array", "noise": "option"}, _inv_coupled | {"noise_scale": ("index",)})
    for kind in ("laplace", "gaussian"):
        add(f"online_{kind}_epsilon", {("delta" if k == "eps" else k): (1e-3 if k == "eps" else v)
                                       for k, v in dict(_ONLINE, steps=50.0).items()}, None, _inv_coupled)
    add("online_laplace_noise_scale", on_noise, None, _SCHED_COUPLED)
    add("online_gaussian_noise_scale", on_noise, None, _SCHED_COUPLED)
    for kind in ("laplace", "gaussian"):
        add(f"online_{kind}_delta", dict(_ONLINE, steps=50.0, log=False), {"log": "option"}, _SCHED_COUPLED)
        for suffix in ("delta_limit", "delta_limit_upper", "delta_limit_lower"):
            add(f"online_{kind}_{suffix}", dict(_ONLINE, log=False), {"log": "option"}, _SCHED_COUPLED)
        add(f"online_{kind}_delta_limit_closed_upper", dict(_ONLINE, variant="corrected", log=False),
            {"log": "option", "variant": "option"}, _SCHED_COUPLED)
    # --- rdp
    frac = {"fractional": "option"}
    add("sampled_gaussian_rdp", dict(order=8.0, sample_rate=0.01, noise_multiplier=1.0, fractional="exact"), frac)
    add("sampled_gaussian_rdp_per_instance", dict(order=8.0, sample_rate=0.01, sensitivity=0.5, noise_scale=1.0,
                                                  fractional="exact"), frac)
    add("dpsgd_per_instance_rdp", dict(order=8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=_S,
                                       holder_exponent=9.0, variant="corrected"),
        {"sensitivities": "array", "variant": "option"},
        {"holder_exponent": ("order",), "order": ("holder_exponent",)})
    add("dpsgd_per_instance_rdp#conf", dict(order=8.0, sample_rate=0.01, noise_scale=1.0, sensitivities=_S,
                                            failure_prob=0.05, max_sensitivity=1.0),
        {"sensitivities": "array"}, {"max_sensitivity": ("sensitivities",), "sensitivities": ("max_sensitivity",)},
        fn=_f("dpsgd_per_instance_rdp"))
    add("holder_orders", dict(order=2.0, holder_exponent=2.0, steps=3, variant="corrected"), {"variant": "option"})
    add("holder_composition_bound", dict(order=2.0, holder_exponent=2.0,
                                         divergences=np.array([[0.5, 0.25], [0.5, 0.5]]),
                                         weights=np.array([[0.5, 0.5], [0.25, 0.75]]), variant="corrected"),
        {"divergences": "array", "weights": "array", "variant": "option"},
        {"weights": ("divergences",), "divergences": ("weights",)})
    add("holder_min_exponent", dict(order=8.0, steps=10.0, cap_factor=2.0))
    add("hoeffding_sample_size", dict(order=8.0, rdp=1.0, rdp_bound=2.0, tolerance=0.1, failure_prob=0.05,
                                      variant="corrected", log=False), {"variant": "option", "log": "option"})
    curve = dict(orders=np.array([2.0, 4.0, 8.0]), rdp=np.array([0.5, 1.0, 2.0]))
    add("rdp_to_dp_epsilon", dict(curve, delta=1e-5, conversion="tight"),
        {"orders": "array", "rdp": "array", "conversion": "option"}, {"orders": ("rdp",), "rdp": ("orders",)})
    add("rdp_to_dp_delta", dict(curve, eps=1.0, conversion="tight"),
        {"orders": "array", "rdp": "array", "conversion": "option"}, {"orders": ("rdp",), "rdp": ("orders",)})
    add("rdp_compose", dict(rdp=np.array([[0.1, 0.2], [0.3, 0.4]])), {"rdp": "array"})
    add("profile_to_rdp", dict(order=2.0, eps=_GRID, delta=_grid_delta()),
        {"eps": "array", "delta": "array"}, {"eps": ("delta",), "delta": ("eps",)})
    add("gaussian_dp_constant", dict(delta=1e-5, noise_scale=1.0))
    add("gaussian_mechanism_epsilon", dict(delta=1e-5, noise_scale=10.0, sensitivity=1.0, allow_invalid=False),
        {"allow_invalid": "option"}, {p: ("eps",) for p in ("delta", "noise_scale", "sensitivity")})
    add("amplify_by_sampling", dict(eps=1.0, delta=1e-5, sample_rate=0.01))
    add("lp_per_instance_epsilon_delta", dict(delta=1e-5, delta_prime=1e-6, sample_rate=0.01, lp_exponent=100.0,
                                              noise_scale=10.0, sensitivities=np.array([0.1, 0.5]),
                                              allow_invalid=False),
        {"sensitivities": "array", "allow_invalid": "option"},
        {p: ("C_{delta,sigma}",) for p in ("delta", "noise_scale", "sensitivities", "lp_exponent", "sample_rate",
                                           "delta_prime")})
    add("general_update_rdp", dict(order=3, noise_scale=1.0, updates_second=np.array([[0.0]]),
                                   updates_first=np.array([[[[1.0], [1.0], [1.0]]]])),
        {"updates_second": "array", "updates_first": "array"},
        {"updates_second": ("updates_first",), "updates_first": ("updates_second", "order"),
         "order": ("updates_first",)})
    add("weak_triangle_bound", dict(order=2.0, holder_exponent=2.0, divergence_pq=0.1, divergence_qr=0.2))
    add("unlearning_keep", dict(order=1.5, threshold=0.1, divergence_previous=0.0, divergence_step=0.05,
                                variant="corrected"), {"variant": "option"})
    add("shifted_drift_bound", dict(order=2.0, noise_scale=1.0, drift=1.0, steps=10.0, batches_per_epoch=5.0,
                                    map_difference=1.0, variant="corrected"), {"variant": "option"})
    add("shift_weight", dict(steps=4.0, step_lipschitz=1.5))
    add("shift_weight#kappa", dict(steps=4.0, kappa=0.5), fn=_f("shift_weight"))
    add("cyclic_shift_weight_sum", dict(steps=10.0, batches_per_epoch=4.0, step_lipschitz=1.5))
    add("clipped_step_kappa", dict(lr=0.1, weak_convexity=1.0, smoothness=2.0, contraction="triangle"),
        {"contraction": "option"})
    add("last_iterate_rdp_general", dict(order=2.0, lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=100.0))
    add("last_iterate_rdp_general#exact", dict(order=2.0, lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=100.0,
                                               batch_size=10.0, batches_per_epoch=10.0, index=3.0), None,
        {"index": ("batches_per_epoch",), "batches_per_epoch": ("index",)}, fn=_f("last_iterate_rdp_general"))
    lm = {p: ("lr", "weak_convexity", "smoothness") for p in ("lr", "weak_convexity", "smoothness")}
    add("last_iterate_rdp_bounded", dict(order=2.0, lr=0.1, max_grad_norm=1.0, batch_size=10.0, noise_scale=1.0,
                                         diameter=1.0, weak_convexity=0.5, smoothness=1.0, contraction="triangle"),
        {"contraction": "option"}, lm)
    add("last_iterate_rdp_cyclic", dict(order=2.0, lr=0.1, max_grad_norm=1.0, batch_size=10.0, noise_scale=1.0,
                                        steps=20.0, batches_per_epoch=5.0, weak_convexity=0.5, smoothness=1.0,
                                        index=2.0, variant="corrected", contraction="triangle"),
        {"variant": "option", "contraction": "option"},
        lm | {"index": ("batches_per_epoch",), "batches_per_epoch": ("index",)})
    add("shifted_cycle_bound", dict(order=2.0, noise_scale=1.0, steps=10.0, batches_per_epoch=5.0,
                                    map_difference=1.0, initial_distance=0.5, step_lipschitz=1.5))
    add("optimal_shifts", dict(steps=5, initial_distance=0.5, map_difference=1.0, step_lipschitz=1.5))
    add("optimal_shifts#kappa", dict(steps=5, initial_distance=0.5, map_difference=1.0, kappa=0.5),
        fn=_f("optimal_shifts"))
    add("cyclic_calibrate", dict(order=8.0, rdp=1.0, weak_convexity=0.5, smoothness=2.0, max_grad_norm=1.0,
                                 batch_size=10.0, epochs=5.0, variant="corrected"), {"variant": "option"})
    add("shift_weight_min_steps", dict(slack=2.0, step_lipschitz=2.0))
    add("last_iterate_rdp_small_step", dict(order=2.0, lr=0.1, max_grad_norm=1.0, batch_size=1.0, noise_scale=1.0,
                                            batches_per_epoch=4.0, weak_convexity=0.5, smoothness=1.0,
                                            contraction="triangle"), {"contraction": "option"}, lm)
    _gd = ("lr", "strong_convexity", "smoothness")
    add("gd_contraction", dict(lr=0.5, strong_convexity=1.0, smoothness=3.0), None, {p: _gd for p in _gd})
    _sme = _gd + ("batches_per_epoch", "batch_index")
    add("sensitivity_multi_epoch", dict(lr=0.5, strong_convexity=1.0, smoothness=1.0, max_grad_norm=1.0,
                                        batch_size=1.0, batches_per_epoch=4.0, batch_index=2.0, epochs=3.0), None,
        {p: _sme for p in _sme})
    add("averaged_rdp", dict(order=2.0, noise_scale=1.0, sensitivities=np.array([0.0, 1.0])),
        {"sensitivities": "array"})
    add("mixture_rdp_bound", dict(order=2.0, weights=np.array([0.5, 0.5]), rdp=np.array([0.0, 1.0])),
        {"weights": "array", "rdp": "array"}, {"weights": ("rdp",), "rdp": ("weights",)})
    add("gaussian_mechanism_rdp", dict(order=2.0, sensitivity=1.0, noise_scale=1.0))
    # --- composition
    add("tradeoff_eps_delta", dict(type1_error=0.1, eps=1.0, delta=1e-3))
    add("tradeoff_from_profile", dict(type1_error=0.1, eps=_GRID, delta=_grid_delta()),
        {"eps": "array", "delta": "array"}, {"eps": ("delta",), "delta": ("eps",)})
    add("approx_dp_composition_delta", dict(eps0=0.5, delta0=1e-4, count=10.0, eps=2.0))
    add("approx_dp_composition_epsilon", dict(eps0=0.5, delta0=1e-4, count=10.0, delta=0.1))
    add("gdp_epsilon", dict(delta=1e-5, mu=1.0))
    add("gdp_mu", dict(eps=1.0, delta=1e-3))
    add("gdp_compose", dict(mu=np.array([0.3, 0.4])), {"mu": "array"})
    add("gdp_mu_dominating", dict(eps=_GRID, delta=_grid_delta()), {"eps": "array", "delta": "array"},
        {"eps": ("delta",), "delta": ("eps",)})
    add("gdp_dominating_pair", dict(eps=_GRID, log_delta=np.log(_grid_delta()[:-1]).tolist() + [-800.0]),
        {"eps": "array", "log_delta": "array"}, {"eps": ("log_delta", "delta"), "log_delta": ("eps", "delta")})
    _g = ("grid_step", "noise_scale", "noise_multiplier", "sensitivity", "sample_rate")
    grid = {p: _g for p in _g}
    add("PrivacyLossDistribution.gaussian", dict(noise_scale=1.0, sensitivity=1.0, grid_step=0.01),
        fn=_call_pld("gaussian"), coupled=grid)
    add("PrivacyLossDistribution.subsampled_gaussian", dict(sample_rate=0.1, noise_multiplier=1.0,
                                                            direction="remove", grid_step=0.01),
        {"direction": "option"}, grid, fn=_call_pld("subsampled_gaussian"))
    add("PrivacyLossDistribution.laplace", dict(noise_scale=1.0, sensitivity=1.0, grid_step=0.01),
        fn=_call_pld("laplace"),
        coupled={"noise_scale": ("sensitivity", "profile"), "sensitivity": ("noise_scale", "profile")})
    add("PrivacyLossDistribution.from_eps_delta", dict(eps0=1.0, delta0=1e-3, grid_step=0.01),
        fn=_call_pld("from_eps_delta"))
    add("PrivacyLossDistribution.from_profile", dict(profile=_grid_delta(), grid_step=0.1, tail_mass=1e-18),
        {"profile": "array"}, {"grid_step": ("profile",)}, fn=_call_pld("from_profile"))
    add("PrivacyLossDistribution.from_profile#callable", dict(profile=_profile, grid_step=0.1, eps_max=20.0,
                                                              tail_mass=1e-18),
        {"profile": "skip"}, {"grid_step": ("profile", "eps_max"), "eps_max": ("profile", "grid_step")},
        fn=_call_pld("from_profile"))
    add("PrivacyLossDistribution.compose", dict(count=3, tail_mass=1e-15), fn=_pld_compose)
    add("ComposedPLD.delta", dict(eps=1.0), fn=_composed_method("delta"))
    add("ComposedPLD.epsilon", dict(delta=1e-3), fn=_composed_method("epsilon"))
    add("compose_plds", dict(count=3, tail_mass=1e-15), fn=_compose_plds)
    _dp = ("sample_rate", "noise_multiplier", "steps", "grid_step")
    add("dpsgd_epsilon", dict(delta=1e-5, sample_rate=0.1, noise_multiplier=1.0, steps=10, grid_step=0.01), None,
        {p: _dp for p in _dp})
    add("dpsgd_delta", dict(eps=1.0, sample_rate=0.1, noise_multiplier=1.0, steps=10, grid_step=0.01), None,
        {p: _dp for p in _dp})
    _rel = {"neighboring": "option", "sampling": "option"}
    for how, nb, sa in (("replace_one", "replace_one", "poisson"),
                        ("without_replacement", "replace_one", "without_replacement")):
        add(f"dpsgd_epsilon#{how}", dict(delta=1e-5, sample_rate=0.1, noise_multiplier=1.0, steps=10, grid_step=0.01,
                                         neighboring=nb, sampling=sa), _rel, {p: _dp for p in _dp},
            fn=_f("dpsgd_epsilon"))
        add(f"dpsgd_delta#{how}", dict(eps=1.0, sample_rate=0.1, noise_multiplier=1.0, steps=10, grid_step=0.01,
                                       neighboring=nb, sampling=sa), _rel, {p: _dp for p in _dp},
            fn=_f("dpsgd_delta"))
    add("PrivacyLossDistribution.replace_one_gaussian", dict(sample_rate=0.1, noise_multiplier=1.0, grid_step=0.01),
        None, grid, fn=_call_pld("replace_one_gaussian"))
    _cal = ("eps", "delta", "sample_rate", "steps", "grid_step", "rtol")
    add("dpsgd_calibrate_noise_multiplier", dict(eps=2.0, delta=1e-5, sample_rate=0.1, steps=10, grid_step=0.01,
                                                 rtol=1e-2), None, {p: _cal + ("noise_multiplier",) for p in _cal})
    add("multi_epoch_epsilon", dict(delta=1e-3, profile=_profile, epochs=2, grid_step=0.05, eps_max=20.0,
                                    orders=np.array([2.0, 4.0]), log_profile=None),
        {"profile": "skip", "log_profile": "skip", "orders": "array"})
    # --- training setups (validated at construction; the matrix asks each for eps at 1e-3) and pabi.bounds
    _pn_setup = dict(records=10, lr=0.5, noise_scale=1.0, max_grad_norm=1.0, diameter=1.0, smoothness=2.0,
                     strong_convexity=0.5, convex=True, weak_convexity=0.0, noise="gaussian", ordering="shuffled",
                     index=None, epochs=1, dimension=None, neighboring="replace_one")
    _pn_c = tuple(k for k in _pn_setup if k not in ("noise", "ordering", "neighboring", "convex"))
    add("PNSGD", _pn_setup, {"noise": "option", "ordering": "option", "neighboring": "option", "convex": "option"},
        {p: _pn_c for p in _pn_c}, fn=_setup_epsilon("PNSGD"))
    _dp_setup = dict(sample_rate=0.1, noise_multiplier=1.0, steps=10, neighboring="add_remove", grid_step=0.01)
    add("DPSGD", _dp_setup, {"neighboring": "option"}, {p: _dp for p in _dp}, fn=_setup_epsilon("DPSGD"))
    add("DPSGD#without_replacement", dict(_dp_setup, neighboring="replace_one", sampling="without_replacement"),
        {"neighboring": "option", "sampling": "option"}, {p: _dp for p in _dp}, fn=_setup_epsilon("DPSGD"))
    _cy_setup = dict(records=100, batch_size=10, epochs=2, lr=0.1, max_grad_norm=1.0, noise_multiplier=1.0,
                     ordering="cyclic", weak_convexity=0.1, smoothness=1.0, diameter=1.0, clipping_inactive=False,
                     neighboring="replace_one")
    _cy_c = ("records", "batch_size", "epochs", "lr", "max_grad_norm", "noise_multiplier", "weak_convexity",
             "smoothness", "diameter")
    add("CyclicDPSGD", _cy_setup, {"ordering": "option", "neighboring": "option", "clipping_inactive": "option"},
        {p: _cy_c for p in _cy_c}, fn=_setup_epsilon("CyclicDPSGD"))
    _sc_setup = dict(steps=100.0, lr=0.1, max_grad_norm=1.0, diameter=1.0, c1=10.0, c2=2.0, noise="gaussian",
                     smoothness=2.0, strong_convexity=0.5, neighboring="replace_one")
    add("ScheduledPNSGD", _sc_setup, {"noise": "option", "neighboring": "option"}, _SCHED_COUPLED,
        fn=_setup_epsilon("ScheduledPNSGD"))
    # the issue-16 setups (validated at construction; each asked for eps at 1e-3)
    _sw_setup = dict(noise_scale=np.array([1.0, 1.5]), max_grad_norm=1.0, lr=np.array([0.5, 0.2]), diameter=1.0,
                     noise_factor=1.0, run_lengths=np.array([10.0, 20.0]), ordering="random_stop", index=12.0,
                     smoothness=2.0, strong_convexity=0.5, noise="gaussian", neighboring="replace_one")
    _sw_c = ("lr", "smoothness", "strong_convexity", "index", "run_lengths", "noise_scale", "max_grad_norm", "diameter",
             "noise_factor")
    add("StepwisePNSGD", _sw_setup, {"noise_scale": "array", "lr": "array", "run_lengths": "array",
                                     "noise": "option", "ordering": "option", "neighboring": "option"},
        {p: _sw_c for p in _sw_c + ("ordering",)}, fn=_setup_epsilon("StepwisePNSGD"))
    _on_setup = dict(index=3, lr=0.1, max_grad_norm=1.0, diameter=1.0, c1=10.0, c2=2.0, decay=1.5, steps=50.0,
                     noise="gaussian", smoothness=2.0, strong_convexity=0.5, neighboring="replace_one")
    add("OnlinePNSGD", _on_setup, {"noise": "option", "neighboring": "option"},
        {p: _SCHED_COUPLED["lr"] + ("max_grad_norm", "diameter") for p in _on_setup},
        fn=_setup_epsilon("OnlinePNSGD"))
    _li_setup = dict(theorem="cyclic", lr=0.1, max_grad_norm=1.0, noise_scale=1.0, steps=20, batch_size=5,
                     batches_per_epoch=10, index=None, diameter=None, weak_convexity=0.1, smoothness=1.0,
                     contraction="triangle", neighboring="replace_one")
    _li_c = ("lr", "steps", "batch_size", "batches_per_epoch", "weak_convexity", "smoothness", "noise_scale",
             "max_grad_norm")
    add("LastIterateSGD", _li_setup, {"theorem": "option", "contraction": "option", "neighboring": "option"},
        {p: _li_c for p in _li_c}, fn=_setup_epsilon("LastIterateSGD"))
    _erm_setup = dict(lr=0.5, strong_convexity=1.0, smoothness=2.0, max_grad_norm=1.0, batch_size=10,
                      batches_per_epoch=10, noise_scale=1.0, epochs=3, batch_order="random", batch_index=None,
                      neighboring="replace_one")
    _erm_c = ("lr", "strong_convexity", "smoothness")
    add("ERMGradientDescent", _erm_setup, {"batch_order": "option", "neighboring": "option"},
        {p: _erm_c for p in _erm_c}, fn=_setup_epsilon("ERMGradientDescent"))
    add("bounds", dict(delta=1e-3), fn=_bounds_best)
    # --- sweep and adapters
    add("sweep", dict(eps=np.array([0.5, 1.0]), shift=np.array([1.0]), chunk_size=1), {"eps": "array", "shift": "array"},
        fn=_sweep)
    add("grid_size", dict(eps=np.array([0.5, 1.0]), r=np.array([1.0])), {"eps": "array", "r": "array"})
    acc_opt = {"noise": "option", "ordering": "option"}
    add("PNSGDAccountant", dict(_ACC_KW, noise="gaussian", ordering="shuffled", smoothness=2.0, strong_convexity=0.5,
                                eps_max=8.0), acc_opt, _PNSGD_COUPLED, fn=_accountant)
    add("PNSGDAccountant#fixed", dict(_ACC_KW, ordering="fixed", index=3), acc_opt, _PNSGD_COUPLED, fn=_accountant)
    add("PNSGDAccountant.record_steps", dict(count=2), fn=_acc_method("record_steps"))
    add("PNSGDAccountant.record_epochs", dict(count=1), fn=_acc_method("record_epochs"))
    add("PNSGDAccountant.epsilon", dict(delta=1e-3), fn=_acc_method("epsilon"))
    add("PNSGDAccountant.delta", dict(eps=2.0), fn=_acc_method("delta"))
    add("PNSGDAccountant.epoch_profile", dict(eps=1.0), fn=_acc_method("epoch_profile"))
    add("pnsgd_zcdp_rho", dict(_RDP_PNSGD), None, _PNSGD_COUPLED, fn=_adapter("pnsgd_zcdp_rho"))
    add("pnsgd_zcdp_event", dict(_RDP_PNSGD), None, _PNSGD_COUPLED, fn=_adapter("pnsgd_zcdp_event"))
    # its h is checked by pld_from_profile as grid_step (the name h takes in the PNSGD family's rename)
    add("pnsgd_epoch_pld", dict(_ACC_KW, eps_max=8.0), None, dict(_PNSGD_COUPLED, h=("grid_step",)),
        fn=_adapter("pnsgd_epoch_pld"))
    add("pld_from_profile", dict(profile=_grid_delta(), grid_step=0.1, tail_mass=1e-18), {"profile": "array"},
        {"grid_step": ("profile",)}, fn=_adapter("pld_from_profile"))
    add("mixture_hockey_stick_divergence",
        dict(p_weights=np.array([0.9, 0.1]), p_means=np.array([0.0, 1.0]), p_stds=np.array([1.0, 1.0]),
             q_weights=np.array([0.9, 0.1]), q_means=np.array([0.0, -1.0]), q_stds=np.array([1.0, 1.0]),
             eps=1.0, bracket=False),
        {"p_weights": "array", "p_means": "array", "p_stds": "array", "q_weights": "array", "q_means": "array",
         "q_stds": "array", "bracket": "skip"},
        {"p_means": ("p_weights",), "p_stds": ("p_weights",), "q_means": ("q_weights",), "q_stds": ("q_weights",),
         "p_weights": ("p_means", "p_stds"), "q_weights": ("q_means", "q_stds")})
    return T


#: public callables deliberately not in the table (no numeric parameter)
NOT_NUMERIC = {"DomainError", "InternalError", "__version__", "get_num_threads", "simd_level", "DEFAULT_ORDERS",
               "PrivacyLossDistribution", "ComposedPLD", "Bracket", "ErrorBudget", "MultiEpochEpsilon",
               "PNSGDFactors"}
# named results of the RDP family (typing.NamedTuple classes, not computations)
NOT_NUMERIC |= {"RdpWithTerms", "EpsilonAtOrder", "DeltaAtOrder", "AmplifiedGuarantee", "PerInstanceGuarantee"}
NOT_NUMERIC |= {"CyclicCalibration", "GdContraction", "Bound", "Assumption"}  # named results (of cyclic_calibrate, gd_contraction)
