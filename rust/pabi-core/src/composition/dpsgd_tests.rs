//! Tests of [`super`] (the DP-SGD accountant): relations, sampling, calibration, resource limits.
use super::*;
use crate::composition::param_of;

#[test]
fn dpsgd_domains_checked_up_front() {
    assert_eq!(
        param_of(dpsgd_epsilon(0.01, 1.0, 100.0, 1e-5, 5e-324)),
        "grid_step"
    );
    assert_eq!(
        param_of(dpsgd_delta(0.01, 1.0, 100.0, 1.0, 0.2)),
        "grid_step"
    );
    assert_eq!(
        param_of(dpsgd_epsilon(1.0, 1e-3, 1000.0, 1e-5, DPSGD_H)),
        "noise_multiplier"
    );
    let cal = |eps: f64, h: f64, rtol: f64| dpsgd_calibrate_sigma(eps, 1e-5, 0.01, 100.0, h, rtol);
    for h in [f64::NAN, f64::INFINITY, 0.0, 0.2, 5e-324] {
        assert_eq!(param_of(cal(2.0, h, 1e-4)), "grid_step");
    }
    for rtol in [5e-324, f64::NAN, 0.1] {
        assert_eq!(param_of(cal(2.0, 1e-4, rtol)), "rtol");
    }
    for eps in [1e308, 2f64.powi(63), f64::INFINITY, 0.0, 100.5] {
        assert_eq!(param_of(cal(eps, 1e-4, 1e-4)), "eps");
    }
}

#[test]
fn illinois_steps_bounded() {
    use std::cell::Cell;
    // a decreasing g that defeats regula falsi (flat, then a cliff): the safeguard bisects
    let n = Cell::new(0usize);
    let g = |x: f64| -> Result<f64> {
        n.set(n.get() + 1);
        Ok(if x < 1.7 { 1e-300 } else { -1e300 })
    };
    let rtol = 1e-12;
    let (a, b) = illinois(&g, 1.0, 2.0, g(1.0).unwrap(), g(2.0).unwrap(), rtol).unwrap();
    let bound = 3.0 * ((2f64.ln() / rtol.ln_1p()).log2().ceil()) + 3.0;
    assert!(b / a <= 1.0 + rtol && a < 1.7 && b >= 1.7, "{a} {b}");
    assert!((n.get() as f64) <= bound + 2.0, "{} > {bound}", n.get());
    // an error of g is returned, not read as a value
    let e = |_x: f64| -> Result<f64> { Err(PabiError::domain("h", "x", 0.0)) };
    assert!(illinois(&e, 1.0, 2.0, 1.0, -1.0, 1e-4).is_err());
}

#[test]
fn delta_upper_all_is_one_query_per_eps() {
    let eps = [0.0, 0.5, 2.0];
    let mut out = [0.0; 3];
    dpsgd_delta_upper_all(0.05, 1.0, 20.0, &eps, 0.01, &mut out).unwrap();
    for (o, &e) in out.iter().zip(&eps) {
        assert_eq!(*o, dpsgd_delta(0.05, 1.0, 20.0, e, 0.01).unwrap().2);
    }
    let bad = dpsgd_delta_upper_all(0.05, 1.0, 20.0, &[1.0, f64::NAN], 0.01, &mut out[..2]);
    assert_eq!(param_of(bad), "eps");
}

