//! ln of the Gaussian hockey-stick divergence θ_{e^ε}(r) and of the Laplace factor in
//! double-double (~30 digits), for a radius r given as a double-double: the slow, precise path
//! of the fixed-order PNSGD bound δ = A·B^k at large condition numbers |k·ln B| (see `pnsgd`,
//! "Accuracy of the fixed order"), where the engine's 1e-14 relative error of ln B would be
//! multiplied by |k·ln B| (up to ~745 while δ is a double, unbounded for ln δ).
//!
//! # Formulas (m = Q/φ the Mills ratio, S(x) = Σ x^{2n+1}/(2n+1)!! so that Q(x) = ½ − φ(x)S(x))
//! With a = ε/r − r/2, b = ε/r + r/2 (b² − a² = 2ε, e^ε φ(b) = φ(a)):
//!
//! * b ≤ 4: θ = φ(a)·(S(b) − S(a)) − expm1(ε)/2 with S(b) − S(a) = Σ c_n, c_0 = r,
//!   c_{n+1} = (b²c_n + 2ε·a^{2n+1}/(2n+1)!!)/(2n+3) (the divided difference, no cancellation
//!   between S(b) and S(a); the final subtraction loses at most ~4 digits in this range);
//! * b > 4, a < 0: 1 − θ = Q(−a) + e^ε Q(b) = φ(a)·(m(−a) + m(b)) (positive terms),
//!   ln θ = log1p(−(1 − θ));
//! * b > 4, a ≥ 0: θ = φ(a)·(m(a) − m(b)), ln θ = −a²/2 − ln√(2π) + ln(m(a) − m(b)) (no underflow;
//!   the difference loses log10(m(a)/(m(a) − m(b))) ≈ log10(a/r) digits, measured at run time).
//!
//! m(x), x ≥ 0: √(π/2)·e^{x²/2} − S(x) for x ≤ 3 (≤ 3 digits of cancellation), else the
//! continued fraction 1/(x + 1/(x + 2/(x + ...))) evaluated backward from N = ⌈900/x² + 14⌉
//! terms, the first 20 in double-double and the tail in double (N and the split were chosen
//! with mpmath: the error is below 3e-23 for every x ≥ 2.5). The accuracy target is ~1e-22
//! relative, not the full 2^-104 of double-double: ln B is needed to ~1e-17.
//!
//! Each function returns, with the value, an estimate `err` of its absolute error (on the
//! logarithm): (2^-98 + 1e-22) × (the cancellation factors measured at run time + the
//! amplification of a relative error of r). Callers add a relative margin
//! for what is not modelled. `None` where the formulas do not apply (r ≤ 0, not finite, θ = 0 or
//! 1 to working precision, |a| > 1e150); the callers then keep their double-precision value.

use std::ops::{Add, Div, Mul, Neg, Sub};

use crate::dd::{exp_dd, expm1_dd, fast_two_sum, ln_dd, log1p_dd, two_prod, Dd};

const SQRT_PI_2: Dd = Dd::new(1.253_314_137_315_500_3, -9.164_289_990_229_583e-17);
const INV_SQRT_2PI: Dd = Dd::new(0.398_942_280_401_432_7, -2.492_327_202_277_73e-17);
const LN_SQRT_2PI: Dd = Dd::new(0.918_938_533_204_672_8, -3.878_294_158_067_241_4e-17);
/// Series form of θ where b ≤ this.
const X0: f64 = 4.0;
/// Series / continued-fraction switch for the Mills ratio.
const MILLS_X0: f64 = 3.0;
/// Terms of the continued fraction evaluated in double-double (the rest in double).
const CF_HEAD: usize = 20;
/// Relative truncation error of the series and continued fractions (they are cut at ~1e-23:
/// ln B is needed to ~1e-17 only).
const TRUNC: f64 = 1e-22;
/// 2^-98: the unit of the error estimates (a few roundings of 2^-104 each).
const U98: f64 = 3.155_443_620_884_047_2e-30;

/// S(x) = Σ_{n≥0} x^{2n+1}/(2n+1)!! (x ≥ 0; positive terms) given x², to ~2^-104.
fn series_s(x: Dd, x2: Dd) -> Dd {
    let mut term = x;
    let mut sum = x;
    for n in 1..400 {
        term = term.mul(x2).div_f((2 * n + 1) as f64);
        sum = sum.add(term);
        if term.hi <= sum.hi * 1e-27 {
            break;
        }
    }
    sum
}

/// k / t for a double k and a double-double t (one correction: relative error ~2^-104).
#[inline(always)]
fn f_div_dd(k: f64, t: Dd) -> Dd {
    let q1 = k / t.hi;
    let (p, e) = two_prod(q1, t.hi);
    let r = ((k - p) - e) - q1 * t.lo;
    let (h, l) = fast_two_sum(q1, r / t.hi);
    Dd::new(h, l)
}

