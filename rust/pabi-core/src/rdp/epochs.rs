//! Composition of one RDP curve with itself: k runs of the same mechanism (k training steps of
//! DP-SGD, k epochs of a per-epoch curve). By additive composition of RDP (Mironov 2017,
//! Prop. 1) the composed curve is k·ε(α) at every order α (docs/derivations/rdp.md).
//!
//! The product is rounded up exactly (the fma residual decides), so the composed value is the
//! smallest double ≥ the exact k·ε(α): never below the exact product, and never below the
//! round-to-nearest product the Python layer used to form.

use crate::error::{PabiError, Result};
use crate::num::round::mul_up;

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