#[test]
fn accountings() {
    let ro = Accounting {
        relation: Relation::ReplaceOne,
        sampling: Sampling::Poisson,
    };
    let wor = Accounting {
        relation: Relation::ReplaceOne,
        sampling: Sampling::WithoutReplacement,
    };
    // without replacement under replace-one: the lower end is the add/remove accountant's at
    // noise σ/2 (the two ordered pairs), the upper end the symmetrised pair's, above it
    let w = dpsgd_epsilon_with(0.05, 2.0, 20.0, 1e-5, 0.01, wor).unwrap();
    let ar = dpsgd_epsilon(0.05, 1.0, 20.0, 1e-5, 0.01).unwrap();
    assert_eq!(w.0, ar.0);
    assert!(w.1 >= ar.1 && w.2 > ar.2, "{w:?} {ar:?}");
    // the compositions: the symmetrised pair, then the two ordered pairs
    assert_eq!(
        dpsgd_compositions_with(0.05, 2.0, 20.0, 0.01, wor)
            .unwrap()
            .len(),
        3
    );
    // the calibration searches the upper end alone (one composition per σ)
    let s = dpsgd_calibrate_sigma_with(w.2, 1e-5, 0.05, 20.0, 0.01, 1e-6, wor).unwrap();
    assert!((s / 2.0 - 1.0).abs() < 1e-5, "{s}");
    // replace-one with Poisson sampling: one symmetric composition
    assert_eq!(
        dpsgd_compositions_with(0.05, 1.0, 20.0, 0.01, ro)
            .unwrap()
            .len(),
        1
    );
    // the defaults are the functions without `_with`, to the bit
    assert_eq!(
        dpsgd_delta_with(0.05, 1.0, 20.0, 1.0, 0.01, Accounting::ADD_REMOVE_POISSON).unwrap(),
        dpsgd_delta(0.05, 1.0, 20.0, 1.0, 0.01).unwrap()
    );
    // sampling without replacement is not defined under add/remove: an option error on
    // `sampling`, before any work (also for the calibration)
    let bad = Accounting {
        relation: Relation::AddRemove,
        sampling: Sampling::WithoutReplacement,
    };
    let is_sampling = |e: PabiError| {
        matches!(
            e,
            PabiError::Option {
                param: "sampling",
                ..
            }
        )
    };
    assert!(is_sampling(
        dpsgd_epsilon_with(0.05, 1.0, 20.0, 1e-5, 0.01, bad).unwrap_err()
    ));
    assert!(is_sampling(
        dpsgd_calibrate_sigma_with(1.0, 1e-5, 0.05, 20.0, 0.01, 1e-3, bad).unwrap_err()
    ));
    // a grid-cap error names the caller's noise, not σ/2
    match dpsgd_epsilon_with(1.0, 1e-4, 10.0, 1e-5, 0.1, wor) {
        Err(PabiError::Domain { param, value, .. }) => {
            assert_eq!((param, value), (NOISE_MULTIPLIER, 1e-4))
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn noise_over_sqrt_count_rounds_down() {
    use crate::dd::{two_prod, Dd};
    for (x, k) in [(4.0, 3.0), (0.7, 7.0), (1.0, 1e6), (3.3, 2.0)] {
        let s = noise_over_sqrt_count(x, k).unwrap();
        // (s·√k)² ≤ x² exactly ⇔ s²·k ≤ x²
        let (h, l) = two_prod(s, s);
        let lhs = Dd::new(h, l).mul_f(k);
        let (h2, l2) = two_prod(x, x);
        assert!((lhs - Dd::new(h2, l2)).hi <= 0.0, "{x} {k}");
        let near = x / k.sqrt();
        assert!(s <= near && near.to_bits() - s.to_bits() <= 2);
    }
    assert_eq!(noise_over_sqrt_count(4.0, 4.0).unwrap(), 2.0);
    assert_eq!(noise_over_sqrt_count(4.0, 1.0).unwrap(), 4.0);
    assert_eq!(param_of(noise_over_sqrt_count(-1.0, 2.0)), "noise_scale");
    assert_eq!(param_of(noise_over_sqrt_count(1.0, 0.5)), "count");
}

#[test]
fn iterate_noise_std_rounds_down() {
    use crate::dd::{two_prod, Dd};
    // 0.1·1.1·0.7/3: each step checked exactly (double-double) to be at most the exact value
    let (lr, z, c, b) = (0.1, 1.1, 0.7, 3.0);
    let s = iterate_noise_std(lr, z, c, b).unwrap();
    let (p1, e1) = two_prod(lr, z);
    let exact_num = Dd::new(p1, e1).mul_f(c);
    // s·b ≤ lr·z·c exactly
    let (h, l) = two_prod(s, b);
    assert!((Dd::new(h, l) - exact_num).hi <= 0.0);
    // and within 3 ulp of the nearest value
    let near = lr * z * c / b;
    assert!(s <= near && near.to_bits() - s.to_bits() <= 3);
    // exact inputs stay exact
    assert_eq!(iterate_noise_std(0.5, 2.0, 1.0, 4.0).unwrap(), 0.25);
    assert_eq!(iterate_noise_std(1.0, 3.0, 1.0, 1.0).unwrap(), 3.0);
    assert_eq!(param_of(iterate_noise_std(-0.1, 1.0, 1.0, 1.0)), "lr");
    assert_eq!(
        param_of(iterate_noise_std(0.1, f64::NAN, 1.0, 1.0)),
        "noise_multiplier"
    );
    assert_eq!(
        param_of(iterate_noise_std(0.1, 1.0, f64::INFINITY, 1.0)),
        "clip"
    );
    assert_eq!(
        param_of(iterate_noise_std(0.1, 1.0, 1.0, 0.0)),
        "batch_size"
    );
}

#[test]
fn calibrate_many_is_the_scalar_calibration_of_each_target() {
    // every element the scalar search's value or error (errors in their place), any relation
    let eps = [1.0, 2.5, 1.0, 150.0, 0.7];
    let delta = [1e-5, 1e-6, 1e-5, 1e-5, 0.5];
    for acc in [
        Accounting::ADD_REMOVE_POISSON,
        Accounting {
            relation: Relation::ReplaceOne,
            sampling: Sampling::WithoutReplacement,
        },
    ] {
        let many =
            dpsgd_calibrate_sigma_many_with(&eps, &delta, 0.05, 20.0, 0.01, 1e-3, acc).unwrap();
        assert_eq!(many.len(), eps.len());
        for ((r, &e), &d) in many.iter().zip(&eps).zip(&delta) {
            let one = dpsgd_calibrate_sigma_with(e, d, 0.05, 20.0, 0.01, 1e-3, acc);
            match (r, one) {
                (Ok(a), Ok(b)) => assert_eq!(a.to_bits(), b.to_bits(), "eps {e} delta {d}"),
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string()),
                (a, b) => panic!("eps {e} delta {d}: {a:?} vs {b:?}"),
            }
        }
        assert!(many[3].is_err() && many[0].is_ok());
    }
    let bad = dpsgd_calibrate_sigma_many_with(
        &eps,
        &delta[..2],
        0.05,
        20.0,
        0.01,
        1e-3,
        Accounting::ADD_REMOVE_POISSON,
    );
    assert_eq!(param_of(bad.map(|_| 0.0)), "delta");
}

/// The whole DP-SGD composition at a length that takes every parallel path (T = 1e5: the split
/// FFT of 680,400 / 714,420 points, the chunked round-off sums and suffix sums): the same bits
/// at 1 and at 3 threads, masses, bounds and the ε bracket.
#[test]
fn long_composition_does_not_depend_on_the_thread_count() {
    let run = |threads: usize| {
        let prev = crate::driver::num_threads();
        crate::driver::set_num_threads(threads).unwrap();
        let comps = dpsgd_compositions(0.01, 1.0, 1e5, DPSGD_H).unwrap();
        let eps = dpsgd_epsilon(0.01, 1.0, 1e5, 1e-5, DPSGD_H).unwrap();
        crate::driver::set_num_threads(prev).unwrap();
        let fields: Vec<Vec<u64>> = comps
            .iter()
            .map(|c| {
                let mut v: Vec<u64> = c.pmf.iter().map(|x| x.to_bits()).collect();
                v.extend([c.fft_err, c.tail_hi, c.tail_lo, c.inf].map(f64::to_bits));
                v.push(c.k_lo as u64);
                v
            })
            .collect();
        (fields, [eps.0, eps.1, eps.2].map(f64::to_bits))
    };
    let one = run(1);
    assert!(
        one.0.iter().all(|v| v.len() > 1 << 19),
        "the windows are long"
    );
    assert_eq!(one, run(3));
}

/// The add direction's probe ([`query`]): where it settles, the answer is bit for bit the worse
/// direction of the two compositions on the grid h (the add direction was not needed); where it
/// does not (q = 1: the two directions are mirror images; σ large against q, the directions
/// close), the two fine compositions are taken, so the answer is again that maximum. Also for
/// δ(ε) queries and when the probe grid is capped at 0.1.
#[test]
fn add_direction_probe_keeps_the_bracket() {
    let plain_eps = |q: f64, s: f64, t: f64, d: f64, h: f64| {
        let comps = dpsgd_compositions(q, s, t, h).unwrap();
        worse_direction(&comps, &|c: &Composition| c.epsilon(d))
    };
    let plain_delta = |q: f64, s: f64, t: f64, e: f64, h: f64| {
        let comps = dpsgd_compositions(q, s, t, h).unwrap();
        worse_direction(&comps, &|c: &Composition| c.delta(e))
    };
    let bits = |b: Bracket| [b.0.to_bits(), b.1.to_bits(), b.2.to_bits()];
    let mut settled = 0;
    let cases = [
        (0.01, 1.0, 1000.0, 1e-4),
        (0.05, 0.8, 100.0, 1e-4),
        (0.01, 2.0, 1000.0, 1e-4), // close directions: not settled
        (1.0, 1.0, 10.0, 1e-4),    // mirror images: not settled
        (0.2, 1.0, 50.0, 0.02),    // probe grid capped at 0.1
    ];
    for (q, s, t, h) in cases {
        for d in [1e-5, 1e-8] {
            let got = dpsgd_epsilon(q, s, t, d, h).unwrap();
            assert_eq!(
                bits(got),
                bits(plain_eps(q, s, t, d, h)),
                "eps q={q} s={s} t={t} d={d}"
            );
            let probe = dpsgd_direction(
                q,
                s,
                t,
                Pair::Sg(s, Neighbour::Add),
                (ADD_PROBE * h).min(H_MAX),
            )
            .unwrap()
            .epsilon(d);
            let remove = dpsgd_direction(q, s, t, Pair::Sg(s, Neighbour::Remove), h)
                .unwrap()
                .epsilon(d);
            settled += usize::from(worth_a_probe(q, s, h) && probe.2 < remove.0);
        }
        for e in [0.5, 2.0] {
            let got = dpsgd_delta(q, s, t, e, h).unwrap();
            assert_eq!(
                bits(got),
                bits(plain_delta(q, s, t, e, h)),
                "delta q={q} s={s} t={t} e={e}"
            );
        }
    }
    // the probe settles the first two cases (and the capped one), not the close ones
    assert!(settled >= 4, "{settled}");
}