/// The Mills ratio m(x) = Q(x)/φ(x) for x ≥ 0, relative error ≲ 1e-23.
pub fn mills_dd(x: Dd) -> Dd {
    if x.hi <= MILLS_X0 {
        let x2 = x.sqr();
        SQRT_PI_2.mul(exp_dd(x2.ldexp(-1))).sub(series_s(x, x2))
    } else {
        let n = (900.0 / (x.hi * x.hi) + 14.0).ceil() as usize;
        // the tail in double precision: its errors are damped by the head's contraction
        // (mpmath: a double tail below the first 16 terms keeps 3e-23 for every x ≥ 2.5)
        let mut tf = x.hi;
        for k in (CF_HEAD + 1..=n).rev() {
            tf = x.hi + k as f64 / tf;
        }
        let mut t = Dd::from_f64(tf);
        for k in (1..=CF_HEAD.min(n)).rev() {
            t = x.add(f_div_dd(k as f64, t));
        }
        f_div_dd(1.0, t)
    }
}

/// φ(a) = e^{−a²/2}/√(2π) (|a| ≤ 37.5).
fn phi_dd(a2: Dd) -> Dd {
    INV_SQRT_2PI.mul(exp_dd(a2.ldexp(-1).neg()))
}

/// (ln θ_{e^ε}(r), err): ln of the Gaussian hockey-stick divergence for ε ≥ 0 (a double) and
/// r > 0 a double-double, ~30 significant digits (module doc); `err` estimates the absolute
/// error of the logarithm.
pub fn ln_theta_dd(eps: f64, r: Dd) -> Option<(Dd, f64)> {
    if !(r.hi > 0.0 && r.hi.is_finite() && eps >= 0.0 && eps.is_finite()) {
        return None;
    }
    let q = Dd::from_f64(eps).div(r);
    let h = r.ldexp(-1);
    let a = q.sub(h);
    let b = q.add(h);
    if !(a.hi.abs() <= 1e150 && b.hi.is_finite()) {
        return None;
    }
    let a2 = a.sqr();
    if b.hi <= X0 {
        let b2 = b.sqr();
        let two_eps = 2.0 * eps;
        let (mut c, mut e, mut d) = (r, a, r);
        for n in 0..400 {
            let den = (2 * n + 3) as f64;
            c = b2.mul(c).add(e.mul_f(two_eps)).div_f(den);
            e = e.mul(a2).div_f(den);
            d = d.add(c);
            if c.hi.abs() <= d.hi * 1e-27 {
                break;
            }
        }
        let phi = phi_dd(a2);
        let pd = phi.mul(d);
        let th = pd.sub(expm1_dd(Dd::from_f64(eps)).ldexp(-1));
        if th.hi.is_nan() || th.hi <= 0.0 {
            return None;
        }
        let cond = pd.hi / th.hi;
        let amp = phi.hi * r.hi / th.hi;
        return Some((ln_dd(th), (U98 + TRUNC) * (cond + amp + 1.0)));
    }
    if a.hi < 0.0 {
        if a.hi < -37.5 {
            return None;
        }
        let phi = phi_dd(a2);
        let u = phi.mul(mills_dd(a.neg()).add(mills_dd(b)));
        if !(u.hi > 0.0 && u.hi < 1.0) {
            return None;
        }
        let amp = phi.hi * r.hi / u.hi;
        let err_u = U98 * (amp + 4.0) + TRUNC;
        return Some((log1p_dd(u.neg()), err_u * u.hi / (1.0 - u.hi)));
    }
    let m1 = mills_dd(a);
    let md = m1.sub(mills_dd(b));
    if md.hi.is_nan() || md.hi <= 0.0 {
        return None;
    }
    let cond = m1.hi / md.hi;
    let amp = r.hi / md.hi; // φ(a)·r/θ
    let l = a2.ldexp(-1).neg().sub(LN_SQRT_2PI).add(ln_dd(md));
    Some((l, (U98 + TRUNC) * (cond + amp + 1.0) + U98 * a2.hi))
}

