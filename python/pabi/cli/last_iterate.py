"""``pabi last-iterate``: last-iterate Rényi DP of cyclic DP-SGD (Kong–Ribero)."""

from __future__ import annotations

import argparse
import math
from typing import Any, Callable, Optional

import numpy as np

from .._dpsgd import iterate_noise_std
from .common import add_json, emit, integer, number, numbers
from .config import CliError
from .formatting import table

DESCRIPTION = """\
Renyi DP of the LAST iterate of DP-SGD with clipping and Gaussian noise on the iterate,
X_t = prox(X_{t-1} - (lr/b) sum_{i in B_t} clip_C(grad f_i(X_{t-1})) + N(0, sigma^2 I)),
C = --max-grad-norm, sigma = --noise-scale, alpha = --order, batches of b records, ell = n/b
batches per epoch, T steps (Kong & Ribero, "Privacy of the last
iterate in cyclically-sampled DP-SGD on nonconvex composite losses"). Replace-one neighbours.
Each bound is printed only when its assumptions hold (otherwise the unmet condition):
  general     Thm 4.3: 8 alpha T (lr C/sigma)^2            any batch order, no curvature assumption
  bounded     Thm 4.4: alpha/(2 sigma^2)(L_lr d + 2 lr C/b)^2  domain of diameter d, lr <= 1/(2(m+M))
  cyclic      Thm 4.5 (correctly indexed, docs/errata.md#r-k3): 2 alpha (lr C/(b sigma))^2 Phi_L(T - t* + 1, ell),
              maximised over the first occurrence t* unless --index; cyclic order, lr <= 1/(2(m+M)), T >= ell
  small_step  Cor. C.3: 4 alpha (C/(b sigma))^2 (1 + theta_L(ell)); cyclic, lr <= min(1/sqrt(E), 1/(2(m+M)))
L_lr: Lipschitz constant of the clipped gradient step, --contraction triangle = 1 + lr max(m, M) (proven
with clipping, default) or as_published = eq. (12) (valid only when clipping is inactive,
docs/errata.md#r-k1). With --delta, eps = min over pabi.DEFAULT_ORDERS of the RDP -> DP conversion
(tight)."""

EPILOG = """\
Examples:
  pabi last-iterate --order 8 --lr 0.1 --max-grad-norm 1 --batch-size 10 --noise-scale 0.05 --steps 1000 \\
      --n 1000 --smoothness 1
  pabi last-iterate --delta 1e-5 --lr 0.1 --max-grad-norm 1 --batch-size 10 --noise-multiplier 1 --steps 1000 \\
      --n 1000 --smoothness 1 --weak-convexity 0.1 --diameter 2"""


def add_parser(sub: argparse._SubParsersAction, fmt_cls: Any) -> argparse.ArgumentParser:
    p = sub.add_parser("last-iterate", formatter_class=fmt_cls, description=DESCRIPTION, epilog=EPILOG,
                       help="last-iterate RDP of cyclic DP-SGD (Kong-Ribero)")
    g = p.add_argument_group("target (at least one)")
    g.add_argument("--order", type=numbers, help="Renyi order(s) alpha > 1: print the RDP bound")
    g.add_argument("--delta", type=numbers, help="target delta(s) in (0, 1): print eps (and the best order)")
    m = p.add_argument_group("training")
    m.add_argument("--lr", type=number, required=True, help="step size lambda > 0")
    m.add_argument("--max-grad-norm", type=number, required=True, help="clipping norm C > 0 of each gradient")
    m.add_argument("--batch-size", type=integer, default=1, help="records per batch b")
    noise = m.add_mutually_exclusive_group(required=True)
    noise.add_argument("--noise-scale", type=number, help="std sigma of the Gaussian noise added to the iterate")
    noise.add_argument("--noise-multiplier", type=number,
                       help="noise multiplier z of the gradient sum: noise scale sigma = lr z C / b")
    m.add_argument("--steps", type=integer, required=True, help="number of steps T")
    steps = m.add_mutually_exclusive_group(required=True)
    steps.add_argument("--n", type=integer, help="number of records (steps per pass ell = n / b; b must divide n)")
    steps.add_argument("--batches-per-epoch", type=integer, help="batches (steps) per pass ell")
    m.add_argument("--ordering", choices=("cyclic", "shuffled"), default="cyclic",
                   help="batch order: cyclic (fixed) or reshuffled; only 'general' and 'bounded' hold for shuffled")
    c = p.add_argument_group("loss assumptions")
    c.add_argument("--smoothness", type=number, help="upper curvature M >= 0 (smoothness); needed by all but 'general'")
    c.add_argument("--weak-convexity", type=number, default=0.0, help="lower curvature m >= 0 (0: convex)")
    c.add_argument("--diameter", type=number, help="diameter d of dom h (bounded domain, for 'bounded')")
    c.add_argument("--index", type=integer, help="first step containing the record (default: worst case)")
    c.add_argument("--contraction", choices=("triangle", "as_published"), default="triangle",
                   help="Lipschitz constant of the clipped step (see above)")
    add_json(p)
    return p


