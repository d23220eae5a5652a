//! Exact searches over the bit patterns of non-negative doubles (ordered like their values):
//! the first double at which a predicate holds, to the last ulp.
//!
//! [`bisect_bits`] bisects a given bracket; [`first_ok`] first finds a bracket by exponential
//! steps from a guess. Neither needs the predicate to be monotone to terminate (at most ~2·64
//! evaluations). With a fixed bracket, [`bisect_bits`] also makes an inversion **exactly
//! monotone** whenever the predicates of two targets are nested (ok₁(x) ⇒ ok₂(x) for every x,
//! e.g. `f(x) > δ₂` ⇒ `f(x) > δ₁` for δ₁ ≤ δ₂), even if the computed `f` itself is not monotone to
//! the last ulp: both searches visit the same midpoints until the first one where the
//! predicates differ, and there the first search continues below that midpoint and the second
//! at or above it.

/// Smallest double x in (lo, hi] with `ok(x)`, given !ok(lo) and ok(hi), both ≥ 0: bisection
/// on the bit patterns (monotone for non-negative doubles), at most 64 steps.
#[inline(always)]
pub fn bisect_bits(lo: f64, hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
    let (mut a, mut b) = (lo.to_bits(), hi.to_bits());
    while b - a > 1 {
        let mid = a + (b - a) / 2;
        if ok(f64::from_bits(mid)) {
            b = mid;
        } else {
            a = mid;
        }
    }
    f64::from_bits(b)
}

/// Exact predicate search: given `ok` false below a threshold and true from it on (or at least
/// evaluated consistently), the smallest double x ≥ 0 with ok(x) near `x0` (0 if ok(0), +∞ if
/// no finite double is ok). Exponential steps over the bit patterns from x0 find a bracket, then
/// [`bisect_bits`]: ≤ ~2·64 evaluations. The result depends on `x0` where `ok` is not monotone.
pub fn first_ok(ok: &dyn Fn(f64) -> bool, x0: f64) -> f64 {
    const INF: u64 = 0x7ff0_0000_0000_0000;
    let mut b = x0.to_bits().min(INF);
    let (lo, hi); // !ok(lo), ok(hi)
    if ok(f64::from_bits(b)) {
        let mut step = 1u64;
        loop {
            if b == 0 {
                return 0.0;
            }
            let lb = b.saturating_sub(step);
            if !ok(f64::from_bits(lb)) {
                lo = lb;
                hi = b;
                break;
            }
            b = lb;
            step = step.saturating_mul(2);
        }
    } else {
        let mut step = 1u64;
        loop {
            if b >= INF {
                return f64::INFINITY;
            }
            let hb = b.saturating_add(step).min(INF);
            if ok(f64::from_bits(hb)) {
                lo = b;
                hi = hb;
                break;
            }
            b = hb;
            step = step.saturating_mul(2);
        }
    }
    bisect_bits(f64::from_bits(lo), f64::from_bits(hi), ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_exact_threshold() {
        let t = 0.3_f64;
        assert_eq!(bisect_bits(0.0, f64::INFINITY, |x| x >= t), t);
        assert_eq!(bisect_bits(0.0, 1.0, |x| x > t), t.next_up());
        for x0 in [0.0, 1e-300, 0.29, 0.3, 0.31, 1e300, f64::INFINITY] {
            assert_eq!(first_ok(&|x| x >= t, x0), t, "x0 {x0}");
        }
        assert_eq!(first_ok(&|_| true, 5.0), 0.0);
        assert_eq!(first_ok(&|_| false, 5.0), f64::INFINITY);
    }

    /// Nested predicates give ordered results even when the function is not monotone.
    #[test]
    fn nested_predicates_give_monotone_results() {
        // a deliberately non-monotone "function": x with its last two bits scrambled
        let f = |x: f64| f64::from_bits(x.to_bits() ^ 3);
        let mut prev = 0.0;
        for i in 0..2000 {
            let d = 0.1 + 1e-16 * i as f64;
            let r = bisect_bits(0.0, f64::INFINITY, |x| f(x) > d);
            assert!(r >= prev, "{d}: {r} < {prev}");
            prev = r;
        }
    }
}
