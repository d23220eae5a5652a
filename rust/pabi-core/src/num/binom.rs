//! The binomial log-pmf by Loader's saddle-point method (C. Loader, *Fast and accurate
//! computation of binomial probabilities*, 2000; the algorithm of R's `dbinom_raw`):
//! ln C(n, k) q^k (1 − q)^(n−k) = stirlerr(n) − stirlerr(k) − stirlerr(n − k)
//! − bd0(k, nq) − bd0(n − k, n(1 − q)) − ½ ln(2π k (n − k)/n), with full relative accuracy
//! (no cancellation between the huge ln-factorials and the ln-powers).
//!
//! Two variants, copied verbatim from the two modules that use them; they are **not**
//! bit-identical and are kept apart under precise names:
//!
//! * [`log_binom_pmf_int`] (from `rdp.rs`, the sampled Gaussian's binomial terms): integer
//!   k, n (`u64`); the deviances are formed from exactly known differences (d = k − nq,
//!   s = k + nq; for n − k: d = nq − k, s = (n − k) + (n − nq)), and away from the series the
//!   deviance is x·ln(x/M) − d with ln(x/M) = ln(k/n) − ln q, resp. log1p(−k/n) − ln(1 − q),
//!   so no 1 − q or n(1 − q) rounding enters.
//! * [`log_binom_pmf_dev`] (from `pld.rs`, the Kairouz–Oh–Viswanath composition): k, n as
//!   `f64`, the caller supplies d = k − np; away from the series the deviance is
//!   x·ln(x/m) + m − x with m = np (resp. nq) formed here. Its series loop is capped at 2000
//!   steps (1000 in the other; both converge in < 30 since |v| < 0.1), and ln 2π comes from
//!   `(2.0 * PI).ln()` = [`super::consts::LN_2PI_RUNTIME`], one ulp **below** the correctly
//!   rounded [`super::consts::LN_2PI`] that the other variant adds.
//!
//! The Stirling-error tables of the two copies differ in one entry: n = 14 is one ulp higher
//! in `rdp.rs`'s ([`STIRLERR_ENTRY14_UP`]) than in `pld.rs`'s correctly rounded
//! [`STIRLERR_NEAREST`]; both are kept. Apart from n = 14 the two `stirlerr` agree bit for bit
//! on integers (checked by a test; the `f64` one also accepts non-integers).

use super::consts::LN_2PI;
use super::dd::{ln_dd, Dd};

/// Relative error of the double-double quantities of [`bd0_dd`] (2^-100 per operation, a few
/// dozen of them; the series' cut is bounded apart): a generous bound.
const DD_REL: f64 = 1.0e-28;

/// stirlerr(n) for n = 0..15 as written in `rdp.rs`: entry 14 (0.005951370112758848) is one
/// ulp **above** the correctly rounded value (see [`STIRLERR_NEAREST`]); every other entry is
/// the same double.
#[allow(clippy::excessive_precision)]
pub const STIRLERR_ENTRY14_UP: [f64; 16] = [
    0.0,
    0.081_061_466_795_327_258,
    0.041_340_695_955_409_294,
    0.027_677_925_684_998_339,
    0.020_790_672_103_765_093,
    0.016_644_691_189_821_192,
    0.013_876_128_823_070_748,
    0.011_896_709_945_891_770,
    0.010_411_265_261_972_096,
    0.009_255_462_182_712_733,
    0.008_330_563_433_362_871,
    0.007_573_675_487_951_841,
    0.006_942_840_107_209_530,
    0.006_408_994_188_004_207,
    0.005_951_370_112_758_848,
    0.005_554_733_551_962_801,
];

/// stirlerr(n) for n = 0..15 (Loader's table) as written in `pld.rs`: every entry is the
/// correctly rounded value (checked with mpmath at 40 digits).
#[allow(clippy::excessive_precision)]
pub const STIRLERR_NEAREST: [f64; 16] = [
    0.0,
    0.08106146679532726,
    0.0413406959554093,
    0.02767792568499834,
    0.020790672103765093,
    0.016644691189821193,
    0.013876128823070748,
    0.01189670994589177,
    0.010411265261972096,
    0.009255462182712733,
    0.00833056343336287,
    0.007573675487951841,
    0.00694284010720953,
    0.006408994188004207,
    0.0059513701127588475,
    0.005554733551962801,
];

const S0: f64 = 1.0 / 12.0;
const S1: f64 = 1.0 / 360.0;
const S2: f64 = 1.0 / 1260.0;
const S3: f64 = 1.0 / 1680.0;
const S4: f64 = 1.0 / 1188.0;

/// stirlerr(n) = ln n! − (n + ½) ln n + n − ½ ln 2π for integer n ≥ 0 (from `rdp.rs`).
pub fn stirlerr_u64(n: u64) -> f64 {
    if n < 16 {
        return STIRLERR_ENTRY14_UP[n as usize];
    }
    stirlerr_series(n as f64)
}

/// stirlerr(n) for n ≥ 1 given as a double (from `pld.rs`; n ≤ 15 is looked up at ⌊n⌋).
pub fn stirlerr_f64(n: f64) -> f64 {
    if n <= 15.0 {
        return STIRLERR_NEAREST[n as usize];
    }
    stirlerr_series(n)
}

/// stirlerr(n) for n > 15 by its asymptotic series in 1/n², with fewer terms as n grows.
#[inline(always)]
fn stirlerr_series(n: f64) -> f64 {
    let nn = n * n;
    if n > 500.0 {
        (S0 - S1 / nn) / n
    } else if n > 80.0 {
        (S0 - (S1 - S2 / nn) / nn) / n
    } else if n > 35.0 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / n
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / n
    }
}