def _assume(text: str, ok: bool, detail: str = "") -> dict[str, Any]:
    return {"text": text, "satisfied": bool(ok), "detail": detail}


def last_iterate_bounds(
    *, lam: float, clip: float, b: int, sigma: float, T: int, ell: int, m: float,
    M: Optional[float], diameter: Optional[float], cyclic: bool, t_star: Optional[int] = None,
    model: str = "triangle", model_note: str = "",
) -> list[dict[str, Any]]:
    """The Kong–Ribero bounds with their assumptions: a list of dicts with ``id``, ``name``,
    ``source``, ``assumptions`` (each text/satisfied/detail) and ``rdp`` (α ↦ RDP, or None when
    an assumption fails)."""
    import pabi

    lam_max = math.inf if M is None or (m + M) == 0 else 1.0 / (2.0 * (m + M))
    has_M = M is not None
    step_ok = has_M and lam <= lam_max
    step_txt = "step size lr <= 1/(2(m + M))"
    step_detail = ("smoothness M not given" if not has_M else f"lr = {lam:g}, 1/(2(m+M)) = {lam_max:.6g}")
    Mv = 0.0 if M is None else float(M)
    E = T // ell if ell >= 1 else 0
    model_txt = ("L_lr = 1 + lr max(m, M) (proven with clipping)" if model == "triangle"
                 else "L_lr from eq. (12) (valid when clipping is inactive)") + model_note
    out = []

    out.append({
        "id": "last_iterate_general", "name": "last iterate, no curvature assumption",
        "source": "Kong-Ribero Thm 4.3",
        "assumptions": [_assume("clipped gradients (or every ||grad|| <= C)", True),
                        _assume("batches chosen independently of the data (any order)", True)],
        "rdp": lambda a: pabi.last_iterate_rdp_general(a, lr=lam, max_grad_norm=clip, noise_scale=sigma, steps=T),
    })
    ok_b = diameter is not None and step_ok
    out.append({
        "id": "last_iterate_bounded", "name": "last iterate, bounded domain",
        "source": "Kong-Ribero Thm 4.4",
        "assumptions": [_assume("bounded domain (diameter d)", diameter is not None,
                                "" if diameter is not None else "diameter not given"),
                        _assume("curvature bounds m (weak convexity), M (smoothness) known", has_M, step_detail),
                        _assume(step_txt, step_ok, step_detail),
                        _assume(model_txt, True)],
        "rdp": (lambda a: pabi.last_iterate_rdp_bounded(
            a, lr=lam, max_grad_norm=clip, batch_size=b, noise_scale=sigma, diameter=float(diameter or 0.0),
            weak_convexity=m, smoothness=Mv, contraction=model))
        if ok_b else None,
    })
    ok_c = step_ok and cyclic and T >= ell
    out.append({
        "id": "last_iterate_cyclic", "name": "last iterate, cyclic batches (corrected indexing)",
        "source": "Kong-Ribero Thm 4.5 / Prop. A.4, corrected indexing (docs/errata.md#r-k3)",
        "assumptions": [_assume("cyclic (fixed) batch order, b divides n", cyclic, "" if cyclic else "order is not cyclic"),
                        _assume(step_txt, step_ok, step_detail),
                        _assume("T >= ell (at least one full pass)", T >= ell, f"T = {T}, ell = {ell}"),
                        _assume(model_txt, True)],
        "rdp": (lambda a: pabi.last_iterate_rdp_cyclic(
            a, lr=lam, max_grad_norm=clip, batch_size=b, noise_scale=sigma, steps=T, batches_per_epoch=ell,
            weak_convexity=m, smoothness=Mv, index=t_star, contraction=model)) if ok_c else None,
    })
    cap = min(1.0 / math.sqrt(E), lam_max) if E >= 1 else 0.0
    ok_s = has_M and cyclic and T >= ell and lam <= cap
    out.append({
        "id": "last_iterate_small_step", "name": "last iterate, small step size",
        "source": "Kong-Ribero Cor. C.3",
        "assumptions": [_assume("cyclic (fixed) batch order, b divides n", cyclic, "" if cyclic else "order is not cyclic"),
                        _assume("T >= ell", T >= ell, f"T = {T}, ell = {ell}"),
                        _assume("lr <= min(1/sqrt(E), 1/(2(m + M))), E = floor(T/ell)", has_M and lam <= cap,
                                step_detail if not has_M else f"lr = {lam:g}, cap = {cap:.6g}"),
                        _assume(model_txt, True)],
        "rdp": (lambda a: pabi.last_iterate_rdp_small_step(
            a, lr=lam, max_grad_norm=clip, batch_size=b, noise_scale=sigma, batches_per_epoch=ell,
            weak_convexity=m, smoothness=Mv, contraction=model))
        if ok_s else None,
    })
    return out


