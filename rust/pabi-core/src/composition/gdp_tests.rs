//! Unit tests of `gdp.rs` (GDP inversions, composition and domination).
use super::*;

/// The block Newton of the array path equals the scalar gdp_epsilon bitwise.
#[test]
fn gdp_epsilon_array_equals_scalar() {
    let mut rng = crate::num::test_rng::XorShift::new();
    let mut rnd = || rng.next_f64();
    let n = 5 * crate::theta::BLOCK + 3;
    let mut d: Vec<f64> = (0..n)
        .map(|_| 10f64.powf(-300.0 * rnd() * rnd()))
        .map(|x| x.min(0.999))
        .collect();
    let mut m: Vec<f64> = (0..n).map(|_| 10f64.powf(-3.0 + 5.0 * rnd())).collect();
    m[1] = 0.0;
    d[2] = 0.9;
    m[2] = 1e-3;
    let mut out = vec![0.0; n];
    gdp_epsilon_array(&d, &m, &mut out).unwrap();
    for i in 0..n {
        assert_eq!(
            out[i].to_bits(),
            gdp_epsilon(d[i], m[i]).unwrap().to_bits(),
            "lane {i}: delta {} mu {}",
            d[i],
            m[i]
        );
    }
}

/// [`refine_mu`] with its certificates gives the plain bisection's result to the bit
/// (the certificates only replace evaluations by the verdicts they prove), and the
/// certificates exist and save most evaluations on typical inputs.
#[test]
fn refine_mu_equals_plain_bisection() {
    let plain = |eps: f64, delta: f64| {
        let first_bad = bisect_bits(0.0, f64::INFINITY, |x: f64| theta(eps, x) > delta);
        if first_bad == 0.0 {
            0.0
        } else {
            f64::from_bits(first_bad.to_bits() - 1)
        }
    };
    let mut rng = crate::num::test_rng::XorShift::new();
    let mut cases: Vec<(f64, f64)> = Vec::new();
    for _ in 0..3000 {
        let (u, v, w) = (rng.next_f64(), rng.next_f64(), rng.next_f64());
        let eps = if w < 0.1 {
            0.0
        } else {
            10f64.powf(-6.0 + 9.0 * u)
        };
        let delta = (10f64.powf(-300.0 * v * v * w)).min(1.0 - 1e-16);
        cases.push((eps, delta));
    }
    // edges: ε = 0, tiny and huge ε, δ near 1, δ at and around the certificate threshold
    for eps in [0.0, 5e-324, 1e-300, 1e-8, 1.0, 700.0, 1e6, 1e300] {
        for delta in [
            2.2250738585072014e-308,
            1e-295,
            1e-290,
            1.0000000000000002e-290,
            1e-100,
            1e-5,
            0.5,
            0.9999999999999999,
        ] {
            cases.push((eps, delta));
        }
    }
    let mut certified = 0;
    for &(eps, delta) in &cases {
        let mut m = MuSearch::new(eps, delta);
        while let Some(x) = m.probe() {
            m.feed(theta(eps, x));
        }
        certified += usize::from(m.proof.miss.is_some() && m.proof.meet.is_some());
        assert_eq!(
            refine_mu(eps, delta).to_bits(),
            plain(eps, delta).to_bits(),
            "eps {eps:e} delta {delta:e}"
        );
    }
    // both certificates on most inputs (measured: all but the flat and extreme ones)
    assert!(
        certified * 10 >= cases.len() * 8,
        "{certified} of {}",
        cases.len()
    );
}

/// The safety net of [`MuSearch`]: a wrong certificate (as if η were not a bound) decides
/// midpoints wrongly, the evaluation of the decided end of the final bracket disagrees, and the
/// plain bisection gives the result; a right one changes nothing.
#[test]
fn mu_search_confirms_certified_ends() {
    for &(eps, delta) in &[(1.0, 1e-5), (0.0, 0.3), (7.5, 1e-12), (0.2, 0.9)] {
        let want = refine_mu(eps, delta);
        for wrong_meet in [true, false] {
            let mut m = MuSearch::new(eps, delta);
            // claims about the whole side of a point far on the other side of the root
            if wrong_meet {
                m.proof.add_meet((0.5 * want).to_bits());
            } else {
                m.proof.add_miss((2.0 * want).to_bits());
            }
            while let Some(x) = m.probe() {
                m.feed(theta(eps, x));
            }
            assert_eq!(
                m.result().to_bits(),
                want.to_bits(),
                "eps {eps} delta {delta}"
            );
            // the contradiction was found: the certificates were dropped
            assert_eq!(m.proof, Certificates::NONE, "eps {eps} delta {delta}");
        }
    }
}

