//! Binomial log-pmf ln pmf_{Bin(n, q)}(k) by Loader's saddle-point form (Loader 2000, "Fast and
//! accurate computation of binomial probabilities", as in R's `dbinom_raw`): stirlerr + the
//! deviance bd0, with no ln C(n, k) cancellation, accurate for n up to 1e7. Used by the
//! sampled Gaussian tables (`sampled_gaussian.rs`; docs/derivations/rdp.md).

const LN_2PI: f64 = 1.837_877_066_409_345_5;

// ---------------------------------------------------------------------------------------------
// Binomial log-pmf (Loader 2000, as in R's dbinom_raw), with the deviance terms built from
// exactly known differences so that no 1 − q or n·(1 − q) rounding enters.

#[allow(clippy::excessive_precision)]
const STIRLERR: [f64; 16] = [
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

/// stirlerr(n) = ln n! − (n + ½) ln n + n − ½ ln 2π for integer n ≥ 0.
fn stirlerr(n: u64) -> f64 {
    if n < 16 {
        return STIRLERR[n as usize];
    }
    const S0: f64 = 1.0 / 12.0;
    const S1: f64 = 1.0 / 360.0;
    const S2: f64 = 1.0 / 1260.0;
    const S3: f64 = 1.0 / 1680.0;
    const S4: f64 = 1.0 / 1188.0;
    let x = n as f64;
    let nn = x * x;
    if n > 500 {
        (S0 - S1 / nn) / x
    } else if n > 80 {
        (S0 - (S1 - S2 / nn) / nn) / x
    } else if n > 35 {
        (S0 - (S1 - (S2 - S3 / nn) / nn) / nn) / x
    } else {
        (S0 - (S1 - (S2 - (S3 - S4 / nn) / nn) / nn) / nn) / x
    }
}

/// Deviance bd0(x, M) = x ln(x/M) + M − x ≥ 0, given x, d = x − M, s = x + M and
/// ln(x/M) (the latter only used away from x ≈ M).
fn bd0(x: f64, d: f64, s: f64, ln_ratio: impl Fn() -> f64) -> f64 {
    if d.abs() < 0.1 * s {
        let mut v = d / s;
        let mut acc = d * v;
        let mut ej = 2.0 * x * v;
        v *= v;
        for j in 1..1000 {
            ej *= v;
            let next = acc + ej / (2 * j + 1) as f64;
            if next == acc {
                return next;
            }
            acc = next;
        }
        acc
    } else {
        x * ln_ratio() - d
    }
}

/// ln pmf_{Bin(n, q)}(k) for 0 < q < 1, 0 ≤ k ≤ n (lq = ln q, l1q = ln(1 − q)).
pub(super) fn log_binom_pmf(k: u64, n: u64, q: f64, lq: f64, l1q: f64) -> f64 {
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
    let b1 = bd0(kf, kf - np, kf + np, || f64::ln(kf / nf) - lq);
    // bd0(n − k, n(1 − q)): d = nq − k, s = 2n − k − nq, ln = log1p(−k/n) − ln(1 − q).
    let b2 = bd0(mf, np - kf, mf + (nf - np), || f64::ln_1p(-kf / nf) - l1q);
    let lc = stirlerr(n) - stirlerr(k) - stirlerr(n - k) - b1 - b2;
    let lf = LN_2PI + f64::ln(kf) + f64::ln_1p(-kf / nf);
    lc - 0.5 * lf
}
