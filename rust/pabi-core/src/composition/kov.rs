//! Exact (optimal) composition of k copies of an (ε0, δ0)-DP mechanism and the trade-off
//! function f_{ε,δ}.
//!
//! - [`approx_dp_composition_delta`] / [`approx_dp_composition_epsilon`]: δ(ε) of the k-fold
//!   composition of f_{ε0,δ0} and its inverse, from the closed form of Kairouz–Oh–Viswanath
//!   (*The composition theorem for differential privacy*, Sec. 3, optimal composition) written
//!   through the privacy-loss variable: +∞ w.p. 1 − (1−δ0)^k, else (2j − k)ε0 with j ~ Bin(k, p),
//!   p = 1/(1 + e^{−ε0}); the binomial pmf in log space by Loader's saddle-point method.
//! - [`single_point_composed_epsilon`]: the single-point route of multi-epoch composition
//!   (Sordello–Bu–Dong §5).
//! - [`tradeoff_eps_delta`]: f_{ε,δ} (Dong–Roth–Su eq. (5), Prop. 2.5).
//!
//! Derivation and rounding directions: `docs/derivations/composition.md`.

#![allow(clippy::neg_cmp_op_on_partial_ord)] // `!(x <= y)`-style checks also catch NaN
use crate::dd::{exp_dd, log1p_dd, Dd, LN2_DD};
use crate::error::{PabiError, Result};
use crate::num::binom::{bd0_dd, log_binom_pmf_dev, stirlerr_f64};
use crate::num::logspace::Neumaier;
use crate::num::round::{add_up, EPS4, EPS48, U};
use crate::num::{log1mexp, up};

/// ln(2π) as a double-double.
const LN_2PI_DD: Dd = Dd::new(1.837_877_066_409_345_6, -7.756_588_316_134_483e-17);
/// Terms whose double log exceeds this in magnitude take the double-double log-pmf: the
/// double path's error, 48 ulp of (|ln T| + ½ln(2πk) + 1), reached 7e-12 relative at ln T ≈ −650.
/// So do the terms with k − j < k/4 (the mode near k, ε0 ≳ 1): there the double path's
/// log1p(−j/k) (absolute error u·j/(k − j)) and d = j − kp (formed as (j − k/2) − (k/2)·
/// tanh(ε0/2), absolute error u·k/2 against a d of order kq) were 1.3e-12 to 3.3e-12 below the
/// exact value (ε0 = 16, k = 1e6, ε = 1.59999e7; ε0 = 14, ε = 1.39999e7).
const DD_FROM: f64 = 16.0;
/// Absolute error of stirlerr(n) − stirlerr(x) − stirlerr(n − x) (doubles): each entry of the
/// table is correctly rounded (≤ u·0.082), each series is cut after the term of 1/n^9 (n > 15:
/// the first omitted term 691/360360/n^11 ≤ 1.1e-16), 1/n^7 (n > 35: ≤ 1.1e-17), 1/n^5
/// (n > 80: ≤ 2.8e-17) or 1/n^3 (n > 500: ≤ 2.6e-17), and its roundings are below 1e-20.
const STIRLERR_ERR: f64 = 4.0e-16;
/// Relative error of the double-double quantities (2^-100 for each operation, a few dozen of
/// them, and the series cut at 1e-32): a generous bound on the deviances, ln and their sum.
const DD_REL: f64 = 1.0e-28;

/// The binomial Bin(k, p) in double-double for the log-pmf of the deep tail: p, q = 1 − p,
/// ln p, ln q (p = 1/(1 + e^{−ε0}), each to ~2^-100 relative).
struct BinomDd {
    k: f64,
    p: Dd,
    q: Dd,
    lp: Dd,
    lq: Dd,
}

