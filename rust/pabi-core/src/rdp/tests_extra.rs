//! Tests of the scalar bounds (`extra`): θ_L, residuals, overflow paths, step conditions.

use super::erm::*;
use super::gaussian_mechanism::*;
use super::general_update::*;
use super::holder::*;
use super::last_iterate::*;
use super::scalar::*;
use super::tests::param_of;
use crate::error::PabiError;

#[test]
fn theta_basics() {
    assert!((theta_l_kappa(0.0, 7.0).unwrap() * 7.0 - 1.0).abs() < 1e-12);
    assert_eq!(theta_l_kappa(0.3, 1.0).unwrap(), 1.0);
    // L^2 = 2: theta(3) = 4/(1+2+4)
    assert!((theta_l_kappa(1.0, 3.0).unwrap() / (4.0 / 7.0) - 1.0).abs() < 1e-12);
    // L^2 = 1/2: theta(3) = 0.25/(1+0.5+0.25)
    assert!((theta_l_kappa(-0.5, 3.0).unwrap() / (0.25 / 1.75) - 1.0).abs() < 1e-12);
    assert_eq!(theta_l_kappa(-1.0, 3.0).unwrap(), 0.0);
}

#[test]
fn optimal_residuals_cap_and_l_zero() {
    let u12 = lip_u_from_l(1.2).unwrap();
    for t in [crate::rdp::MAX_LEN + 1, 1_000_000_000_000, u64::MAX, 0] {
        assert_eq!(
            param_of(optimal_residuals(u12, t, 0.1, 1.0).unwrap_err()),
            "steps"
        );
    }
    let z = lip_u_from_l(0.0).unwrap();
    assert_eq!(optimal_residuals(z, 5, 1.0, 1.0).unwrap(), vec![0.0; 5]);
    assert_eq!(optimal_residuals(z, 1, 1.0, 2.0).unwrap(), vec![2.0]);
    let r = optimal_residuals(u12, 3, 0.0, 0.0).unwrap();
    assert_eq!(r, vec![0.0; 3]);
}

#[test]
fn no_nan_from_overflow() {
    let e = cyclic_calibration(8.0, 1.0, 1e308, 2.0, 1.0, 10, 5, false).unwrap_err();
    assert_eq!(param_of(e), "weak_convexity");
    let v = hoeffding_sample_size(
        8.0,
        1.0,
        2.0,
        0.1,
        5e-324,
        SampleSizeVariant::Corrected,
        true,
    )
    .unwrap();
    assert!(v.is_finite() && v > 148.0);
    let e = general_update_rdp(3, 5e-324, &[0.0], &[1.0; 3], 1, 1, 1).unwrap_err();
    assert_eq!(param_of(e), "noise_scale");
    let e = general_update_rdp(1 << 62, 1.0, &[0.0], &[0.0; 4], 1, 4, 1).unwrap_err();
    assert!(matches!(e, PabiError::Shape { .. }));
    assert_eq!(gaussian_mech_rdp(2.0, 0.0, 1e-170).unwrap(), 0.0);
    assert_eq!(averaged_rdp(2.0, 1e-170, &[0.0, 0.0]).unwrap(), 0.0);
    assert_eq!(
        shifted_drift_bound(2.0, 1e-170, 0.0, 0.0, 10, 5).unwrap(),
        0.0
    );
    let v = sensitivity_multi_epoch(1e-200, 1e-200, 1e-200, 1.0, 1.0, 2, 1, Some(3)).unwrap();
    assert!(v.is_finite() && v >= 6e-200);
    assert!(gaussian_dp_constant(5e-324, 1.0).unwrap().is_finite());
}

#[test]
fn prod_div_extremes() {
    assert_eq!(prod_div(&[1e300, 1e300, 0.0], &[1e-300]), 0.0);
    assert_eq!(prod_div(&[1e300, f64::INFINITY], &[2.0]), f64::INFINITY);
    assert_eq!(prod_div(&[2.0, 3.0], &[4.0]), 1.5);
    // through overflowing / underflowing partial products, to a few ulp
    let v = prod_div(&[1e300, 1e300, 1e-300], &[1e300]);
    assert!((v - 1.0).abs() < 1e-15, "{v}");
    let v = prod_div(&[1e-200, 1e-200, 1e300], &[1.0]);
    assert!((v / 1e-100 - 1.0).abs() < 1e-15, "{v}");
    let v = prod_div(&[1e-200, 1e-200], &[1e200, 1e200]);
    assert_eq!(v, 0.0); // exact 1e-800: below the subnormals
    let v = prod_div(&[5e-324, 1e300], &[1e300]);
    assert_eq!(v, 5e-324);
    assert_eq!(prod_div(&[1e300, 1e300], &[1e-300]), f64::INFINITY);
    assert_eq!(frexp(8.0), (0.5, 4));
    assert_eq!(frexp(5e-324), (0.5, -1073));
}

