//! The hockey-stick divergence E_γ(P‖Q) of two given discrete distributions and the contraction
//! coefficient η_γ(K) of a given finite Markov kernel (Asoodeh–Diaz–Calmon, *Privacy
//! amplification of iterative algorithms via contraction coefficients*, Thm 2 and eq. (8);
//! derivation: docs/derivations/theta.md#given-distributions).
//!
//! For γ = e^ε ≥ 1, E_γ(P‖Q) = sup_A P(A) − γQ(A) = Σ_y (p_y − γ q_y)_+ (the supremum is
//! attained by A = {y : p_y > γ q_y}), the smallest δ for which a mechanism with output laws P
//! and Q on two neighbouring inputs is (ε, δ)-DP in that direction. For a kernel K (a row-
//! stochastic matrix, row x the law K(x)), the strong data-processing constant
//! η_γ(K) = sup_{μ,ν} E_γ(μK‖νK)/E_γ(μ‖ν) equals max_{x,x'} E_γ(K(x)‖K(x')) (000 Thm 2):
//! point masses attain it, so it is a finite maximum over ordered pairs of rows.
//!
//! Rounding (upward, for the given doubles): γq_y is carried as a double-double
//! (`exp_dd`, then a product with q_y), lowered by (ε + 8·min(ε, 1))·2^-102 relative to cover those errors
//! (exp_dd reduces its argument by k·ln 2 in double-double, an absolute error of about
//! |x|·2^-104 in the reduced argument, hence a relative error of e^x growing with |x|: measured
//! 2^-96.4 at ε = 593.78; the former margin was applied as a factor 1 − 2^-95, which rounds to
//! 1, and E_γ came out 1.2e-9 below the exact value after a cancellation of p_y − γq_y to 2e-21
//! of p_y there; the margin, now subtracted in double-double, is 4× the bound
//! (ε + 8·min(ε, 1))·2^-104 of the factors e^{min(ε, 700)}·e^{ε − 700}, their series and products), subtracted from p_y in double-double and rounded up; the positive parts
//! are summed in double-double and the sum rounded up with a margin of n·2^-100 of it. The
//! result is therefore ≥ the exact value and within a few ulp of it unless p_y and γq_y cancel
//! to far below the sum (a condition number, not a rounding loss). γ is split as e^{min(ε, 700)}
//! ·e^{ε − 700} so that no intermediate overflows: a term with q_y > 0 is 0 once γq_y ≥ p_y is
//! certain, which covers ε = +∞.
//!
//! E_γ of two Gaussian mixtures (certified by adaptive cells) is in `divergence_mixture.rs`
//! ([`mixture_hockey_stick`]).

#[path = "divergence_mixture.rs"]
mod mixture;
pub use mixture::{
    mixture_hockey_stick, Mixture, MAX_CELLS, MAX_COMPONENTS, MAX_MEAN, MAX_MIXTURE_WORK,
    WEIGHT_SUM_TOL,
};

use crate::dd::{exp_dd, two_sum, Dd};
use crate::error::{PabiError, Result};
use crate::interrupt;
use crate::num::round::{add_up, mul_up};

/// Largest number of support points of one distribution (the arrays are borrowed, not copied).
pub const MAX_SUPPORT: usize = 1 << 30;
/// Largest work of one call: rows²·columns of a contraction coefficient, support·len(ε) of a
/// divergence (about a second per 2^30 terms).
pub const MAX_KERNEL_WORK: u128 = 1 << 34;
/// The unit of the relative margin (ε + 8·min(ε, 1))·2^-102 covering the double-double errors of γ·q
/// (module doc).
const GAMMA_Q_MARGIN: f64 = 1.0 / 5_070_602_400_912_917_605_986_812_821_504.0; // 2^-102

fn check_masses(param: &'static str, xs: &[f64]) -> Result<()> {
    if let Some(i) = xs.iter().position(|&x| !(0.0..=1.0).contains(&x)) {
        return Err(
            PabiError::domain(param, "probability masses in [0, 1] (not NaN)", xs[i]).at(i),
        );
    }
    Ok(())
}

fn check_eps(eps: f64) -> Result<()> {
    if eps.is_nan() || eps < 0.0 {
        return Err(PabiError::domain(
            "eps",
            ">= 0 and not NaN (+inf allowed)",
            eps,
        ));
    }
    Ok(())
}