impl BinomDd {
    /// None for ε0 > 700 (e^{−ε0} leaves the range of `exp_dd`; the double path is used).
    fn new(eps0: f64, k: f64) -> Option<BinomDd> {
        if !(eps0 <= 700.0) {
            return None;
        }
        let e = exp_dd(Dd::from_f64(-eps0)); // e^{−ε0}
        let one_e = e.add_f(1.0);
        let l1 = log1p_dd(e); // ln(1 + e^{−ε0})
        Some(BinomDd {
            k,
            p: Dd::from_f64(1.0) / one_e,
            q: e / one_e,
            lp: -l1,
            lq: -(l1.add_f(eps0)),
        })
    }

    /// (ln P_x, bound on its absolute error), P_x = C(k, x) p^x q^(k−x), integer 0 ≤ x ≤ k:
    /// Loader's saddle point (as `log_binom_pmf_dev`) with the deviances, ln and sums in
    /// double-double and d = x − kp formed from the double-double kp (exact to 2^-104·kp).
    fn log_pmf(&self, x: f64) -> (Dd, f64) {
        let n = self.k;
        if x == 0.0 {
            let v = self.lq.mul_f(n);
            return (v, DD_REL * v.hi.abs());
        }
        if x == n {
            let v = self.lp.mul_f(n);
            return (v, DD_REL * v.hi.abs());
        }
        let xd = Dd::from_f64(x);
        let m1 = self.p.mul_f(n);
        let d1 = xd - m1;
        let (b1, e1) = bd0_dd(x, m1, d1, xd + m1);
        let x2 = n - x; // exact: integers < 2^53
        let m2 = self.q.mul_f(n);
        let (b2, e2) = bd0_dd(x2, m2, -d1, Dd::from_f64(x2) + m2);
        let st = stirlerr_f64(n) - stirlerr_f64(x) - stirlerr_f64(x2);
        // ½ ln(2π x (n − x)/n) in double (x, n − x, n exact): three faithful logarithms
        // (< 2u each), the constant (≤ u) and three sums (≤ u·Σ each), halved: ≤ 2.5u·Σ,
        // Σ = ln 2π + |ln x| + |ln(n − x)| + ln n (≤ 2.4e-14 at n = 1e10)
        let (la, lb, lc) = (x.ln(), x2.ln(), n.ln());
        let lf = 0.5 * (((LN_2PI_DD.hi + la) + lb) - lc);
        let elf = 3.0 * U * (LN_2PI_DD.hi + la.abs() + lb.abs() + lc.abs());
        let v = (-(b1 + b2)).add_f(st - lf);
        (
            v,
            STIRLERR_ERR + e1 + e2 + elf + U * (st - lf).abs() + DD_REL * v.hi.abs(),
        )
    }
}

/// 2^e·x (exact unless the result is subnormal: then one rounding, ≤ 2^-1075 absolute).
fn scale2(x: f64, e: i64) -> f64 {
    let p = |k: i64| f64::from_bits(((k + 1023) as u64) << 52);
    let mut v = x;
    let mut e = e;
    while e > 1000 {
        v *= p(1000);
        e -= 1000;
    }
    while e < -1000 {
        v *= p(-1000);
        e += 1000;
    }
    v * p(e)
}

pub(super) fn check_eps_delta(eps0: f64, delta0: f64) -> Result<()> {
    if !(eps0 >= 0.0 && eps0.is_finite()) {
        return Err(PabiError::domain("eps0", ">= 0 and finite", eps0));
    }
    if !(0.0..=1.0).contains(&delta0) {
        return Err(PabiError::domain("delta0", "in [0, 1]", delta0));
    }
    Ok(())
}

/// Largest number of compositions the exact (KOV) formula accepts. Its sum has O(√k) terms
/// after the geometric tail bound (k = 1e10: ~0.1 s; an ε inversion evaluates it ~60 times);
/// beyond, compose the PLD of the (ε0, δ0) mechanism instead (`Pld::eps_delta`).
pub const KOV_K_MAX: f64 = 1e10;

