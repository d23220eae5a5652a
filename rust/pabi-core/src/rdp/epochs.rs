//! Composition of one RDP curve with itself: k runs of the same mechanism (k training steps of
//! DP-SGD, k epochs of a per-epoch curve). By additive composition of RDP (Mironov 2017,
//! Prop. 1) the composed curve is k·ε(α) at every order α (docs/derivations/rdp.md).
//!
//! The product is rounded up exactly (the fma residual decides), so the composed value is the
//! smallest double ≥ the exact k·ε(α): never below the exact product, and never below the
//! round-to-nearest product the Python layer used to form.

use super::scalar::{ldexp_once, mantissa_product, mul0};
use crate::error::{PabiError, Result};
use crate::num::round::{mul_up, up_signed, INFLATE, TINY};

/// The largest k accepted: every integer up to 2^53 is an exact double.
pub const MAX_SCALE: f64 = 9_007_199_254_740_992.0;

/// out[j] = k·curve[j] rounded up, the curve of `k` compositions of a mechanism whose RDP curve
/// is `curve` (values ≥ 0, +inf allowed: "no guarantee at this order" stays +inf).
///
/// Domain: `k` an integer in [1, 2^53] (DomainError on `k`), every curve value ≥ 0 and not NaN
/// (DomainError on `curve` with the first bad index), `out` as long as `curve`.
pub fn rdp_scale(curve: &[f64], k: f64, out: &mut [f64]) -> Result<()> {
    if !((1.0..=MAX_SCALE).contains(&k) && k == k.floor()) {
        return Err(PabiError::domain("k", "an integer in [1, 2^53]", k));
    }
    if out.len() != curve.len() {
        return Err(PabiError::Shape {
            message: format!(
                "out has length {}, expected the curve's length {}",
                out.len(),
                curve.len()
            ),
        });
    }
    crate::batch::check(curve, "curve", ">= 0 (not NaN; +inf allowed)", |x| x >= 0.0)?;
    for (o, &e) in out.iter_mut().zip(curve) {
        *o = mul_up(k, e);
    }
    Ok(())
}

