//! Unit tests of the fixed-horizon schedules' limit δ* and its calibration (Sordello–Bu–Dong
//! Fig. 2).

use super::*;

#[test]
fn fig2_delta_star_and_calibration() {
    let d = schedule_delta_star(Noise::Laplace, 1.0, 1e5).unwrap();
    assert!((d / 6.065_306_597_126_334e-6 - 1.0).abs() < 1e-12);
    let c1 = schedule_c1_for_target(Noise::Laplace, 6.065_306_597_126_334e-6, 1.0).unwrap();
    assert!((c1 / 1e5 - 1.0).abs() < 1e-12);
    for &t in &[0.999_999, 0.9, 0.6, 0.5, 0.1, 1e-9] {
        let x = x_for_delta_star(t).unwrap();
        let f = -(-x).exp_m1() / x;
        assert!((f / t - 1.0).abs() < 1e-14, "{t} {x} {f}");
    }
    assert!(x_for_delta_star(1.0).is_err());
}

/// The problems without ε (a noise level, an inversion) are those at ε = 0 (and L = 0 for a
/// noise level): M and the setup as from the full constructor.
#[test]
fn problems_without_eps() {
    let s = crate::setup::Setup {
        max_grad_norm: 3.0,
        lr: 0.1,
        diameter: 2.0,
        smoothness: Some(4.0),
        strong_convexity: 0.5,
    };
    let a = Problem::for_search(&s).unwrap();
    let b = Problem::new(0.0, 3.0, 0.1, 2.0, Some(4.0), 0.5).unwrap();
    assert_eq!(
        (a.eps, a.max_grad_norm, a.m, a.m_dn),
        (0.0, 3.0, b.m, b.m_dn)
    );
    let c = Problem::for_noise(0.1, 2.0, Some(4.0), 0.5).unwrap();
    assert_eq!((c.eps, c.max_grad_norm, c.m_near), (0.0, 0.0, b.m_near));
    let param = |r: crate::Result<Problem>| match r {
        Err(crate::PabiError::Domain { param, .. }) => param,
        other => panic!("{other:?}"),
    };
    assert_eq!(param(Problem::for_noise(0.1, -2.0, None, 0.0)), "diameter");
    let bad = crate::setup::Setup { lr: f64::NAN, ..s };
    assert_eq!(param(Problem::for_search(&bad)), "lr");
}
