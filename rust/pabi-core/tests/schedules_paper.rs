//! Paper numbers reproduced by pabi-core: Sordello–Bu–Dong, *Privacy amplification via iteration
//! for shuffled and online PNSGD*, Figs. 2, 3 (the schedules of §4, Thms 3, 4) and Figs. 4, 5
//! (the online schedules of §6, Thms 6, 7, with the printed eqs. (13), (15) and their
//! corrections). Derivations in `docs/derivations/schedules.md`; the checks and the paper's
//! errata they document in `docs/errata.md#p-c12`, `#p-c13`, `#p-c15`, `#p-c16`.

use pabi_core::schedules::online::OnlineSchedule;
use pabi_core::schedules::{self, Noise, Problem};

fn rel(a: f64, b: f64) -> f64 {
    (a / b - 1.0).abs()
}

fn fig45(kind: Noise) -> OnlineSchedule {
    let p = Problem::new(1.0, 10.0, 0.01, 1.0, None, 0.0).unwrap();
    OnlineSchedule::new(kind, p, 100.0, 100.0, 1.5).unwrap()
}

#[test]
fn fig4_online_laplace() {
    let s = fig45(Noise::Laplace);
    assert!(rel(s.log_a(100.0, false).exp(), 0.356_025) < 2e-6);
    let lim = s.log_delta_limit(100.0).unwrap().exp();
    let cert = s.log_delta_limit_bound(100.0).unwrap().exp();
    let up = s.log_delta_star_upper(100.0, false).unwrap().exp();
    let lo = s.log_delta_star_lower(100.0).unwrap().exp();
    let pr = s.log_delta_star_upper(100.0, true).unwrap().exp();
    eprintln!("lim {lim:e} cert {cert:e} up {up:e} lo {lo:e} printed {pr:e}");
    assert!(rel(lim, 1.547_040_13e-8) < 1e-8);
    assert!(rel(up, 1.558_752_43e-8) < 1e-8);
    assert!(rel(lo, 1.535_405_21e-8) < 1e-8);
    assert!(rel(pr, 3.340_986e-8) < 1e-6);
    assert!(lim <= cert && cert < up && lo < lim);
    for k in [4, 6, 8, 10, 12] {
        let n = 10f64.powi(k);
        let d = s.log_delta(n, 100.0).unwrap().exp();
        eprintln!("n=1e{k}: delta-lim {:e}", d - lim);
    }
}

#[test]
fn fig5_online_gauss() {
    let s = fig45(Noise::Gaussian);
    assert!(rel(s.log_a(100.0, false).exp(), 0.049_504) < 2e-5);
    let lim = s.log_delta_limit(100.0).unwrap().exp();
    let cert = s.log_delta_limit_bound(100.0).unwrap().exp();
    let up = s.log_delta_star_upper(100.0, false).unwrap().exp();
    let lo = s.log_delta_star_lower(100.0).unwrap().exp();
    let pr = s.log_delta_star_upper(100.0, true).unwrap();
    eprintln!("lim {lim:e} cert {cert:e} up {up:e} lo {lo:e} printed ln {pr:e}");
    assert!(rel(lim, 2.856_168_98e-23) < 1e-8);
    assert!(rel(up, 3.008_038_66e-23) < 1e-8);
    assert!(rel(lo, 2.711_776_18e-23) < 1e-8);
    assert!(lim <= cert && cert < up && lo < lim);
    for k in [6, 8, 10, 12] {
        let n = 10f64.powi(k);
        let d = s.log_delta(n, 100.0).unwrap().exp();
        eprintln!("n=1e{k}: delta-lim {:e}", d - lim);
    }
}

#[test]
fn fig2_fig3_schedules() {
    let p = Problem::new(1.0, 10.0, 0.1, 1.0, None, 0.0).unwrap();
    let ds = schedules::schedule_delta_star(Noise::Laplace, 1.0, 1e5).unwrap();
    assert!(rel(ds, 6.065_307e-6) < 1e-6);
    let d = schedules::laplace_schedule_delta(&p, 1e12, 1e5, 2.0).unwrap();
    assert!(rel(1e12 * (d - ds), 1.213_06) < 1e-4, "{}", 1e12 * (d - ds));
    let dg = schedules::schedule_delta_star(Noise::Gaussian, 1.0, 1e5).unwrap();
    let d = schedules::gauss_schedule_delta(&p, 1e300, 1e5, 100.0).unwrap();
    let w = pabi_core::lambertw::wright_omega(
        600.0 * 10f64.ln() - (2.0 * std::f64::consts::PI * 1e10).ln(),
    );
    assert!(
        rel((d - dg) * w / dg, 1.1234) < 1e-4,
        "{}",
        (d - dg) * w / dg
    );
}