/// The series of bd0 near x ≈ M (|d| < 0.1·s, d = x − M, s = x + M): d·v + Σ_{j≥1}
/// 2x·v^{2j+1}/(2j + 1), v = d/s, summed until a term leaves the sum unchanged (≤ ~15 terms:
/// v² < 0.01).
#[inline(always)]
fn bd0_series(x: f64, d: f64, s: f64) -> f64 {
    let v = d / s;
    let mut acc = d * v;
    let mut ej = 2.0 * x * v;
    let v2 = v * v;
    for j in 1..2000 {
        ej *= v2;
        let next = acc + ej / (2 * j + 1) as f64;
        if next == acc {
            return next;
        }
        acc = next;
    }
    acc
}

/// bd0(x, M) = x ln(x/M) + M − x in double-double, given d = x − M and s = x + M, with a bound
/// on its absolute error (the double-double twin of [`bd0_ratio`], for the KOV composition's
/// log-pmf; [`DD_REL`] covers the double-double operations' relative error).
pub fn bd0_dd(x: f64, m: Dd, d: Dd, s: Dd) -> (Dd, f64) {
    if d.hi.abs() < 0.1 * s.hi {
        // d·v + Σ_{j≥1} 2x·v^{2j+1}/(2j + 1), v = d/s, v² < 0.01: the series terms have
        // the sign of d, the first is ≤ (2/3)|v| ≤ 0.07 of d·v ≥ 0 (2x ≤ 2s), and they fall
        // by ≥ 100 per step; cut below 1e-24 of the sum (the remainder is ≤ 0.0102 of the
        // last term)
        let v = d / s;
        let v2 = v.sqr();
        let mut acc = d * v;
        let mut ej = v.mul_f(2.0 * x);
        for j in 1..200 {
            ej = ej * v2;
            let t = ej.div_f((2 * j + 1) as f64);
            acc = acc + t;
            if t.hi.abs() <= 1e-24 * acc.hi.abs() {
                break;
            }
        }
        (acc, (DD_REL + 2e-24) * acc.hi.abs())
    } else {
        let xl = ln_dd(Dd::from_f64(x) / m).mul_f(x);
        let b = xl - d;
        (b, DD_REL * (xl.hi.abs() + d.hi.abs()))
    }
}

/// Deviance bd0(x, M) = x ln(x/M) + M − x ≥ 0, given x, d = x − M, s = x + M and
/// ln(x/M) (the latter only used away from x ≈ M) (from `rdp.rs`).
pub fn bd0_ratio(x: f64, d: f64, s: f64, ln_ratio: impl Fn() -> f64) -> f64 {
    if d.abs() < 0.1 * s {
        bd0_series(x, d, s)
    } else {
        x * ln_ratio() - d
    }
}

/// x·ln(x/m) + m − x without cancellation; `d` = x − m computed accurately by the caller
/// (from `pld.rs`).
pub fn bd0_direct(x: f64, m: f64, d: f64) -> f64 {
    if d.abs() < 0.1 * (x + m) {
        return bd0_series(x, d, x + m);
    }
    x * (x / m).ln() + m - x
}

/// ln pmf_{Bin(n, q)}(k) for 0 < q < 1, 0 ≤ k ≤ n (lq = ln q, l1q = ln(1 − q)): the variant
/// of `rdp.rs` (see the module docs).
pub fn log_binom_pmf_int(k: u64, n: u64, q: f64, lq: f64, l1q: f64) -> f64 {
    if k == 0 {
        return n as f64 * l1q;
    }
    if k == n {
        return n as f64 * lq;
    }
    let (kf, nf) = (k as f64, n as f64);
    let mf = (n - k) as f64;
    let np = nf * q;
    // bd0(k, n q): d = k − nq, s = k + nq, ln(k/(nq)) = ln(k/n) − ln q.
    let b1 = bd0_ratio(kf, kf - np, kf + np, || f64::ln(kf / nf) - lq);
    // bd0(n − k, n(1 − q)): d = nq − k, s = 2n − k − nq, ln = log1p(−k/n) − ln(1 − q).
    let b2 = bd0_ratio(mf, np - kf, mf + (nf - np), || f64::ln_1p(-kf / nf) - l1q);
    let lc = stirlerr_u64(n) - stirlerr_u64(k) - stirlerr_u64(n - k) - b1 - b2;
    let lf = LN_2PI + f64::ln(kf) + f64::ln_1p(-kf / nf);
    lc - 0.5 * lf
}

/// ln of the binomial pmf C(n,x) p^x q^(n−x), full relative precision (Loader's saddle point);
/// `d` = x − n·p computed accurately by the caller: the variant of `pld.rs` (see the module
/// docs).
pub fn log_binom_pmf_dev(x: f64, n: f64, p: f64, q: f64, lp: f64, lq: f64, d: f64) -> f64 {
    if x == 0.0 {
        return n * lq;
    }
    if x == n {
        return n * lp;
    }
    let lc = stirlerr_f64(n)
        - stirlerr_f64(x)
        - stirlerr_f64(n - x)
        - bd0_direct(x, n * p, d)
        - bd0_direct(n - x, n * q, -d);
    let lf = (2.0 * std::f64::consts::PI).ln() + x.ln() + (-x / n).ln_1p();
    lc - 0.5 * lf
}

#[cfg(test)]
#[path = "binom_tests.rs"]
mod tests;