/// A lower bound on γq as a double-double with the margin applied, or `None` when γq ≥ p is
/// certain (the term is then 0). `g` = ([`gamma_parts`]) e^{min(ε, 700)} as a double-double,
/// ε − 700 ≥ 0 or 0, and the relative margin.
#[inline]
fn gamma_q_lower(g: Gamma, p: f64, q: f64) -> Option<Dd> {
    let (g1, e2, margin) = g;
    let mut t = g1.mul_f(q);
    if e2 > 0.0 {
        if t.hi >= p {
            return None; // γq ≥ e^700·q ≥ p
        }
        if e2 >= 709.0 {
            // t ≥ 2^-1074·e^700 ≈ 5e-20, so γq ≥ t·e^709 > 1 ≥ p
            return None;
        }
        t = t * exp_dd(Dd::from_f64(e2));
    }
    // t·(1 − margin) as t − t·margin: 1 − margin rounds to 1 in double precision (the former
    // `t.mul_f(1.0 - 2^-95)` applied no margin at all)
    Some(t - t.mul_f(margin))
}

/// Σ_y (p_y − γq_y)_+ over one pair of mass vectors of equal length, rounded up (validated by
/// the callers). The double-double sum's error (≤ n·2^-104 of it) is covered by the final margin.
fn e_gamma_pair(p: &[f64], q: &[f64], g: Gamma) -> f64 {
    let (mut hi, mut lo) = (0.0f64, 0.0f64);
    for (&py, &qy) in p.iter().zip(q) {
        if py == 0.0 {
            continue;
        }
        let d = if qy == 0.0 {
            Dd::from_f64(py)
        } else {
            match gamma_q_lower(g, py, qy) {
                None => continue,
                Some(t) => Dd::from_f64(py) - t,
            }
        };
        if d.hi <= 0.0 && d.hi + d.lo <= 0.0 {
            continue;
        }
        // the term rounded up: hi + lo to a double, one step up when the residual is positive
        let term = add_up(d.hi, d.lo).max(0.0);
        let (s, e) = two_sum(hi, term);
        hi = s;
        lo += e;
    }
    let n = p.len() as f64;
    let sum = add_up(hi, lo);
    // n·2^-100 relative covers the accumulated low parts
    add_up(sum, mul_up(sum, n * 7.888_609_052_210_118e-31))
}

/// γ = e^ε as (e^{min(ε, 700)} in double-double, ε − 700 or 0, the relative margin of γq).
type Gamma = (Dd, f64, f64);

fn gamma_parts(eps: f64) -> Gamma {
    let e1 = eps.min(700.0);
    let e2 = if eps > 700.0 { eps - 700.0 } else { 0.0 };
    // (e2 ≥ 709 never reaches the margin: such a term is 0, see `gamma_q_lower`). Below ε = 1
    // exp_dd's constant part shrinks with ε (no reduction while ε < ln 2 / 2, the series'
    // error relative to e^ε − 1 ≈ ε): 8·min(ε, 1); at ε = 0, γ = 1 exactly and there is no
    // margin, so that p_y = q_y gives 0 exactly (the only exact tie: e^ε is transcendental for
    // every other double ε) and E_γ does not grow from ε = 0 to the next double.
    let margin = (e1 + e2.min(709.0) + 8.0 * e1.min(1.0)) * GAMMA_Q_MARGIN;
    (exp_dd(Dd::from_f64(e1)), e2, margin)
}