#[test]
fn step_condition_and_names() {
    assert_eq!(
        param_of(l_lambda_kappa(1.0, 1.0, 2.0, LipschitzModel::Triangle).unwrap_err()),
        "lr"
    );
    // the double 1/(2(m + M)) itself is accepted
    assert!(l_lambda_kappa(1.0 / 6.0, 1.0, 2.0, LipschitzModel::AsPublished).is_ok());
    assert!(l_lambda_kappa(0.1, 1.0, 4.0, LipschitzModel::Triangle).is_ok());
    assert!(l_lambda_kappa(1e6, 0.0, 0.0, LipschitzModel::Triangle).is_ok());
    assert_eq!(
        param_of(theta_min_steps_l(1.0, 2.0).unwrap_err()),
        "step_lipschitz"
    );
    let v = theta_min_steps_l(1e200, 2.0).unwrap();
    let exact = std::f64::consts::LN_2 / (2.0 * 1e200f64.ln());
    assert!(v >= exact && v < exact * (1.0 + 1e-13));
    let e = sensitivity_multi_epoch(0.5, 1.0, 1.0, 1.0, 0.0, 1, 1, None).unwrap_err();
    assert_eq!(param_of(e), "batch_size");
    assert_eq!(
        param_of(last_iterate_rdp_small_step(2.0, 0.0, 1.0, 1, 1.0, 0).unwrap_err()),
        "batches_per_epoch"
    );
    assert_eq!(
        param_of(shifted_cycle_bound(2.0, 1.0, 0.0, 0.0, 1.0, 10, 0).unwrap_err()),
        "batches_per_epoch"
    );
}

#[test]
fn calibration_k11() {
    // printed sigma certifies 16 alpha^2 eps (C28)
    let (alpha, eps, rho, mm, c, b, e) = (8.0, 1.0, 0.5, 2.0, 1.0, 10, 5);
    let (lam, _, sp) = cyclic_calibration(alpha, eps, rho, mm, c, b, e, true).unwrap();
    let (_, _, sc) = cyclic_calibration(alpha, eps, rho, mm, c, b, e, false).unwrap();
    let f = 1.0 + 4.0 * rho * e as f64 / (mm + rho);
    let cert = |s: f64| 4.0 * alpha * (lam * c / (b as f64 * s)).powi(2) * f;
    assert!((cert(sp) / (16.0 * alpha * alpha * eps) - 1.0).abs() < 1e-12);
    assert!(cert(sc) <= eps && cert(sc) > eps * (1.0 - 1e-12));
}

#[test]
fn smooth_step_bounds_are_the_two_step_composition() {
    // κ from (λ, m, M) then the bound: the same bits as the former binding's two calls
    for &model in &[LipschitzModel::Triangle, LipschitzModel::AsPublished] {
        let (lam, m, big_m) = (0.01, 1.0, 3.0);
        let k = smooth_step_kappa(lam, m, big_m, model).unwrap();
        let a = last_iterate_rdp_bounded_smooth(4.0, lam, m, big_m, 2.0, 1.0, 8, 1.5, model);
        let b = last_iterate_rdp_bounded(4.0, k, 2.0, lam, 1.0, 8, 1.5);
        assert_eq!(a.unwrap().to_bits(), b.unwrap().to_bits());
        let a = last_iterate_rdp_cyclic_smooth(
            4.0,
            lam,
            m,
            big_m,
            1.0,
            8,
            1.5,
            50,
            7,
            Some(3),
            false,
            model,
        );
        let b = last_iterate_rdp_cyclic(4.0, k, lam, 1.0, 8, 1.5, 50, 7, Some(3), false);
        assert_eq!(a.unwrap().to_bits(), b.unwrap().to_bits());
        let a = last_iterate_rdp_small_step_smooth(4.0, lam, m, big_m, 1.0, 8, 1.5, 7, model);
        let b = last_iterate_rdp_small_step(4.0, k, 1.0, 8, 1.5, 7);
        assert_eq!(a.unwrap().to_bits(), b.unwrap().to_bits());
    }
    // the step condition is checked first and names lam
    let e = last_iterate_rdp_bounded_smooth(
        f64::NAN,
        1.0,
        1.0,
        3.0,
        2.0,
        1.0,
        8,
        1.5,
        LipschitzModel::Triangle,
    );
    assert_eq!(param_of(e.unwrap_err()), "lr");
}