/// (ln B, err) for the Laplace factor B = 1 − e^{(ε − r)/2} (ε ≥ 0 a double, r > 0 a
/// double-double), ~30 digits; `None` where B = 0 (ε ≥ r) or the input is not finite.
pub fn ln_laplace_theta_dd(eps: f64, r: Dd) -> Option<(Dd, f64)> {
    if !(r.hi > 0.0 && r.hi.is_finite() && eps >= 0.0 && eps.is_finite()) {
        return None;
    }
    let x = Dd::from_f64(eps).sub(r).ldexp(-1);
    if x.hi.is_nan() || x.hi >= 0.0 {
        return None;
    }
    let lb = if x.hi < -std::f64::consts::LN_2 {
        log1p_dd(exp_dd(x).neg())
    } else {
        ln_dd(expm1_dd(x).neg())
    };
    // d ln B/dx = −u/B, u = e^x: a relative error of x (and of r) times (|x| + r)·u/B.
    let ub = x.hi.exp() / -x.hi.exp_m1();
    Some((lb, U98 * (1.0 + (x.hi.abs() + r.hi) * ub)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Golden values, mpmath at 40 digits (inputs are the exact doubles):
    ///
    /// ```python
    /// import mpmath as mp; mp.mp.dps = 40
    /// Q = lambda t: mp.erfc(t / mp.sqrt(2)) / 2
    /// th = lambda e, r: Q(e / r - r / 2) - mp.exp(e) * Q(e / r + r / 2)
    /// mills = lambda x: Q(x) / mp.npdf(x)
    /// for e, r in CASES: v = mp.log(th(mp.mpf(e), mp.mpf(r))); print(float(v), float(v - float(v)))
    /// # (mp.mp.dps = 150 for the reference evaluation itself; Laplace: mp.log(1 - mp.exp((e - r) / 2)))
    /// ```
    #[test]
    fn ln_theta_golden() {
        // (eps, r, ln θ hi, ln θ lo)
        let cases = [
            (1.0, 1.0, -2.0640664465003904, -1.3959037150781877e-16),
            (0.5, 2.0, -0.512183848178752, -1.489442775319354e-17),
            (0.0, 0.001, -7.826693853853476, -1.4321722501244615e-16),
            (3.0, 1.5, -3.0834792842526375, -4.2193123515690377e-17),
            (1.0, 10.0, -9.408206624332981e-07, 4.2034810890611216e-23),
            (0.5, 16.0, -1.5968170776801402e-15, -5.263298501755168e-32),
            (10.0, 5.0, -0.48349627836372167, 4.462031175495524e-18),
            (10.0, 1.0, -50.675779079990114, 7.965592869559378e-16),
            (1.0, 0.001, -500021.1422074951, -8.010792235121008e-12),
            (8.0, 2.0, -7.610141530744111, 3.2942637515189603e-16),
            (50.0, 0.5, -4985.853969735161, -2.2455818224935504e-13),
            (1.0, 17.0, -3.120558863998197e-17, -2.4684138769379833e-33),
            (0.0, 30.0, -7.341932398625502e-51, -1.1337886012322164e-67),
            (1e-06, 1e-07, -71.67121718708067, -5.635761449658529e-15),
        ];
        for (e, r, h, l) in cases {
            let (v, err) = ln_theta_dd(e, Dd::from_f64(r)).unwrap();
            let d = v.sub(Dd::new(h, l)).hi.abs();
            // the estimate covers the error, and is far below the 1e-17 needed
            eprintln!(
                "eps {e} r {r}: rel err {:.2e} estimate {:.2e}",
                d / h.abs(),
                err / h.abs()
            );
            assert!(
                d <= 1e-29 * h.abs() + err,
                "eps {e} r {r}: {v:?} vs ({h}, {l})"
            );
            // (≤ 1e-16 relative keeps δ within 7.5e-14 at |k ln B| = 745; the estimate is
            // pessimistic where the two Mills ratios nearly cancel, e.g. ε = 1e-6, r = 1e-7)
            assert!(err < 2e-16 * h.abs(), "eps {e} r {r}: err {err}");
        }
    }

    #[test]
    fn mills_golden() {
        let cases = [
            (0.0, 1.2533141373155003, -9.164289990229583e-17),
            (1.0, 0.6556795424187984, 2.7085254871687876e-17),
            (3.9, 0.24210933472105986, 1.2833615627421644e-17),
            (4.1, 0.23142643286975406, 7.288654242187191e-18),
            (10.0, 0.09902859647173193, -6.412997983307998e-18),
            (100.0, 0.009999000299850106, -8.52344533571916e-19),
        ];
        for (x, h, l) in cases {
            let v = mills_dd(Dd::from_f64(x));
            let d = v.sub(Dd::new(h, l)).hi.abs();
            assert!(d <= 3e-23 * h, "x {x}: {v:?} vs ({h}, {l})");
        }
    }

    #[test]
    fn ln_laplace_golden() {
        let cases = [
            (1.0, 70.0, -1.0395380116702225e-15, 6.109241730788479e-32),
            (1.0, 1.5, -1.5086915494460322, 9.768242057181238e-17),
            (0.0, 3.0, -0.252482458925454, 1.5883878324152015e-17),
            (2.0, 2.0000001, -16.811242858154845, 1.1550771495004723e-15),
        ];
        for (e, r, h, l) in cases {
            let (v, err) = ln_laplace_theta_dd(e, Dd::from_f64(r)).unwrap();
            let d = v.sub(Dd::new(h, l)).hi.abs();
            assert!(d <= 1e-28 * h.abs(), "eps {e} r {r}: {v:?} vs ({h}, {l})");
            assert!(err < 1e-20, "eps {e} r {r}: err {err}");
        }
        assert!(ln_laplace_theta_dd(2.0, Dd::from_f64(1.0)).is_none());
    }
}