/// E_γ(P‖Q) = Σ_y (p_y − e^ε q_y)_+ for each ε of `eps` (into `out`), rounded up. `p`, `q`:
/// probability masses on the same support (equal lengths, entries in [0, 1]; they need not
/// sum exactly to 1: the value is that of the given measures).
pub fn hockey_stick(p: &[f64], q: &[f64], eps: &[f64], out: &mut [f64]) -> Result<()> {
    PabiError::same_lengths("p_mass", p.len(), "q_mass", q.len())?;
    if p.is_empty() || p.len() > MAX_SUPPORT {
        return Err(PabiError::domain(
            "p_mass",
            "a non-empty array of at most 2^30 masses",
            p.len() as f64,
        ));
    }
    PabiError::same_lengths("eps", eps.len(), "out", out.len())?;
    let work = (p.len() as u128) * (eps.len() as u128);
    if work > MAX_KERNEL_WORK {
        return Err(PabiError::domain(
            "eps",
            "short enough that support size * len(eps) <= 2^34 (each eps is a pass over the support)",
            eps.len() as f64,
        ));
    }
    check_masses("p_mass", p)?;
    check_masses("q_mass", q)?;
    if let Some(i) = eps.iter().position(|&e| e.is_nan() || e < 0.0) {
        return Err(check_eps(eps[i]).unwrap_err().at(i));
    }
    for (o, &e) in out.iter_mut().zip(eps) {
        interrupt::check()?;
        *o = e_gamma_pair(p, q, gamma_parts(e));
    }
    Ok(())
}