/// The last factor of the multi-epoch sensitivity (Chen et al. 2019 Prop. 2, `erm.rs`):
/// ρ^x·2·η·R/|B|·ratio rounded up, with ln ρ ≤ `l_up` ≤ 0 and `pw` = the caller's upper bound
/// of e^{x·l_up}.
///
/// Where every partial product of the plain chain (pw·2·η·R/|B|, then ·ratio) is a normal
/// double, the result is the plain chain's `up_signed` (the same bits as before). Otherwise the
/// chain lost digits to underflow (e^{x·l_up} < 2^-1022: ρ = ½ at x = 1099 gave 0, exact
/// 1.47e-331; a subnormal product gave 5.7448057e-315, exact 5.7448057622597e-315) or to an
/// overflow that a later factor undid, and the value is formed apart from its exponent:
/// x·l_up = y_h + y_l exactly (FMA), e^y = 2^n·e^r with n = round(y_h/ln 2) and
/// r = (y_h − n·LN2_HI) − n·LN2_LO + y_l (n·LN2_HI exact for |n| < 2^21, the difference exact
/// by Sterbenz, |r| ≤ 0.35: error ≤ 2u), e^r within 2u (std's faithful exp), the factors'
/// mantissas multiplied in (≤ 5 roundings, each ≤ u), so the mantissa is within 10u of the
/// exact one; it is raised by 2^-46 (≥ 10u + the u of that product), scaled by 2^(exponent)
/// with ONE rounding (≤ 2^-1075 below the normal range), and [`TINY`] (8·2^-1075) added.
/// So the result is ≥ the exact value, relatively within 2^-45 of it where normal and within
/// `TINY` + a subnormal ulp where not (an exact value below 2^-1074 gives `TINY`).
#[allow(clippy::too_many_arguments)]
pub(super) fn contraction_sensitivity_up(
    x: f64,
    l_up: f64,
    pw: f64,
    eta: f64,
    grad: f64,
    batch: f64,
    ratio: f64,
) -> f64 {
    let a = pw * 2.0;
    let b = a * eta;
    let c = b * grad;
    let d = c / batch;
    let v = mul0(d, ratio);
    let normal = |z: f64| (f64::MIN_POSITIVE..=f64::MAX).contains(&z);
    let exact_zero = grad == 0.0 || ratio == 0.0 || (pw == 0.0 && l_up == f64::NEG_INFINITY);
    if exact_zero || [pw, a, b, c, d, v].iter().all(|&z| normal(z)) {
        return up_signed(v);
    }
    if ratio == f64::INFINITY {
        return f64::INFINITY; // (the other factors are positive: no exact zero)
    }
    // y = x·ln ρ (upper end) exactly as y_h + y_l; x = 0 gives ρ^0 = 1 even at ln ρ = −∞
    let (yh, yl) = if x == 0.0 {
        (0.0, 0.0)
    } else {
        let yh = x * l_up;
        (yh, x.mul_add(l_up, -yh))
    };
    if yh < -1e5 {
        // 2ηR·ratio/|B| < 2^3200 < e^2300 for doubles (ratio ≤ k ≤ 2^64): the exact value is
        // below e^-97000, far under 2^-1074
        return TINY;
    }
    const LN2: f64 = std::f64::consts::LN_2;
    #[allow(clippy::excessive_precision)]
    const LN2_HI: f64 = 6.931_471_803_691_238_164_9e-1; // 0x3fe62e42fee00000: 32 bits
    #[allow(clippy::excessive_precision)]
    const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
    let n = (yh / LN2).round();
    let r = (yh - n * LN2_HI) - n * LN2_LO + yl;
    let (q, e) = mantissa_product((r.exp(), n as i64), &[2.0, eta, grad, ratio], &[batch]);
    ldexp_once(q * (1.0 + INFLATE), e) + TINY
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scale(curve: &[f64], k: f64) -> Result<Vec<f64>> {
        let mut out = vec![0.0; curve.len()];
        rdp_scale(curve, k, &mut out).map(|()| out)
    }

    /// The exact product k·e as a pair (hi, lo) with hi + lo = k·e exactly.
    fn exact(k: f64, e: f64) -> (f64, f64) {
        let p = k * e;
        (p, k.mul_add(e, -p))
    }

    #[test]
    fn epochs_scale_is_the_ceiling_of_the_exact_product() {
        let curve = [
            0.0,
            1e-300,
            0.1,
            0.3,
            1.0 / 3.0,
            2.5,
            7.0e10,
            1.7e308,
            f64::INFINITY,
        ];
        for &k in &[1.0, 2.0, 3.0, 7.0, 1000.0, 123_456_789.0, MAX_SCALE] {
            let out = scale(&curve, k).unwrap();
            for (&e, &v) in curve.iter().zip(&out) {
                let (p, r) = exact(k, e);
                if !p.is_finite() {
                    assert_eq!(v, f64::INFINITY, "k = {k}, e = {e}");
                    continue;
                }
                // never below the exact product nor below the product rounded to nearest ...
                assert!(v >= p, "k = {k}, e = {e}");
                assert!(
                    v > p || r <= 0.0,
                    "k = {k}, e = {e}: below the exact product"
                );
                // ... and the smallest such double
                assert!(v == p || (v == p.next_up() && r > 0.0), "k = {k}, e = {e}");
            }
        }
    }

    #[test]
    fn epochs_scale_known_values() {
        // 3·0.1 is 0.30000000000000004 to nearest, which is above the exact product: kept
        assert_eq!(scale(&[0.1], 3.0).unwrap(), vec![0.30000000000000004]);
        // 10·0.1 rounds to nearest to 1.0, below the exact 10·0x1.999999999999ap-4: one ulp up
        assert_eq!(scale(&[0.1], 10.0).unwrap(), vec![1.0f64.next_up()]);
        assert_eq!(scale(&[0.3], 3.0).unwrap(), vec![0.9]);
        // exact products are kept
        assert_eq!(scale(&[0.5, 0.0], 4.0).unwrap(), vec![2.0, 0.0]);
        assert_eq!(scale(&[0.1], 1.0).unwrap(), vec![0.1]);
    }

    /// `erm::sensitivity_multi_epoch` (one epoch count: None), whose tail is
    /// [`contraction_sensitivity_up`].
    fn sensitivity(eta: f64, mu: f64, smooth: f64, grad: f64, batch: f64, m: u64, j: u64) -> f64 {
        super::super::erm::sensitivity_multi_epoch(eta, mu, smooth, grad, batch, m, j, None)
            .unwrap()
    }

    /// The multi-epoch sensitivity's underflowing tail (bug hunt): exact values by
    /// `pabi.reference.sensitivity_multi_epoch` at dps 50 (confirmed at 80). Before: 5.7448057e-315
    /// (−1.1e-8 relative, a truncated subnormal) and 0.0 (below the exact 1.47e-331).
    #[test]
    #[allow(clippy::excessive_precision)]
    fn epochs_contraction_sensitivity_subnormal() {
        let v = sensitivity(
            148.412_627_206_364_85,
            0.005_414_211_143_443_689,
            0.005_729_923_351_350_138,
            53.815_518_337_202_45,
            2.631_368_728_903_077_6,
            2182,
            1732,
        );
        let exact = 5.744_805_762_259_706_5e-315; // 5.744805762259706477e-315
        let step = 5e-324;
        println!("repro 1: {v:?} ({} steps above)", (v - exact) / step);
        assert!(v >= exact && v <= exact + 12.0 * step, "{v:e}");
        let v = sensitivity(0.5, 1.0, 1.0, 1.0, 1.0, 1100, 1);
        // exact 2^-1099·(1 − 2^-1100)^-1 = 1.4724303658045725e-331 < 2^-1074: the TINY floor
        println!("repro 2: {v:?}");
        assert!(v > 0.0 && v <= TINY, "{v:e}");
        // a normal chain keeps the plain up_signed (same bits as before)
        let (pw, eta, grad, batch, ratio) = (0.25, 0.5, 3.0, 7.0, 1.5);
        assert_eq!(
            contraction_sensitivity_up(2.0, 0.5f64.ln(), pw, eta, grad, batch, ratio),
            up_signed(pw * 2.0 * eta * grad / batch * ratio)
        );
        // exact zeros stay 0; an infinite ratio stays +inf even when the chain underflowed
        assert_eq!(
            contraction_sensitivity_up(3.0, -1.0, 0.05, 0.5, 0.0, 1.0, 2.0),
            0.0
        );
        assert_eq!(
            contraction_sensitivity_up(3.0, f64::NEG_INFINITY, 0.0, 0.5, 1.0, 1.0, 2.0),
            0.0
        );
        assert_eq!(
            contraction_sensitivity_up(1e3, -1.0, 0.0, 0.5, 1.0, 1.0, f64::INFINITY),
            f64::INFINITY
        );
        // e^-1000·2·1e300/4 = 2.54e-135: normal, but the plain chain underflowed at e^-1000;
        // exact 2.5379794487747285159e-135 (mpmath, dps 50: exp(-1000)*mpf(1e300)/2)
        let v = contraction_sensitivity_up(1000.0, -1.0, 0.0, 1.0, 1e300, 4.0, 1.0);
        let exact = 2.537_979_448_774_728_5e-135;
        assert!(v >= exact && v <= exact * (1.0 + 1e-13), "{v:e} {exact:e}");
    }

    #[test]
    fn epochs_scale_domain() {
        for &k in &[0.0, -1.0, 1.5, f64::NAN, f64::INFINITY, 2.0 * MAX_SCALE] {
            match scale(&[0.1], k) {
                Err(PabiError::Domain { param, .. }) => assert_eq!(param, "k"),
                other => panic!("k = {k}: {other:?}"),
            }
        }
        match scale(&[0.1, f64::NAN, -1.0], 2.0) {
            Err(PabiError::Domain { param, index, .. }) => {
                assert_eq!((param, index), ("curve", Some(1)))
            }
            other => panic!("{other:?}"),
        }
        assert!(scale(&[-0.0], 2.0).is_ok());
        assert!(matches!(
            rdp_scale(&[0.1], 2.0, &mut [0.0; 2]),
            Err(PabiError::Shape { .. })
        ));
    }
}