fn check_kov_k(k: f64) -> Result<()> {
    if k >= 1.0 && k.fract() == 0.0 && k <= KOV_K_MAX {
        Ok(())
    } else {
        Err(PabiError::domain(
            "count",
            "an integer in [1, 1e10] (beyond, compose the PLD of the (eps0, delta0) mechanism)",
            k,
        ))
    }
}

/// δ(ε) of the optimal k-fold composition of an (ε0, δ0)-DP mechanism, i.e. of f_{ε0,δ0}^{⊗k}
/// (Kairouz–Oh–Viswanath Sec. 3), an upper bound within ~1e-13 relative of the exact value.
///
/// Rounding: each term's exponent ε − (2j − k)ε0 is correctly rounded (one fma; near the top
/// loss kε0 the rounded difference had lost 5 digits, −6.4e-6 relative), so the set of terms
/// (the breakpoints ε = (2j − k)ε0) is decided exactly; terms far below the mode and the tail
/// past it are bounded, not dropped (a geometric bound on the pmf, added); ln q is
/// −softplus(ε0) (e^{ε0} overflowed for ε0 > 709.8 and the NaN terms erased the sum), and the
/// saddle-point log-pmf, whose bd0 terms carry ≤ ~32 ulp of their magnitude (≤ |ln term| +
/// ½ln(2πk) + 1), moves the sum up by 48 ulp of the terms' weighted mean magnitude (it was
/// 5.5e-14 below the exact value in the far tail, beyond the 2^-46 final margin).
pub fn approx_dp_composition_delta(eps0: f64, delta0: f64, k: f64, eps: f64) -> Result<f64> {
    check_eps_delta(eps0, delta0)?;
    check_kov_k(k)?;
    // one evaluation is at most ~0.4 s (k = 1e10); the ε inversion calls it repeatedly
    crate::interrupt::check()?;
    if eps.is_nan() || eps < 0.0 {
        return Err(PabiError::domain("eps", ">= 0", eps));
    }
    let lkeep = k * (-delta0).ln_1p(); // ln (1-δ0)^k
    let a = -lkeep.exp_m1();
    let b = lkeep.exp();
    let mut sum = 0.0f64;
    if eps0 > 0.0 && eps.is_finite() && b > 0.0 {
        let lp = -(-eps0).exp().ln_1p();
        let lq = -(eps0 + (-eps0).exp().ln_1p()); // −softplus(ε0), no overflow
        let lmag0 = 0.5 * (2.0 * std::f64::consts::PI * k).ln() + 1.0;
        let bdd = BinomDd::new(eps0, k);
        let (p, q) = (lp.exp(), lq.exp());
        // x − k·p = (x − k/2) − (k/2)·tanh(ε0/2): exact first part, so the deviation from the
        // mean carries no k·ulp(p) error
        let half_t = 0.5 * k * (0.5 * eps0).tanh();
        // x_j = ε − (2j − k)ε0 correctly rounded by one fma ((2j − k) is an exact integer), so
        // its sign — which terms exist — is decided exactly. (j_min was ⌊(k + ε/ε0)/2⌋ + 1 with
        // a rounded quotient: at ε0 = 0.1, k = 10, ε = 1, where 10·ε0 > 1 in exact arithmetic,
        // the j = 10 term was dropped and δ = 2e-323 against the exact 8.8e-20.)
        let xj = |j: f64| (-(2.0 * j - k)).mul_add(eps0, eps);
        // j_min = the smallest j ∈ [0, k] with x_j < 0 (x_j decreases in j), by bisection
        let jmin = if xj(k) >= 0.0 {
            k + 1.0
        } else if xj(0.0) < 0.0 {
            0.0
        } else {
            let (mut lo, mut hi) = (0.0f64, k); // x_lo ≥ 0 > x_hi
            while hi - lo > 1.0 {
                let mid = lo + (0.5 * (hi - lo)).floor(); // exact: integers < 2^53
                if xj(mid) < 0.0 {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            hi
        };
        let mode = (k * p).floor();
        let lpmf = |j: f64| log_binom_pmf_dev(j, k, p, q, lp, lq, (j - 0.5 * k) - half_t);
        // The sum in units of 2^E (Neumaier-compensated), E = the nearest integer to
        // ln(largest term)/ln 2 so far: a rescaling multiplies by a power of two (exact),
        // and each term v = e^{lt − E ln 2} is formed from lt in double-double (lt − E·ln 2
        // to ~2^-100 absolute, std's exp faithful, the product by 1 + lo): its relative error
        // is ≤ 4u plus the absolute error `el` of lt, accumulated into `err` (same units).
        // (The former log-sum-exp took m + ln Σ and its exponential in double: ~u·|m|
        // relative each, and a 48-ulp-of-|ln T| margin on every term: 7e-12 at ln T ≈ −650.)
        let mut acc = Neumaier::default();
        let (mut e2, mut m, mut err) = (0i64, f64::NEG_INFINITY, 0.0f64);
        let add =
            |lt: Dd, el: f64, e2: &mut i64, m: &mut f64, acc: &mut Neumaier, err: &mut f64| {
                if *m == f64::NEG_INFINITY || lt.hi > *m {
                    *m = lt.hi;
                }
                let t = lt - LN2_DD.mul_f(*e2 as f64);
                if acc.s == 0.0 || t.hi > 1.0 {
                    let en = (lt.hi / std::f64::consts::LN_2).round() as i64;
                    let sh = *e2 - en;
                    acc.s = scale2(acc.s, sh);
                    acc.c = scale2(acc.c, sh);
                    // a rescaled value that turns subnormal loses ≤ 2^-1075 (s, c, err: 3 of them,
                    // in units where the new largest term is ≥ ½)
                    *err = scale2(*err, sh) + 3.0 * 5e-324;
                    *e2 = en;
                    let t = lt - LN2_DD.mul_f(en as f64);
                    let v = t.hi.exp() * (1.0 + t.lo);
                    *err += v * (el + 4.0 * U) + 5e-324;
                    acc.add(v);
                    return;
                }
                let v = t.hi.exp() * (1.0 + t.lo);
                // an underflowed term (< 2^-1074 units) is counted by the 5e-324
                *err += v * (el + 4.0 * U) + 5e-324;
                acc.add(v);
            };
        // the double path's error model (measured ≤ 32 ulp of the magnitude for the log-pmf)
        let el_double = |lt: f64| EPS48 * (lt.abs() + lmag0) * (1.0 + 1e-3);
        let mut j = jmin;
        // Far below the mode (j < mode − 40σ − 40) the terms are skipped and bounded instead
        // (the loop was O(k): ~5 s at k = 1e8, hours at k = 1e12): each term is ≤ its pmf P_j,
        // and below j0 the pmf ratios P_{j−1}/P_j ≤ ρ = j0·q/((k − j0 + 1)p) < 1, so
        // Σ_{j<j0} P_j ≤ P_{j0}·ρ/(1 − ρ), added as one term (≈ e^{−800} of the mode's pmf).
        let j0 = (mode - 40.0 * (k * p * q).sqrt() - 40.0).floor();
        if j0 > jmin + 1.0 {
            let rho = j0 * q / ((k - j0 + 1.0) * p);
            if rho < 1.0 {
                let lb = lpmf(j0) + (rho / (1.0 - rho)).ln() + 1e-6;
                if lb > f64::NEG_INFINITY {
                    // an upper bound already (its 1e-6 covers the double log-pmf's error)
                    add(Dd::from_f64(lb), 0.0, &mut e2, &mut m, &mut acc, &mut err);
                }
                j = j0;
            }
        }
        while j <= k {
            let x = xj(j);
            if x < 0.0 {
                let lpj = lpmf(j);
                let l1 = log1mexp(x);
                let lt = lpj + l1;
                if lt == f64::NEG_INFINITY {
                    j += 1.0; // (a pmf that underflows its own log: q = 0 for ε0 > 745)
                    continue;
                }
                match &bdd {
                    // (a term below e^{−25} of the largest so far keeps the double path: its
                    // share of the sum is ≤ e^{−25}, the 48 ulp then ≤ 1e-24 relative)
                    Some(bd) if (lt.abs() > DD_FROM || k - j < 0.25 * k) && lt > m - 25.0 => {
                        // ln(1 − e^x) in double: ≤ 3u + 2u|·| for the kernels, and the
                        // rounding of x (≤ u|x|) moves it by ≤ u|x|e^x/(1 − e^x) ≤ u
                        let (lpd, el) = bd.log_pmf(j);
                        let el = el + 4.0 * U + 4.0 * U * l1.abs();
                        add(lpd.add_f(l1), el, &mut e2, &mut m, &mut acc, &mut err);
                    }
                    _ => add(
                        Dd::from_f64(lt),
                        el_double(lt),
                        &mut e2,
                        &mut m,
                        &mut acc,
                        &mut err,
                    ),
                }
                if j > mode + 1.0 && j < k {
                    // the rest: Σ_{i>j} T_i ≤ Σ_{i>j} P_i ≤ P_j·ρ'/(1 − ρ'), ρ' = P_{j+1}/P_j
                    // < 1 past the mode (ratios decrease); stop once that is e^{−60} of the
                    // largest term, and add the bound (the cut had been a heuristic on T_j)
                    let rho = (k - j) * p / ((j + 1.0) * q);
                    if rho < 1.0 {
                        let lr = lpj + (rho / (1.0 - rho)).ln() + 1e-6;
                        if lr < m - 60.0 {
                            if lr > f64::NEG_INFINITY {
                                add(Dd::from_f64(lr), 0.0, &mut e2, &mut m, &mut acc, &mut err);
                            }
                            break;
                        }
                    }
                }
            }
            j += 1.0;
        }
        if acc.s > 0.0 {
            // the compensated sum of positive terms is within 2u + O(N u²) of Σ v; the
            // terms' own errors are in `err` (first order: each ≤ 1e-12 relative)
            let sv = add_up(
                add_up(acc.value(), err * (1.0 + 1e-3)),
                3.0 * U * acc.s.abs(),
            );
            sum = scale2(sv, e2);
        }
    }
    // the last roundings (a, b within a few ulp each; the 2^-1074 of a subnormal sum) are
    // covered by `up` (2^-46 relative + 4·2^-1074)
    let d = a + b * sum;
    Ok(up(d).min(1.0))
}

/// Smallest ε ≥ 0 with [`approx_dp_composition_delta`]`(eps0, delta0, k, ε) ≤ delta` (+∞ if
/// the δ0 atoms alone, 1 − (1−δ0)^k, reach δ). δ(ε) is continuous and decreasing; the root is
/// bisected to adjacent doubles and the certified end returned (an upper bound).
pub fn approx_dp_composition_epsilon(eps0: f64, delta0: f64, k: f64, delta: f64) -> Result<f64> {
    check_eps_delta(eps0, delta0)?;
    check_kov_k(k)?;
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    let f = |e: f64| approx_dp_composition_delta(eps0, delta0, k, e).unwrap_or(1.0);
    if f(0.0) <= delta {
        return Ok(0.0);
    }
    // all finite losses are ≤ k·ε0: δ(k ε0) is the atom part alone
    let mut hi = up(k * eps0);
    if f(hi) > delta {
        // The certified δ(kε0) = up(atom) is 2^-46 above the atom; when the atom itself is
        // ≤ δ (decided in double-double below), the exact δ(ε) = atom ≤ δ for ε ≥ kε0, so kε0
        // (rounded up) is a sound ε — and 0 when ε0 = 0 (every loss is 0: δ(ε) = atom for all
        // ε ≥ 0). (It returned +∞ when the atom was below δ by less than 2^-46 relative.)
        return Ok(match atom_at_most(delta0, k, delta) {
            Some(true) if eps0 == 0.0 => 0.0,
            Some(true) => hi,
            _ => f64::INFINITY,
        });
    }
    let mut lo = 0.0f64;
    for _ in 0..2100 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) <= delta {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi)
}

/// Whether the atom 1 − (1−δ0)^k is ≤ δ (δ in (0, 1)): ⇔ k·ln(1−δ0) ≥ ln(1−δ), both sides in
/// double-double (log1p_dd / ln_dd: relative error ~2^-100; the product by the integer k adds
/// ~2^-104), compared with a margin of 2^-90 of their magnitudes. `None` when the two sides
/// are within the margin (undecided: the caller stays conservative).
fn atom_at_most(delta0: f64, k: f64, delta: f64) -> Option<bool> {
    if delta0 >= 1.0 {
        return Some(false); // atom = 1 > δ
    }
    if delta0 == 0.0 {
        return Some(true); // atom = 0
    }
    let l1 = log1p_dd(Dd::from_f64(-delta0)).mul_f(k);
    let l2 = log1p_dd(Dd::from_f64(-delta));
    let d = l1 - l2;
    let m = (l1.hi.abs() + l2.hi.abs()) * 8.077_935_669_463_161e-28; // 2^-90
    if !(d.hi.is_finite() && m.is_finite()) {
        return None;
    }
    if d.hi > m {
        Some(true)
    } else if d.hi < -m {
        Some(false)
    } else {
        None
    }
}

/// The single-point route of multi-epoch composition (Sordello–Bu–Dong §5): for each candidate
/// (ε0_i, δ0_i) of the per-epoch profile, the exact E-fold composition of f_{ε0,δ0} (KOV)
/// inverted at `delta`; the minimum over i (every candidate is a valid certificate).
pub fn single_point_composed_epsilon(
    eps0: &[f64],
    delta0: &[f64],
    epochs: f64,
    delta: f64,
) -> Result<f64> {
    PabiError::same_lengths("eps0", eps0.len(), "delta0", delta0.len())?;
    let mut best = f64::INFINITY;
    for i in 0..eps0.len() {
        check_eps_delta(eps0[i], delta0[i]).map_err(|e| e.at(i))?;
        // the atoms alone: 1 − (1−δ0)^E ≥ δ → no certificate from this point
        if -(epochs * (-delta0[i]).ln_1p()).exp_m1() >= delta {
            continue;
        }
        best = best.min(approx_dp_composition_epsilon(
            eps0[i], delta0[i], epochs, delta,
        )?);
    }
    Ok(best)
}

/// The trade-off function f_{ε,δ}(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)}
/// (Dong–Roth–Su eq. (5)), evaluated without forming e^ε (stable for ε up to f64::MAX). Rounded down: a trade-off
/// curve is a lower bound on the type II error, so a smaller value is the conservative side.
pub fn tradeoff_eps_delta(alpha: f64, eps: f64, delta: f64) -> Result<f64> {
    check_eps_delta(eps, delta)
        .map_err(|e| e.renamed(|p| if p == "eps0" { "eps" } else { "delta" }))?;
    if !(0.0..=1.0).contains(&alpha) {
        return Err(PabiError::domain("type1_error", "in [0, 1]", alpha));
    }
    // Error bound (u = 2^-53; std's exp is faithful, < 1 ulp ≤ 2u relative; checked below
    // against 50-digit mpmath in tests/test_hardening_found_rdp_tradeoff.py):
    // p1: r = fl(1 − δ) is exact for δ ≥ ½ (Sterbenz), else within u·r. t = α·e^ε by
    // `alpha_exp`, within 6u·t + 2^-1023 (it was e^{ε + ln α}: the ulp of ln α, |ln α| ≤ 745,
    // is amplified by the exponential to |ln α|·2u relative, 36·2u at α = 2.2e-16, and the
    // margin 8u·(r + t) did not cover it: 6.2e-31 against the exact 2.5e-31). fl(r − t) adds
    // u·(r + t); the margin EPS4·(r + t) = 8u·(r + t) ≥ 2u·r + 7u·t + 2^-1023 (r ≥ 2^-53 when
    // δ < 1; r = 0 makes p1 ≤ 0), so p1 ≤ 1 − δ − α e^ε.
    let r = 1.0 - delta;
    let p1 = if alpha > 0.0 {
        let t = alpha_exp(alpha, eps);
        r - t - EPS4 * (r + t)
    } else {
        r
    };
    // p2: 1 − α − δ = s2 + e2 + e1 exactly, (s1, e1) = two_sum(1, −α), (s2, e2) = two_sum(s1,
    // −δ); the last two additions are within (u + 4u²)·|1 − α − δ| (if δ/2 ≤ s1 ≤ 2δ then
    // e2 = 0 (Sterbenz) and one rounding remains; else |s2| ≥ s1/2 ≥ |e1|/(2u) and
    // |e1 + e2| ≤ 3u|s2|, no cancellation). The former s1 + (e1 − δ) rounded e1 − δ to the
    // grid of δ: an absolute error of ½ulp(δ), 23% of 1 − α − δ = 9.0e-17 at δ = 0.948
    // (1.1e-16 returned). With e^{−ε} (< 1 ulp) and the product (½ ulp): ≤ 4.1u relative, and
    // a subnormal product ≤ 2^-1075 absolute, both covered by `down` (2^-46 − 2^-53 relative,
    // − TINY).
    let (s1, e1) = crate::dd::two_sum(1.0, -alpha);
    let (s2, e2) = crate::dd::two_sum(s1, -delta);
    let p2 = (-eps).exp() * (s2 + (e1 + e2));
    Ok(crate::num::down(p1.max(p2).max(0.0)))
}

/// α·e^ε for α ∈ (0, 1], ε ≥ 0, within 6u + O(u²) relative plus 2^-1023 absolute (+∞ when it
/// overflows, i.e. when it exceeds 1 by far): h = e^{ε/2} (ε/2 exact, h faithful: ≤ 2u, and
/// finite for ε < 1419; beyond, α e^ε ≥ 2^-1074·e^{1419} > 1), then (α·h)·h, two roundings of
/// ≤ u each. α·h ≥ α is normal unless α·h < 2^-1022, which needs h < 2^52: its absolute error
/// ≤ 2^-1075 grows to ≤ 2^-1023 after the second product.
fn alpha_exp(alpha: f64, eps: f64) -> f64 {
    let h = (0.5 * eps).exp();
    (alpha * h) * h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kov_brute_force() {
        // E = 4 brute force over the four-point PLRV
        let (e0, d0, k, e) = (0.5f64, 1e-3f64, 4.0f64, 0.7f64);
        let p = 1.0 / (1.0 + (-e0).exp());
        let mut s = 0.0;
        for j in 0..=4u32 {
            let c = [1.0, 4.0, 6.0, 4.0, 1.0][j as usize];
            let l = (2.0 * j as f64 - 4.0) * e0;
            if l > e {
                s += c * p.powi(j as i32) * (1.0 - p).powi(4 - j as i32) * (1.0 - (e - l).exp());
            }
        }
        let want = 1.0 - (1.0 - d0).powi(4) + (1.0 - d0).powi(4) * s;
        let got = approx_dp_composition_delta(e0, d0, k, e).unwrap();
        assert!((got / want - 1.0).abs() < 1e-13 && got >= want);
    }
}
