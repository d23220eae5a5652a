//! PLD/FFT composition: brackets contain exact values; DP-SGD home-ground numbers.

use pabi_core::pld::*;
use pabi_core::theta::theta;

#[test]
fn four_point_pld_composition_equals_exact() {
    for &(k, e0, d0) in &[(10u64, 0.5, 1e-4), (64, 0.3, 1e-6), (100, 1.0, 1e-3)] {
        let p = Pld::eps_delta(e0, d0, e0 / 500.0).unwrap();
        let c = compose(&[(&p, k)], DEFAULT_TAIL).unwrap();
        for &e in &[0.0, 1.0, 3.0] {
            let exact = approx_dp_composition_delta(e0, d0, k as f64, e).unwrap();
            let (lo, est, up) = c.delta(e);
            assert!(
                lo <= exact && exact <= up * (1.0 + 2e-14),
                "{k} {e0} {e}: {lo} {exact} {up}"
            );
            assert!((est - exact).abs() < 1e-12);
        }
    }
}

#[test]
fn gaussian_composition_bracket() {
    for &(sigma, k, e) in &[(2.0, 16u64, 1.0), (5.0, 200, 2.0), (1.0, 3, 0.5)] {
        let p = Pld::subsampled_gaussian(1.0, sigma, Neighbour::Remove, 1e-3).unwrap();
        let c = compose(&[(&p, k)], DEFAULT_TAIL).unwrap();
        let exact = theta(e, (k as f64).sqrt() / sigma); // rounded up by <= 1.5e-14
        let (lo, _, up) = c.delta(e);
        assert!(
            lo <= exact && exact * (1.0 - 3e-14) <= up,
            "{sigma} {k} {e}: {lo} {exact} {up}"
        );
        assert!(
            up - exact < 1e-5 * exact,
            "{sigma} {k} {e}: {lo} {exact} {up}"
        );
    }
}

#[test]
fn dpsgd_home_ground() {
    // dp-accounting / prv-accountant: 1.828 at T = 1e3 (q = 0.01, σ = 1, δ = 1e-5)
    let (lo, est, up) = dpsgd_epsilon(0.01, 1.0, 1000.0, 1e-5, DPSGD_H).unwrap();
    assert!(lo <= est && est <= up);
    assert!((1.828..1.8302).contains(&up), "{up}");
    assert!(lo > 1.80);
}

#[test]
fn domain_errors() {
    assert!(dpsgd_epsilon(1.5, 1.0, 10.0, 1e-5, DPSGD_H).is_err());
    assert!(dpsgd_epsilon(0.1, 0.0, 10.0, 1e-5, DPSGD_H).is_err());
    assert!(dpsgd_epsilon(0.1, 1.0, 0.0, 1e-5, DPSGD_H).is_err());
    assert!(dpsgd_epsilon(0.1, 1.0, 10.0, 0.0, DPSGD_H).is_err());
    assert!(Pld::from_profile(1e-3, &[0.5, 0.6]).is_err());
    assert!(Pld::from_profile(1e-3, &[1.5, 0.6]).is_err());
}