#[test]
fn one_wording_per_checker() {
    use super::checks::*;
    let msg = |r: crate::error::Result<()>| r.unwrap_err().to_string();
    assert_eq!(msg(count("b", 0)), "b must be an integer >= 1, got 0");
    assert_eq!(
        msg(check_alpha(f64::INFINITY, f64::MAX)),
        "order must be > 1 and finite, got inf"
    );
    assert_eq!(
        msg(check_p(f64::NAN)),
        "holder_exponent must be > 1 and finite, got NaN"
    );
    assert_eq!(msg(check_q(1.5)), "sample_rate must be in [0, 1], got 1.5");
    assert_eq!(msg(rdp_order(1.0)), "order must be > 1 and finite, got 1");
    assert_eq!(
        msg(gt1("slack", 1.0)),
        "slack must be > 1 and finite, got 1"
    );
    // the same checker at every site: theta_min_steps and theta_min_steps_l word slack alike
    assert_eq!(
        theta_min_steps(1.0, 0.5).unwrap_err().to_string(),
        theta_min_steps_l(2.0, 0.5).unwrap_err().to_string()
    );
}

#[test]
fn averaged_rdp_below_the_normal_range_stays_an_upper_bound() {
    // exact values (t·y ≤ 1e-300, so the divergence is mean y = α/2·mean (Δ/σ)² to 1e-300
    // relative): 0.5·1.001·1e-320 = 5.005e-321 (was 4.98e-321, below it), 1e-340 and
    // 0.5e-340 (were 0, below them: the smallest bound is the few-subnormal-ulp TINY)
    let v = averaged_rdp(1.001, 1.0, &[1e-160]).unwrap();
    assert!(
        (5.005e-321..=5.005e-321 * (1.0 + 1e-12) + 8.0 * 5e-324).contains(&v),
        "{v:e}"
    );
    for sens in [&[1e-170][..], &[1e-170, 0.0][..]] {
        let v = averaged_rdp(2.0, 1.0, sens).unwrap();
        assert!(v > 0.0 && v <= 4.0 * 5e-324, "{v:e}");
    }
    // exactly zero sensitivities stay an exact 0; normal-range values keep their closed form
    assert_eq!(averaged_rdp(2.0, 1.0, &[0.0, 0.0]).unwrap(), 0.0);
    let v = averaged_rdp(3.0, 1.0, &[1e-155, 2e-155]).unwrap();
    assert!(
        (3.75e-310..=3.75e-310 * (1.0 + 1e-12) + 8.0 * 5e-324).contains(&v),
        "{v:e}"
    );
}

#[test]
fn hoeffding_sample_size_is_the_rounded_up_count() {
    // ln l = 5.3737 (l = 215.6): 216 runs; never below e^{ln l}, +inf beyond the double range
    let v = SampleSizeVariant::Corrected;
    let ln_l = hoeffding_sample_size(2.0, 0.1, 0.1, 0.1, 0.05, v, true).unwrap();
    let l = hoeffding_sample_size(2.0, 0.1, 0.1, 0.1, 0.05, v, false).unwrap();
    assert_eq!(l, 216.0);
    assert!(l >= ln_l.exp() && l.fract() == 0.0);
    assert!(hoeffding_sample_size(8.0, 1.0, 20.0, 0.1, 0.05, v, true)
        .unwrap()
        .is_finite());
    assert_eq!(
        hoeffding_sample_size(8.0, 1.0, 20.0, 0.1, 0.05, v, false).unwrap(),
        f64::INFINITY
    );
    // the printed statement's absurdly small l (4e-19) is still at least one run
    let p = SampleSizeVariant::AsPublished;
    assert_eq!(
        hoeffding_sample_size(8.0, 1.0, 2.0, 0.1, 0.05, p, false).unwrap(),
        1.0
    );
    let e = hoeffding_sample_size(8.0, 1.0, 2.0, 0.0, 0.05, v, false).unwrap_err();
    assert_eq!(param_of(e), "tolerance");
}
