//! The compensated log-space sums of the per-step PNSGD bounds (`steps.rs`, `steps_blocks.rs`):
//! [`UpSum`] (a sum of logarithms rounded up, its TwoSum errors kept), [`LogSum`] (ln Σ e^x
//! rounded up) and the directed log-space helpers built on [`crate::num::round`].

use crate::dd::two_sum;
use crate::num::geometric_average;
use crate::num::round::{add_dn, add_up, ln_up, mul_up, up, U};
use crate::vmath;

/// A sum of logarithms (terms ≤ 0 or −∞) with an upward-certified value: each addition keeps its
/// exact rounding error (TwoSum) in `lo`; `lo` itself is summed with error ≤ n·u·Σ|e| (recursive
/// summation, Higham §4.2), which [`UpSum::upper`] adds. The error of the result is then ~2 ulp
/// of the sum and n·u² of the terms, whatever the number n of terms (a directed addition per
/// term would add up to n ulp).
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct UpSum {
    pub(super) hi: f64,
    lo: f64,
    /// Σ|e| (to nearest)
    mag: f64,
    n: f64,
    /// finite terms whose sum overflowed to −∞ (the sum is below −f64::MAX, not −∞)
    overflow: bool,
}

impl UpSum {
    #[inline(always)]
    pub(super) fn add(&mut self, x: f64) {
        if x == f64::NEG_INFINITY || self.hi == f64::NEG_INFINITY {
            // an exact −∞ term (a factor 0) makes the sum −∞, whatever overflowed before
            self.hi = f64::NEG_INFINITY;
            self.overflow = false;
            return;
        }
        if self.overflow {
            return;
        }
        let (s, e) = two_sum(self.hi, x);
        if s == f64::NEG_INFINITY {
            // two finite terms overflowed: the sum is finite and below −f64::MAX (not −∞, which
            // would read as δ = 0); `upper` returns −f64::MAX, its upward rounding
            self.overflow = true;
            return;
        }
        self.hi = s;
        self.lo += e;
        self.mag += e.abs();
        self.n += 1.0;
    }

    #[inline(always)]
    pub(super) fn add_pair(&mut self, (hi, lo): (f64, f64)) {
        self.add(hi);
        if lo != 0.0 {
            self.add(lo);
        }
    }

    /// The sum rounded up: hi + lo rounded up, plus the bound (1 + 2^-46)·n·u·Σ|e| on the
    /// rounding of lo (+∞ partial sums cannot occur: every term is ≤ 0; an overflow to −∞ of
    /// finite terms is returned as −f64::MAX, its upward rounding).
    #[inline(always)]
    pub(super) fn upper(&self) -> f64 {
        if self.overflow {
            return -f64::MAX;
        }
        if self.hi == f64::NEG_INFINITY {
            return f64::NEG_INFINITY;
        }
        add_up(add_up(self.hi, self.lo), up(self.n * U * self.mag))
    }
}

impl UpSum {
    /// The sum rounded down (the mirror of [`UpSum::upper`]).
    #[inline(always)]
    pub(super) fn lower(&self) -> f64 {
        if self.overflow || !self.hi.is_finite() {
            return f64::NEG_INFINITY;
        }
        add_dn(add_dn(self.hi, self.lo), -up(self.n * U * self.mag))
    }
}

/// ln Σ e^{x_k} accumulated term by term with a certified upper value: the running total is an
/// [`UpSum`] to which each term adds its correction ln(1 + e^{−d}) (rounded up, d rounded down
/// from the total's lower value: the correction decreases in d), so the total's rounding does not
/// accumulate; a term above the total restarts it from the term (d from the total's upper value).
#[derive(Debug, Clone, Copy)]
pub(super) struct LogSum {
    acc: UpSum,
    empty: bool,
}

impl LogSum {
    /// ln e^{x0} (the empty sum when x0 = −∞).
    #[inline(always)]
    pub(super) fn new(x0: f64) -> LogSum {
        let mut acc = UpSum::default();
        acc.add(x0);
        LogSum {
            acc,
            empty: x0 == f64::NEG_INFINITY,
        }
    }

    #[inline(always)]
    pub(super) fn add(&mut self, x: f64) {
        if x == f64::NEG_INFINITY {
            return;
        }
        if self.empty {
            *self = LogSum::new(x);
            return;
        }
        let lo = self.acc.lower();
        if x <= lo {
            self.acc.add(corr_up(add_dn(lo, -x)));
        } else {
            // ln(e^T + e^x) ≤ big + ln(1 + e^{−(big − small)}) with {big, small} = {x, T_up}:
            // where x lies inside the total's rounding interval (lo < x < T_up), restarting
            // from x with d clamped to 0 would add ln 2 < ln(1 + e^{T − x}) (a few ulp low)
            let t_up = self.acc.upper();
            let (big, small) = if x >= t_up { (x, t_up) } else { (t_up, x) };
            let c = corr_up(add_dn(big, -small));
            *self = LogSum::new(big);
            self.acc.add(c);
        }
    }

