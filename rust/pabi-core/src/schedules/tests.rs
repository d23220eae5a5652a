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