/// A length-1 argument is a broadcast value: the arrays equal their materialised calls
/// (the block kernel once zipped its inputs and left every lane after the first at 0).
#[test]
fn single_values_are_broadcast_in_place() {
    let n = 3 * crate::theta::BLOCK + 5;
    let d: Vec<f64> = (0..n).map(|i| 10f64.powf(-1.0 - (i % 17) as f64)).collect();
    let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
    gdp_epsilon_array(&d, &[1.5], &mut a).unwrap();
    gdp_epsilon_array(&d, &vec![1.5; n], &mut b).unwrap();
    assert_eq!(a, b);
    let mu: Vec<f64> = d.iter().map(|x| 1.0 - x.ln() / 50.0).collect();
    gdp_epsilon_array(&[1e-6], &mu, &mut a).unwrap();
    gdp_epsilon_array(&vec![1e-6; n], &mu, &mut b).unwrap();
    assert_eq!(a, b);
    gdp_mu_array(&d, &[1e-3], &mut a).unwrap();
    gdp_mu_array(&d, &vec![1e-3; n], &mut b).unwrap();
    assert_eq!(a, b);
    assert!(gdp_mu_array(&d, &[1e-3, 1e-4], &mut a).is_err());
}

/// The example: gdp_delta(gdp_epsilon(0.9977000638225533, 10), 10) was
/// 0.9977000638225534, above the target.
#[test]
fn inversions_consistent_with_theta() {
    let d = 0.997_700_063_822_553_3;
    let e = gdp_epsilon(d, 10.0).unwrap();
    assert!(theta(e, 10.0) <= d);
    assert!(theta(f64::from_bits(e.to_bits() - 1), 10.0) > d);
    let m = gdp_mu(e, d).unwrap();
    assert!(theta(e, m) <= d && theta(e, f64::from_bits(m.to_bits() + 1)) > d);
}

#[test]
fn inverses_round_trip() {
    for &(e, m) in &[
        (1.3, 0.9),
        (0.0, 0.5),
        (20.0, 2.0),
        (5.0, 0.3),
        (0.01, 0.05),
    ] {
        // the smallest double with θ ≤ d is at most e (θ(e) = d), and the one below is > d
        let d = theta(e, m);
        let ee = gdp_epsilon(d, m).unwrap();
        assert!(
            ee <= e && (ee - e).abs() <= 1e-12 * e.max(1e-2),
            "{e} {m} {ee}"
        );
        assert!(theta(ee, m) <= d);
        assert!(ee == 0.0 || theta(f64::from_bits(ee.to_bits() - 1), m) > d);
        let mm = gdp_mu(e, d).unwrap();
        assert!(mm >= m && (mm / m - 1.0).abs() < 1e-12, "{e} {m} {mm}");
        assert!(theta(e, mm) <= d && theta(e, f64::from_bits(mm.to_bits() + 1)) > d);
    }
}

#[test]
fn dominating_gdp_profile_is_itself() {
    let eps: Vec<f64> = (0..301).map(|i| i as f64 * 0.1).collect();
    let ld: Vec<f64> = eps.iter().map(|&e| log_theta(e, 0.5)).collect();
    let m = gdp_mu_dominating(&eps, &ld).unwrap();
    assert!((0.5..0.5 * (1.0 + 1e-10)).contains(&m), "{m}");
    // over all ε (step bound between samples, spacing 1e-3): ≈ μ(1 + 2h) near ε = 0
    let eps: Vec<f64> = (0..40001).map(|i| i as f64 * 1e-3).collect();
    let ld: Vec<f64> = eps.iter().map(|&e| log_theta(e, 0.5)).collect();
    let (m2, dj) = gdp_dominating_pair(&eps, &ld).unwrap();
    assert!(
        (0.5..0.5 * 1.0025).contains(&m2) && dj < 1e-300,
        "{m2} {dj}"
    );
}

/// The lock-step block search of the array path equals the scalar gdp_mu bitwise, with lanes
/// below the certificates' threshold and below f64::MIN_POSITIVE (the log-space path), ε = 0
/// and a partial last block.
#[test]
fn gdp_mu_array_equals_scalar() {
    let mut rng = crate::num::test_rng::XorShift::new();
    let n = 7 * crate::theta::BLOCK + 5;
    let mut e: Vec<f64> = Vec::with_capacity(n);
    let mut d: Vec<f64> = Vec::with_capacity(n);
    for _ in 0..n {
        let (u, v, w) = (rng.next_f64(), rng.next_f64(), rng.next_f64());
        e.push(if w < 0.1 {
            0.0
        } else {
            10f64.powf(-4.0 + 7.0 * u)
        });
        d.push(10f64.powf(-320.0 * v * v * v).min(0.999));
    }
    d[3] = 1e-300;
    d[4] = 1e-310;
    d[5] = 5e-324;
    e[6] = 1e6;
    let mut out = vec![0.0; n];
    gdp_mu_array(&e, &d, &mut out).unwrap();
    for i in 0..n {
        assert_eq!(
            out[i].to_bits(),
            gdp_mu(e[i], d[i]).unwrap().to_bits(),
            "lane {i}: eps {} delta {}",
            e[i],
            d[i]
        );
    }
    // broadcast ε
    let mut out1 = vec![0.0; n];
    gdp_mu_array(&[0.7], &d, &mut out1).unwrap();
    for i in 0..n {
        assert_eq!(
            out1[i].to_bits(),
            gdp_mu(0.7, d[i]).unwrap().to_bits(),
            "lane {i}"
        );
    }
}