    #[inline(always)]
    pub(super) fn upper(&self) -> f64 {
        if self.empty {
            f64::NEG_INFINITY
        } else {
            self.acc.upper()
        }
    }
}

/// ln(1 + e^{−d}) for d ≥ 0 (d rounded down by the caller), rounded up: `vmath` to a few ulp,
/// moved up by [`up`].
#[inline(always)]
pub(super) fn corr_up(d: f64) -> f64 {
    up(vmath::log1p(vmath::exp(-d.max(0.0))))
}

/// ln(m·G(u, m)) = ln Σ_{k<m} (1 − u)^k rounded up (u rounded down by the caller: G decreases
/// in u): G to ~3 ulp ([`geometric_average`]) moved up by [`up`], the product and the log
/// rounded up; exactly 0 for m = 1.
#[inline(always)]
pub(super) fn ln_mg_up(u: f64, m: f64) -> f64 {
    if m == 1.0 {
        return 0.0;
    }
    ln_up(mul_up(m, up(geometric_average(u, m))))
}

/// ln(e^a + e^b) rounded up: the gap d = |a − b| rounded down, ln(1 + e^{−d}) (decreasing in d;
/// `vmath` to a few ulp) moved up by [`up`], added to the larger by [`add_up`].
#[inline(always)]
pub(super) fn lse_up(a: f64, b: f64) -> f64 {
    let (hi, lo) = if a >= b { (a, b) } else { (b, a) };
    if lo == f64::NEG_INFINITY {
        return hi;
    }
    add_up(hi, corr_up(add_dn(hi, -lo)))
}

impl UpSum {
    /// No term added yet.
    #[inline(always)]
    fn is_empty(&self) -> bool {
        self.n == 0.0 && self.hi == 0.0
    }

    /// Add the terms of `o` (its pair and its error): hi + o.hi by TwoSum, the error into `lo`
    /// with both `lo`s; the error bound n·u·Σ|e| of recursive summation holds for any
    /// summation tree of depth ≤ n (Higham §4.2), so the counts and magnitudes add, plus the
    /// two additions made here. An empty side leaves the other as it is.
    #[inline(always)]
    pub(super) fn merge(&mut self, o: &UpSum) {
        if o.is_empty() {
            return;
        }
        if self.is_empty() {
            *self = *o;
            return;
        }
        if o.hi == f64::NEG_INFINITY || self.hi == f64::NEG_INFINITY {
            self.hi = f64::NEG_INFINITY;
            self.overflow = false;
            return;
        }
        if o.overflow || self.overflow {
            self.overflow = true;
            return;
        }
        let (s, e) = two_sum(self.hi, o.hi);
        if s == f64::NEG_INFINITY {
            self.overflow = true;
            return;
        }
        self.hi = s;
        self.lo = self.lo + o.lo + e;
        self.mag = self.mag + o.mag + e.abs();
        self.n = self.n + o.n + 2.0;
    }
}

impl LogSum {
    /// ln(e^{total}·∏): the total multiplied by e^{s} for the sum of logarithms `s` (added to
    /// the compensated total, [`UpSum::merge`]); nothing for the empty sum.
    #[inline(always)]
    pub(super) fn shift(&mut self, s: &UpSum) {
        if !self.empty {
            self.acc.merge(s);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::UpSum;

    #[test]
    fn finite_terms_overflowing_stay_finite() {
        // two finite terms whose sum overflows: the sum is below −f64::MAX, not −∞ (δ > 0)
        let mut s = UpSum::default();
        s.add(-f64::MAX);
        s.add(-f64::MAX);
        assert!(s.overflow);
        assert_eq!(s.upper(), -f64::MAX);
        assert_eq!(s.lower(), f64::NEG_INFINITY);
        s.add(-1.0);
        assert_eq!(s.upper(), -f64::MAX);
        // the same through merge
        let (mut a, mut b) = (UpSum::default(), UpSum::default());
        a.add(-f64::MAX);
        b.add(-0.75 * f64::MAX);
        a.merge(&b);
        assert_eq!(a.upper(), -f64::MAX);
        // an exact −∞ term (a factor 0) still makes the sum −∞
        s.add(f64::NEG_INFINITY);
        assert_eq!(s.upper(), f64::NEG_INFINITY);
        a.merge(&s);
        assert_eq!(a.upper(), f64::NEG_INFINITY);
        // finite sums as before: rounded up by at most an ulp here
        let mut f = UpSum::default();
        f.add(-1.5);
        f.add(-2.25);
        assert!(f.upper() >= -3.75 && f.upper() <= (-3.75f64).next_up());
    }
}