def epsilon_from_rdp(rdp: Callable[[float], float], delta: float) -> tuple[float, float]:
    """(eps, order) = min over pabi.DEFAULT_ORDERS of the tight RDP -> DP conversion."""
    import pabi

    orders = pabi.DEFAULT_ORDERS
    curve = np.array([rdp(float(a)) for a in orders])
    return pabi.rdp_to_dp_epsilon(delta, orders=orders, rdp=curve)


def run(args: argparse.Namespace) -> int:
    if args.order is None and args.delta is None:
        raise CliError("give --order (RDP) and/or --delta (eps)")
    b = args.batch_size
    if args.n is not None:
        if b < 1 or args.n % b:
            raise CliError(f"--batch-size must divide --n (Kong-Ribero Alg. 1), got n = {args.n}, b = {b}")
        ell = args.n // b
    else:
        ell = args.batches_per_epoch
    # the iterate noise std lr·z·C/b rounded down by the core (a larger std gives a smaller bound)
    sigma = args.noise_scale if args.noise_scale is not None else float(iterate_noise_std(
        float(args.lr), float(args.noise_multiplier), float(args.max_grad_norm), float(b)))
    bounds = last_iterate_bounds(lam=args.lr, clip=args.max_grad_norm, b=b, sigma=sigma, T=args.steps, ell=ell,
                                 m=args.weak_convexity, M=args.smoothness, diameter=args.diameter,
                                 cyclic=args.ordering == "cyclic", t_star=args.index, model=args.contraction)
    rows, table_rows = [], []
    for bd in bounds:
        unmet = "; ".join(f"{a['text']} ({a['detail']})" if a["detail"] else a["text"]
                          for a in bd["assumptions"] if not a["satisfied"])
        rdp = [{"order": a, "rdp": bd["rdp"](a) if bd["rdp"] else None} for a in args.order or []]
        eps = []
        for d in args.delta or []:
            e, o = epsilon_from_rdp(bd["rdp"], d) if bd["rdp"] else (None, None)
            eps.append({"delta": d, "eps": e, "order": o})
        rows.append({"bound": bd["id"], "source": bd["source"], "valid": bd["rdp"] is not None, "unmet": unmet,
                     "rdp": rdp, "eps": eps})
        flat: dict[str, Any] = {"bound": bd["id"], "source": bd["source"], "unmet": unmet}
        for r in rdp:
            flat[f"rdp@{r['order']:g}"] = r["rdp"]
        for r in eps:
            flat[f"eps@{r['delta']:g}"], flat[f"order@{r['delta']:g}"] = r["eps"], r["order"]
        table_rows.append(flat)
    cols = [("bound", "bound"), ("source", "source")]
    cols += [(f"rdp@{a:g}", f"RDP (order={a:g})") for a in args.order or []]
    for d in args.delta or []:
        cols += [(f"eps@{d:g}", f"eps (delta={d:g})"), (f"order@{d:g}", "order")]
    cols.append(("unmet", "unmet assumption"))
    setup = dict(lr=args.lr, max_grad_norm=args.max_grad_norm, batch_size=b, noise_scale=sigma, steps=args.steps,
                 batches_per_epoch=ell, weak_convexity=args.weak_convexity, smoothness=args.smoothness,
                 diameter=args.diameter, ordering=args.ordering, contraction=args.contraction)
    head = ("Last iterate of DP-SGD: " + ", ".join(f"{k} = {v:g}" if isinstance(v, float) else f"{k} = {v}"
                                                    for k, v in setup.items() if v is not None))
    return emit(args, {"setup": setup, "rows": rows}, head + "\n\n" + table(table_rows, cols))