/// η_γ(K) = max over ordered pairs of distinct rows x ≠ x' of E_γ(K(x)‖K(x')), γ = e^ε, for
/// a `rows` × `cols` row-major kernel (each row a probability vector: entries in [0, 1], sum 1
/// within 4·cols ulp). One row gives 0 (a constant kernel forgets its input).
pub fn contraction_coefficient(kernel: &[f64], rows: usize, cols: usize, eps: f64) -> Result<f64> {
    check_eps(eps)?;
    if rows == 0 || cols == 0 || rows.checked_mul(cols) != Some(kernel.len()) {
        return Err(PabiError::domain(
            "kernel",
            "a non-empty 2-D array (rows = inputs, columns = outputs)",
            kernel.len() as f64,
        ));
    }
    let work = (rows as u128) * (rows as u128) * (cols as u128);
    if work > MAX_KERNEL_WORK {
        return Err(PabiError::domain(
            "kernel",
            "small enough that rows^2 * columns <= 2^34 (the pairs of rows are compared)",
            work as f64,
        ));
    }
    check_masses("kernel", kernel)?;
    let tol = 4.0 * cols as f64 * f64::EPSILON;
    for (i, row) in kernel.chunks_exact(cols).enumerate() {
        let s: f64 = row.iter().sum();
        if (s - 1.0).abs() > tol {
            return Err(PabiError::domain(
                "kernel",
                "rows that are probability vectors (each row sums to 1)",
                s,
            )
            .at(i));
        }
    }
    let g = gamma_parts(eps);
    let mut best = 0.0f64;
    for (i, pi) in kernel.chunks_exact(cols).enumerate() {
        interrupt::check()?;
        for (j, pj) in kernel.chunks_exact(cols).enumerate() {
            if i != j {
                best = best.max(e_gamma_pair(pi, pj, g));
            }
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(p: &[f64], q: &[f64], eps: f64) -> f64 {
        let mut out = [0.0];
        hockey_stick(p, q, &[eps], &mut out).unwrap();
        out[0]
    }

    #[test]
    #[allow(clippy::approx_constant)] // e rounded, as a test input
    fn exp_dd_error_is_inside_the_margin() {
        // e^x to 60 digits as (nearest double, the rest to nearest); the relative error of
        // exp_dd grows with |x| (argument reduction), ~2^-96 at 594 and 700
        let cases = [
            (
                593.7841917105679,
                7.536989344474783e257,
                3.773471386443382e241,
            ),
            (700.0, 1.0142320547350045e304, 1.6666571920734673e287),
            (35.520932497285095, 2670207280044679.0, -0.2192720483967184),
            (1.0, 2.718281828459045, 1.4456468917292502e-16),
        ];
        for (x, hi, lo) in cases {
            let e = exp_dd(Dd::from_f64(x));
            let err = ((e.hi - hi) + (e.lo - lo)).abs() / hi;
            // a quarter of the margin (x + 8)·2^-102 (the factor's share, module doc)
            assert!(
                err < (x + 8.0) * GAMMA_Q_MARGIN / 4.0,
                "x = {x}: relative error {err:e}"
            );
        }
    }

    #[test]
    #[allow(clippy::excessive_precision)]
    fn heavy_cancellation_is_not_below_the_exact_value() {
        // p − e^ε·q cancels to 2.2e-21 of p (found 2026-11-28: 2.4530862714413822e-22, 1.2e-9
        // below the exact 2.453086274470289271679016e-22, mpmath at 80 to 300 digits)
        let v = e(
            &[0.10919184769463983],
            &[1.4487462128984724e-259],
            593.7841917105679,
        );
        let exact = 2.453_086_274_470_289_3e-22;
        assert!(v >= exact && v < exact * (1.0 + 1e-5), "{v:e}");
        let v = e(
            &[0.7662719572126713],
            &[2.869709639919226e-16],
            35.520932497285095,
        );
        let exact = 1.260_019_304_807_870_1e-16;
        assert!(v >= exact && v < exact * (1.0 + 1e-13), "{v:e}");
    }

    #[test]
    fn total_variation_and_simple_values() {
        // eps = 0: total variation distance
        let v = e(&[0.5, 0.5], &[0.25, 0.75], 0.0);
        assert!((0.25..0.25 + 1e-15).contains(&v), "{v}");
        // identical distributions: 0
        assert_eq!(e(&[0.3, 0.7], &[0.3, 0.7], 0.0), 0.0);
        // disjoint supports: E = 1 for every eps, +inf included
        for eps in [0.0, 1.0, 1e3, f64::INFINITY] {
            let v = e(&[1.0, 0.0], &[0.0, 1.0], eps);
            assert!((1.0..1.0 + 1e-15).contains(&v), "{eps} {v}");
        }
        // huge eps with a subnormal q mass: the term vanishes, no overflow or NaN
        assert_eq!(e(&[1.0], &[5e-324], 1e308), 0.0);
        let v = e(&[1e-30, 1.0 - 1e-30], &[5e-324, 1.0 - 5e-324], 745.0);
        assert!(v >= 0.0 && v.is_finite());
    }

    #[test]
    fn randomized_response_matches_closed_form() {
        // RR with p = e^a/(1 + e^a): E_{e^eps}(P||Q) = (p - e^eps (1 - p))_+ for eps < a
        let a: f64 = 1.5;
        let p = a.exp() / (1.0 + a.exp());
        for eps in [0.0, 0.5, 1.0, 1.49] {
            let v = e(&[p, 1.0 - p], &[1.0 - p, p], eps);
            // the f64 formula cancels near eps = a: compare loosely (tests/test_divergence.py
            // checks the direction against mpmath)
            let approx = p - eps.exp() * (1.0 - p);
            assert!((v - approx).abs() <= 1e-12 * approx, "{eps} {v} {approx}");
        }
        assert_eq!(e(&[p, 1.0 - p], &[1.0 - p, p], 1.6), 0.0);
    }

    #[test]
    fn contraction_of_a_binary_symmetric_channel() {
        // BSC(c): rows (1 - c, c) and (c, 1 - c); eta_gamma = (1 - c - gamma c)_+
        let c = 0.1;
        let k = [1.0 - c, c, c, 1.0 - c];
        let v = contraction_coefficient(&k, 2, 2, 0.5).unwrap();
        let exact = 1.0 - c - 0.5f64.exp() * c;
        assert!(v >= exact && v <= exact * (1.0 + 1e-14), "{v} {exact}");
        assert_eq!(contraction_coefficient(&[0.25; 4], 1, 4, 0.0).unwrap(), 0.0);
    }

    #[test]
    fn validation_names_the_argument() {
        let mut out = [0.0];
        for (p, q, param) in [
            (vec![0.5, f64::NAN], vec![0.5, 0.5], "p_mass"),
            (vec![0.5, 0.5], vec![-0.1, 1.1], "q_mass"),
            (vec![], vec![], "p_mass"),
        ] {
            match hockey_stick(&p, &q, &[0.0], &mut out) {
                Err(PabiError::Domain { param: got, .. }) => assert_eq!(got, param),
                other => panic!("{other:?}"),
            }
        }
        assert!(matches!(
            hockey_stick(&[1.0], &[1.0], &[-1.0], &mut out),
            Err(PabiError::Domain { param: "eps", .. })
        ));
        assert!(matches!(
            contraction_coefficient(&[0.5, 0.6], 1, 2, 0.0),
            Err(PabiError::Domain {
                param: "kernel",
                ..
            })
        ));
    }
}
