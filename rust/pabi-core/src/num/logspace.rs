//! Log-space arithmetic: ln(e^a + e^b), ln Σ e^x, ln(1 − e^x), softplus ln(1 + e^y) and the
//! Neumaier-compensated sum they rest on. All to nearest (a few ulp); callers round the result
//! in the direction they need ([`super::round`]).
//!
//! Two families, kept apart because they differ in the last bits: the `vmath` forms (branch-free,
//! vectorizable kernels of [`super::vmath`]) used by the engine, the schedules and the PLDs, and
//! the `_std` forms on std's libm, used in the scalar loops of the RDP bounds. They are not
//! interchangeable without changing results by an ulp or so; each caller keeps the one it has.
//! A formula shared by both is written once on the [`Elementary`] functions and instantiated
//! for each family.

use super::vmath;

/// Neumaier's compensated accumulator (error ~ 2 ulp of the result, independent of the number
/// of terms, as long as no partial sum overflows).
#[derive(Clone, Copy, Default, Debug)]
pub struct Neumaier {
    /// The running (rounded) sum.
    pub s: f64,
    /// The accumulated rounding errors.
    pub c: f64,
}

impl Neumaier {
    /// Add one term.
    #[inline(always)]
    pub fn add(&mut self, x: f64) {
        let t = self.s + x;
        if self.s.abs() >= x.abs() {
            self.c += (self.s - t) + x;
        } else {
            self.c += (x - t) + self.s;
        }
        self.s = t;
    }

    /// s + c, as is: an overflowed partial sum gives NaN (±inf − ±inf in the compensation).
    /// Bit-identical to the former private accumulator `schedules::online::Acc::value`.
    #[inline(always)]
    pub fn value(&self) -> f64 {
        self.s + self.c
    }

    /// s + c, with an overflowed partial sum returned as ±inf instead of NaN (the value of
    /// [`neumaier_sum`]).
    #[inline(always)]
    pub fn sum(&self) -> f64 {
        if self.s.is_infinite() {
            return self.s;
        }
        self.s + self.c
    }
}

/// Neumaier-compensated sum of a sequence (error ~ 2 ulp of the result, independent of n); an
/// overflowing sum is ±inf.
pub fn neumaier_sum(xs: impl IntoIterator<Item = f64>) -> f64 {
    let mut acc = Neumaier::default();
    for x in xs {
        acc.add(x);
    }
    acc.sum()
}

/// The elementary functions a log-space formula is written on: [`Vmath`] (the `vmath`
/// kernels) or [`Std`] (std's libm). Each formula below is written once, on `E`; its two
/// public forms (`f` and `f_std`) are that formula on the two families.
pub trait Elementary {
    /// e^x.
    fn exp(x: f64) -> f64;
    /// e^x − 1.
    fn expm1(x: f64) -> f64;
    /// ln x.
    fn ln(x: f64) -> f64;
    /// ln(1 + x).
    fn ln_1p(x: f64) -> f64;
}

/// The `vmath` kernels (branch-free, vectorizable).
pub struct Vmath;

/// std's libm.
pub struct Std;

impl Elementary for Vmath {
    #[inline(always)]
    fn exp(x: f64) -> f64 {
        vmath::exp(x)
    }
    #[inline(always)]
    fn expm1(x: f64) -> f64 {
        vmath::expm1(x)
    }
    #[inline(always)]
    fn ln(x: f64) -> f64 {
        vmath::ln(x)
    }
    #[inline(always)]
    fn ln_1p(x: f64) -> f64 {
        vmath::log1p(x)
    }
}

impl Elementary for Std {
    #[inline(always)]
    fn exp(x: f64) -> f64 {
        f64::exp(x)
    }
    #[inline(always)]
    fn expm1(x: f64) -> f64 {
        f64::exp_m1(x)
    }
    #[inline(always)]
    fn ln(x: f64) -> f64 {
        f64::ln(x)
    }
    #[inline(always)]
    fn ln_1p(x: f64) -> f64 {
        f64::ln_1p(x)
    }
}

