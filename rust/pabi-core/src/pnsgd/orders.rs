//! The formula of each order from the factors, in value and in log form, for one element or a
//! block of lanes: fixed order δ_i = A·B^{n−i} (Sordello–Bu–Dong Thm 1 = Asoodeh–Diaz–Calmon
//! Thms 3, 4), shuffled A·G(1 − B, n) (Sordello–Bu–Dong Thm 2, eq. (6)), random stop refined
//! A·(m/n)·G(1 − B, m) (Sordello–Bu–Dong §1) and as published A/(n(1 − B)) (Asoodeh–Diaz–Calmon
//! eq. (16)). See `docs/derivations/pnsgd.md`.

use crate::num::{geometric_average, up, TINY};
use crate::vmath;

use super::ab_factors::{Fac, Facs};
use super::params::Order;
use super::prepared::Elem;
use super::LOG_REL;

/// Fixed order, k = n − i: A·B^k (rounded up, ≤ A).
#[inline(always)]
fn value_fixed(a: f64, lb: f64, k: f64) -> f64 {
    // B^k = exp(k·ln B) with k·ln B = t + err exactly (fma residual): no rounding of the
    // exponent, whose absolute error would be a relative error of δ.
    let t = k * lb;
    let err = k.mul_add(lb, -t);
    let v = if t < -746.0 {
        TINY // exp underflows: up(0) without arithmetic on subnormals
    } else {
        up(a * vmath::exp(t) * (1.0 + err))
    };
    let v = v.min(a).min(1.0);
    if k == 0.0 {
        a
    } else if a == 0.0 || lb == f64::NEG_INFINITY {
        0.0 // A = 0 or B = 0 exactly
    } else {
        v
    }
}

/// Shuffled (m = n, scale = 1) and random stop (m = n − i + 1, scale = m/n): A·scale·G(u, m)
/// (rounded up, ≤ A).
#[inline(always)]
fn value_geometric(a: f64, u: f64, m: f64, scale: f64) -> f64 {
    let v = up(a * scale * geometric_average(u, m)).min(a).min(1.0);
    if a == 0.0 {
        0.0
    } else {
        v
    }
}

/// Below this, A or u = 1 − B is formed in logarithms by the published random stop (A rounded
/// up to a subnormal or TINY, or u rounded down to 0, would make A/(n·u) vacuous: 1 where the
/// exact value is 2e-4, issue 13).
const PUBLISHED_LOG_BELOW: f64 = 1e-290;

/// ln of the published random stop, (value, scale): ln A − ln n − ln u, with ln u from the
/// factor's `lb` (ln(1 − B) rounded down, formed without u) where u is below
/// [`PUBLISHED_LOG_BELOW`]; `scale` bounds the magnitude of the terms (for [`LOG_REL`]).
#[inline(always)]
fn log_published(f: &Fac, n: f64) -> (f64, f64) {
    let ln_n = vmath::ln(n);
    let ln_u = if f.u < PUBLISHED_LOG_BELOW {
        f.lb
    } else {
        vmath::ln(f.u)
    };
    (f.la - ln_n - ln_u, f.la.abs() + ln_n + ln_u.abs())
}

/// Random stop as published (Asoodeh–Diaz–Calmon eq. (16), §IV-E): A/(n·u) clamped to 1; in
/// logarithms ([`log_published`]) where A or u is below [`PUBLISHED_LOG_BELOW`].
#[inline(always)]
fn value_published(f: &Fac, n: f64) -> f64 {
    let (a, u) = (f.a, f.u);
    if a == 0.0 {
        0.0
    } else if a < PUBLISHED_LOG_BELOW || u < PUBLISHED_LOG_BELOW {
        if f.lb == f64::NEG_INFINITY {
            return 1.0; // u = 0 exactly (B = 1)
        }
        let (v, scale) = log_published(f, n);
        let v = v + LOG_REL * scale;
        if v >= 0.0 {
            1.0
        } else if v < -745.0 {
            TINY // exp underflows: up(0) without arithmetic on subnormals
        } else {
            up(vmath::exp(v)).min(1.0)
        }
    } else {
        up(a / (n * u)).min(1.0)
    }
}

/// δ from the factors (value, upper bound, in [0, 1]).
#[inline(always)]
pub(super) fn finish_value(e: &Elem, f: &Fac) -> f64 {
    match e.order {
        Order::Fixed => value_fixed(f.a, f.lb, e.n - e.i),
        Order::Shuffled => value_geometric(f.a, f.u, e.n, 1.0),
        Order::RandomStop => {
            let m = e.n - e.i + 1.0;
            value_geometric(f.a, f.u, m, m / e.n)
        }
        Order::RandomStopAsPublished => value_published(f, e.n),
    }
}

/// ln δ from the factors (upper bound, ≤ 0, −∞ when δ = 0).
#[inline(always)]
pub(super) fn finish_log(e: &Elem, f: &Fac) -> f64 {
    if f.a == 0.0 {
        return f64::NEG_INFINITY;
    }
    let la = f.la;
    // (value, scale): scale bounds the magnitude of the summed terms.
    let (v, scale) = match e.order {
        Order::Fixed => {
            let k = e.n - e.i;
            if k == 0.0 {
                return la;
            }
            if f.lb == f64::NEG_INFINITY {
                return f64::NEG_INFINITY;
            }
            let t = k * f.lb;
            if t == f64::NEG_INFINITY {
                return -f64::MAX; // k·ln B overflows: an upper bound of ln δ
            }
            let err = k.mul_add(f.lb, -t);
            ((la + t) + err, la.abs() + t.abs())
        }
        Order::Shuffled => {
            let lg = vmath::ln(geometric_average(f.u, e.n));
            (la + lg, la.abs() + lg.abs() + 1.0)
        }
        Order::RandomStop => {
            let m = e.n - e.i + 1.0;
            let lg = vmath::ln((m / e.n) * geometric_average(f.u, m));
            (la + lg, la.abs() + lg.abs() + 1.0)
        }
        Order::RandomStopAsPublished => {
            if f.lb == f64::NEG_INFINITY {
                return 0.0; // u = 0 exactly (B = 1): the clamp at 1
            }
            log_published(f, e.n)
        }
    };
    if v == f64::NEG_INFINITY {
        return v;
    }
    let v = (v + LOG_REL * scale).min(0.0);
    if e.order == Order::RandomStopAsPublished {
        v
    } else {
        v.min(la) // every bound but eq. (16) is ≤ A exactly
    }
}

/// The value formula of `order` over the lanes of a block (one loop per order, vectorized).
#[inline(always)]
pub(super) fn finish_block_value(order: Order, f: &Facs, n: &[f64], ix: &[f64], o: &mut [f64]) {
    let nl = o.len();
    match order {
        Order::Fixed => {
            for t in 0..nl {
                o[t] = value_fixed(f.a[t], f.lb[t], n[t] - ix[t]);
            }
        }
        Order::Shuffled => {
            for t in 0..nl {
                o[t] = value_geometric(f.a[t], f.u[t], n[t], 1.0);
            }
        }
        Order::RandomStop => {
            for t in 0..nl {
                let m = n[t] - ix[t] + 1.0;
                o[t] = value_geometric(f.a[t], f.u[t], m, m / n[t]);
            }
        }
        Order::RandomStopAsPublished => {
            for t in 0..nl {
                o[t] = value_published(&f.get(t), n[t]);
            }
        }
    }
}