/// ln(e^a + e^b) without overflow, on `E`.
#[inline(always)]
pub fn log_add_exp_on<E: Elementary>(a: f64, b: f64) -> f64 {
    let m = a.max(b);
    if m.is_infinite() {
        // −∞: both terms are 0; +∞: inf − inf below would be NaN
        return m;
    }
    m + E::ln_1p(E::exp(-(a - b).abs()))
}

/// ln(e^a + e^b) without overflow (`vmath` kernels).
#[inline(always)]
pub fn log_add_exp(a: f64, b: f64) -> f64 {
    log_add_exp_on::<Vmath>(a, b)
}

/// e^x on std's libm, the same value, without its slow underflow path: below −746 the exact
/// e^x < 2^-1076 rounds to 0, which is returned directly (libm's exp reaches it through an
/// error-reporting branch that cost ~5% of the fractional-order RDP at large orders).
#[inline(always)]
pub fn exp_std_flush(x: f64) -> f64 {
    if x < -746.0 {
        0.0
    } else {
        f64::exp(x)
    }
}

/// ln(e^a + e^b) without overflow, on std's libm (the former private `rdp::log_add_exp`).
#[inline(always)]
pub fn log_add_exp_std(a: f64, b: f64) -> f64 {
    log_add_exp_on::<Std>(a, b)
}

/// ln Σ e^{x_i} without overflow (−inf for an empty slice).
pub fn log_sum_exp(xs: &[f64]) -> f64 {
    let m = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !m.is_finite() {
        return m;
    }
    m + vmath::ln(neumaier_sum(xs.iter().map(|&x| vmath::exp(x - m))))
}

/// ln(1 − e^{x}) for x ≤ 0, accurate near 0 and for very negative x (Mächler's rule), on `E`.
#[inline(always)]
pub fn log1mexp_on<E: Elementary>(x: f64) -> f64 {
    if x > -std::f64::consts::LN_2 {
        E::ln(-E::expm1(x))
    } else {
        E::ln_1p(-E::exp(x))
    }
}

/// [`log1mexp_on`] on the `vmath` kernels.
#[inline(always)]
pub fn log1mexp(x: f64) -> f64 {
    log1mexp_on::<Vmath>(x)
}

/// [`log1mexp_on`] on std's libm (the former private `rdp::log1mexp`).
#[inline(always)]
pub fn log1mexp_std(x: f64) -> f64 {
    log1mexp_on::<Std>(x)
}

/// softplus(y) = ln(1 + e^y) on std's libm, with branches (softplus(−∞) = 0): the former
/// `rdp::softplus`.
#[inline(always)]
pub fn softplus_std(y: f64) -> f64 {
    if y == f64::NEG_INFINITY {
        0.0
    } else if y > 0.0 {
        y + f64::ln_1p(f64::exp(-y))
    } else {
        f64::ln_1p(f64::exp(y))
    }
}

/// softplus(y) = max(y, 0) + log1p(e^{−|y|}), branch-free on the `vmath` kernels: the former
/// private `schedules::online::softplus`. (Differs from [`softplus_std`] in the last bits, and
/// at y = −∞ gives NaN-free 0 too, since e^{−inf} = 0.)
#[inline(always)]
pub fn softplus_vmath(y: f64) -> f64 {
    y.max(0.0) + vmath::log1p(vmath::exp(-y.abs()))
}

/// ln(e^x − 1) for x ≥ 0 (−inf at 0), on std's libm.
#[inline(always)]
pub fn log_expm1_std(x: f64) -> f64 {
    if x <= 0.0 {
        f64::NEG_INFINITY
    } else if x > std::f64::consts::LN_2 {
        x + f64::ln_1p(-f64::exp(-x))
    } else {
        f64::ln(f64::exp_m1(x))
    }
}

#[cfg(test)]
#[path = "logspace_tests.rs"]
mod tests;
