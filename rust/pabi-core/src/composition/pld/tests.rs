//! Unit tests of the PLD machinery: brackets against the exact Gaussian value, size caps
//! checked before allocation, grid-span conversions, queries at huge ε.

use super::discretise::{sg_lrem, XTAIL};
use super::*;
use crate::composition::param_of;

#[test]
fn gaussian_bracket_contains_exact() {
    // μ = 0.5 Gaussian, 16-fold: exact θ(1, 2) = 0.509862...
    let p = Pld::subsampled_gaussian(1.0, 2.0, Neighbour::Remove, 1e-3).unwrap();
    let c = compose(&[(&p, 16)], DEFAULT_TAIL).unwrap();
    let (l, e, u) = c.delta(1.0);
    let exact = crate::theta::theta(1.0, 2.0);
    assert!(l <= exact && exact <= u, "{l} {e} {u} {exact}");
    assert!((u - exact) / exact < 1e-5);
}

#[test]
fn grid_span_never_wraps() {
    assert_eq!(grid_span(-1.0, 1.0, 0.5, 16), Some((-2, 2)));
    assert_eq!(grid_span(0.0, 15.0, 1.0, 16), Some((0, 15)));
    assert_eq!(grid_span(0.0, 16.0, 1.0, 16), None);
    assert_eq!(grid_span(-1.0, 1.0, 5e-324, MAX_GRID), None); // ±inf indices
    assert_eq!(grid_span(f64::NAN, 1.0, 0.1, MAX_GRID), None);
    assert_eq!(grid_span(1e300, 1e300, 0.1, MAX_GRID), None); // one point, index > 2^53
    assert_eq!(grid_span(-1e37, 1e37, 0.1, MAX_GRID), None);
}

#[test]
fn single_step_grids_are_capped_before_allocation() {
    let g = |sigma: f64, h: f64| Pld::subsampled_gaussian(1.0, sigma, Neighbour::Remove, h);
    // (khi − klo + 1) as usize wrapped to 0 here, and the cell loop ran ~2^64 times
    assert_eq!(param_of(g(2.0, 5e-324)), "grid_step");
    assert_eq!(param_of(g(2.0 / 2f64.powi(63), 1e-4)), "noise_multiplier");
    assert_eq!(param_of(g(5e-324, 0.1)), "noise_multiplier"); // 1/σ = +∞
    let sub = Pld::subsampled_gaussian(0.1, 2.0, Neighbour::Add, 5e-324);
    assert_eq!(param_of(sub), "grid_step");
    // 1.6 TB allocation (abort) before
    assert_eq!(param_of(Pld::eps_delta(1e5, 1e-5, 1e-6)), "grid_step");
    assert_eq!(param_of(Pld::eps_delta(1e6, 1e-5, 0.1)), "eps0");
    assert!(Pld::eps_delta(1e5, 1e-5, 0.0955).is_ok());
    // the suggested h fits
    let Err(PabiError::Domain { allowed, .. }) = g(2.0, 1e-7) else {
        panic!()
    };
    let hmin: f64 = allowed
        .split("use grid_step >= ")
        .nth(1)
        .unwrap()
        .trim_end_matches(')')
        .parse()
        .unwrap();
    assert!(g(2.0, hmin).unwrap().pmf.len() <= MAX_GRID);
    // from_atoms: non-finite losses, mismatched lengths, huge spans
    assert_eq!(
        param_of(Pld::from_atoms(0.1, &[f64::INFINITY], &[1.0], 0.0)),
        "losses"
    );
    assert_eq!(
        param_of(Pld::from_atoms(0.1, &[-1e300, 1e300], &[0.5, 0.5], 0.0)),
        "losses"
    );
    assert!(matches!(
        Pld::from_atoms(0.1, &[1.0], &[], 0.0),
        Err(PabiError::Shape { .. })
    ));
    // from_profile: at most 2^20 samples
    let d = vec![0.0; MAX_PROFILE + 1];
    assert_eq!(param_of(Pld::from_profile(1e-3, &d)), "profile");
    assert_eq!(
        Pld::from_profile(1e-3, &d[..MAX_PROFILE])
            .unwrap()
            .pmf
            .len(),
        MAX_GRID - 1
    );
}

#[test]
fn compose_sizes_checked() {
    let p = Pld::subsampled_gaussian(1.0, 2.0, Neighbour::Remove, 1e-3).unwrap();
    // window of 1e15 compositions: far beyond 2^22 points
    assert_eq!(
        param_of(compose(&[(&p, 1_000_000_000_000_000)], DEFAULT_TAIL)),
        "grid_step"
    );
    assert_eq!(param_of(compose(&[(&p, 1 << 60)], DEFAULT_TAIL)), "count");
    assert_eq!(param_of(compose(&[(&p, 0)], DEFAULT_TAIL)), "count");
    // a hand-made Pld (public fields) with indices that would overflow i64
    let bad = Pld {
        h: 1e-3,
        lo: i64::MAX - 1,
        pmf: vec![1.0],
        inf: 0.0,
        bad: 0.0,
        inf_exact: 0.0,
    };
    assert_eq!(param_of(compose(&[(&bad, 1)], DEFAULT_TAIL)), "parts");
    let empty = Pld {
        lo: 0,
        pmf: vec![],
        ..bad.clone()
    };
    assert_eq!(param_of(compose(&[(&empty, 1)], DEFAULT_TAIL)), "parts");
    // a NaN, infinite or negative mass (a NaN mass composed to NaN
    // everywhere, which the queries read as an upper ε of 0)
    for (w, inf) in [
        (f64::NAN, 0.0),
        (-1e-3, 0.0),
        (f64::INFINITY, 0.0),
        (0.5, f64::NAN),
        (0.5, -0.1),
    ] {
        let p = Pld {
            lo: 0,
            pmf: vec![0.5, w],
            inf,
            ..bad.clone()
        };
        assert_eq!(param_of(compose(&[(&p, 1)], DEFAULT_TAIL)), "parts");
    }
    // far from the origin but within 2^53: indices × multiplicity leave ±2^53
    let far = Pld {
        lo: 1 << 50,
        pmf: vec![0.5, 0.5],
        ..bad.clone()
    };
    assert_eq!(param_of(compose(&[(&far, 1 << 10)], DEFAULT_TAIL)), "count");
    // a two-point PLD composed 2^20 times: the window fits, the values are binomial
    let two = Pld {
        lo: 0,
        pmf: vec![0.5, 0.5],
        ..bad
    };
    let c = compose(&[(&two, 1 << 20)], DEFAULT_TAIL).unwrap();
    assert!(c.pmf.len() <= MAX_WINDOW);
    let mass: f64 = c.pmf.iter().sum();
    assert!((mass - 1.0).abs() < 1e-9, "{mass}");
}

#[test]
fn delta_at_huge_eps_is_the_inf_mass() {
    let p = Pld::subsampled_gaussian(1.0, 2.0, Neighbour::Remove, 1e-3).unwrap();
    let c = compose(&[(&p, 16)], DEFAULT_TAIL).unwrap();
    for eps in [1e300, f64::INFINITY] {
        // before: (ε/h) as usize saturated, +1 wrapped to 0, and the upper value was 1
        assert_eq!(c.first_above(eps), c.pmf.len());
        let (l, _, u) = c.delta(eps);
        assert_eq!(l, 0.0);
        assert!(u >= c.inf && u < 1e-12, "{u}");
    }
}

#[test]
fn tiny_q_range_has_the_right_sign() {
    // ln(1 − q + q e^z) for q = 1e-100 at z = s²/2 + 9.5 s: ≈ q e^z, positive
    let (s, q) = (1.0 / 0.3, 1e-100);
    let x = s + XTAIL;
    let z = s * x - s * s / 2.0;
    let v = sg_lrem(q, s, (-q).ln_1p(), x);
    let exact = q * z.exp_m1(); // ln1p of a value ~1e-84
    assert!((v / exact - 1.0).abs() < 1e-13, "{v} {exact}");
    let (l, _, u) = dpsgd_epsilon(1e-100, 0.3, 1.0, 1e-5, DPSGD_H).unwrap();
    assert_eq!((l, u), (0.0, 0.0)); // was (0, +inf)
}

#[test]
fn sparse_direct_dft_equals_dense() {
    // the sparse path sums the same nonzero terms with the same twiddles in the same order
    let n = 2 * 3 * 5 * 7 * 64;
    let tw = super::fft::TwiddleTable::new(n);
    let mut xs = vec![0.0; 3001];
    for (i, v) in xs.iter_mut().enumerate() {
        if i % 250 == 0 || i == 17 {
            *v = 1.0 / (1.0 + i as f64);
        }
    }
    for j0 in [-1500i64, 0, 7, -3_000_000_000] {
        let nz = super::compose::nonzero_terms(&xs, j0);
        for k in [0usize, 1, 2, 99, n / 2 - 1, n / 2] {
            let a = tw.direct_dft(&xs, j0, k);
            let b = tw.direct_dft_sparse(&nz, k);
            assert_eq!(
                (a.re.to_bits(), a.im.to_bits()),
                (b.re.to_bits(), b.im.to_bits())
            );
        }
        // the lane-interleaved dense sums (compiled for the CPU's vector unit): each lane bit
        // for bit its one-bin sum, on the sparse masses and on dense ones
        let ks = [3usize, 0, n / 2, 1234];
        let dense: Vec<f64> = (0..3001).map(|i| (-(i as f64) / 300.0).exp()).collect();
        for x in [&xs, &dense] {
            for (z, &k) in tw.direct_dft_lanes(x, j0, ks).iter().zip(&ks) {
                let a = tw.direct_dft(x, j0, k);
                assert_eq!(
                    (a.re.to_bits(), a.im.to_bits()),
                    (z.re.to_bits(), z.im.to_bits())
                );
            }
        }
    }
}

#[test]
fn segmented_direct_dft_within_its_bound() {
    // the segments cover the terms in order, their count fixed by m; the combined sums agree
    // with the one-chain sums within the two bounds (each is within its own of the exact sum)
    use super::fft::{combine_segments, dft_segments, direct_dft_coeff_of, DFT_LANES};
    for m in [1usize, 4096, 4097, 20_001, 54_096] {
        let segs = dft_segments(m);
        assert_eq!(segs.len(), m.div_ceil(4096).max(1));
        assert_eq!((segs[0].0, segs[segs.len() - 1].1), (0, m));
        assert!(segs.windows(2).all(|w| w[0].1 == w[1].0 && w[0].0 < w[0].1));
    }
    let n = 2 * 3 * 5 * 7 * 64 * 9;
    let tw = super::fft::TwiddleTable::new(n);
    let m = 20_001;
    let xs: Vec<f64> = (0..m)
        .map(|i| (-(i as f64 - 9000.0).powi(2) / 4e6).exp() * 1e-4)
        .collect();
    let l1: f64 = xs.iter().sum();
    let j0 = -9000i64;
    let ks: [usize; DFT_LANES] = [0, 1, 777, n / 2];
    let segs = dft_segments(m);
    assert!(segs.len() > 1);
    let parts: Vec<_> = segs
        .iter()
        .map(|&(a, b)| tw.direct_dft_partial(&xs[a..b], j0 + a as i64, ks))
        .collect();
    let u = crate::num::round::U;
    for (z, &k) in combine_segments(&parts).iter().zip(&ks) {
        let a = tw.direct_dft(&xs, j0, k);
        let bound = 2.0 * direct_dft_coeff_of(m) * l1 + 4.0 * u * (a.norm() + z.norm()) * 1.01;
        assert!(
            (z - a).norm() <= bound,
            "bin {k}: {z} vs {a}, bound {bound}"
        );
    }
    // against the exact sum of the same terms (the same twiddle products, added in
    // double-double): within Neumaier's bound over m + 2S terms, 2u|s| + 4(m + 2S)u²·Σ|terms|
    // (a combination of the segments' rounded sums would err by ~u·Σ|segment sums|, far
    // beyond it at a bin where the terms cancel)
    let s_count = segs.len() as f64;
    for (z, &k) in combine_segments(&parts).iter().zip(&ks) {
        let r = ((j0 as i128) * (k as i128)).rem_euclid(n as i128) as usize;
        let (mut re, mut im) = (crate::dd::Dd::from_f64(0.0), crate::dd::Dd::from_f64(0.0));
        let (mut abs_re, mut abs_im) = (0.0f64, 0.0f64);
        for (&x, w) in xs.iter().zip(tw.twiddles(r, k)) {
            let (tr, ti) = (x * w.re, x * w.im);
            re = re.add_f(tr);
            im = im.add_f(ti);
            abs_re += tr.abs();
            abs_im += ti.abs();
        }
        let coef = 4.0 * (m as f64 + 2.0 * s_count) * u * u * 1.01 + 1e-28;
        for (got, exact, abs) in [(z.re, re, abs_re), (z.im, im, abs_im)] {
            let err = (crate::dd::Dd::from_f64(got) - exact).to_f64().abs();
            let bound = 2.0 * u * exact.to_f64().abs() + coef * abs;
            assert!(
                err <= bound,
                "bin {k}: {got} vs {exact:?}, error {err:e}, bound {bound:e}"
            );
        }
    }
    // one segment: the value of the one-chain sum, bit for bit
    let one = combine_segments(&[tw.direct_dft_partial(&xs[..4000], j0, ks)]);
    for (z, &k) in one.iter().zip(&ks) {
        let a = tw.direct_dft(&xs[..4000], j0, k);
        assert_eq!(
            (a.re.to_bits(), a.im.to_bits()),
            (z.re.to_bits(), z.im.to_bits())
        );
    }
}

#[test]
fn fft_plans_are_kept_and_reused() {
    // the second call finds the plans of the first in the Lru (the same objects)
    use super::fft::Plans;
    for n in [6006, 1 << 20] {
        match (super::fft::fft_plans(n), super::fft::fft_plans(n)) {
            (Plans::Serial(f1, i1), Plans::Serial(f2, i2)) => {
                assert!(n < super::fft_split::SPLIT_MIN);
                assert!(std::sync::Arc::ptr_eq(&f1, &f2) && std::sync::Arc::ptr_eq(&i1, &i2));
                assert_eq!((f1.len(), i1.len()), (n, n));
            }
            (Plans::Split(s1), Plans::Split(s2)) => {
                assert!(n >= super::fft_split::SPLIT_MIN);
                assert!(std::sync::Arc::ptr_eq(&s1, &s2));
                assert_eq!(s1.len(), n);
            }
            _ => panic!("n={n}: plans of two kinds"),
        }
    }
}

#[test]
fn log_mgf_lanes_equal_scalar_recursion() {
    let p = Pld::subsampled_gaussian(0.05, 0.8, Neighbour::Remove, 1e-3).unwrap();
    let lambdas: Vec<f64> = (0..37)
        .map(|i| {
            if i % 3 == 0 {
                -0.01 * i as f64
            } else {
                0.3 * i as f64
            }
        })
        .collect();
    let got = p.log_mgf(&lambdas);
    let first = p.pmf.iter().position(|&w| w > 0.0).unwrap();
    let last = p.pmf.iter().rposition(|&w| w > 0.0).unwrap();
    let w = &p.pmf[first..=last];
    for (&lam, g) in lambdas.iter().zip(got) {
        let r = (-lam.abs() * p.h).exp();
        let mut t = 0.0;
        let want = if lam > 0.0 {
            w.iter().for_each(|&x| t = x + r * t);
            lam * p.loss(last) + t.ln() + 1e-9
        } else {
            w.iter().rev().for_each(|&x| t = x + r * t);
            lam * p.loss(first) + t.ln() + 1e-9
        };
        assert_eq!(g.to_bits(), want.to_bits(), "{lam}");
    }
}

/// Whether two PLDs are the same bit for bit.
pub(super) fn same_bits(a: &Pld, b: &Pld) -> bool {
    a.lo == b.lo
        && a.h.to_bits() == b.h.to_bits()
        && a.pmf.len() == b.pmf.len()
        && a.pmf
            .iter()
            .zip(&b.pmf)
            .all(|(x, y)| x.to_bits() == y.to_bits())
        && [a.inf, a.bad, a.inf_exact].map(f64::to_bits)
            == [b.inf, b.bad, b.inf_exact].map(f64::to_bits)
}

#[test]
fn cached_subsampled_gaussian_is_the_pld_itself() {
    for dir in [Neighbour::Remove, Neighbour::Add] {
        let want = Pld::subsampled_gaussian(0.02, 1.3, dir, 1e-3).unwrap();
        for _ in 0..2 {
            // first a miss (each direction built alone), then hits: all bit for bit
            // the directly built PLD
            let got = Pld::subsampled_gaussian_cached(0.02, 1.3, dir, 1e-3).unwrap();
            assert!(same_bits(&got, &want), "{dir:?}");
        }
    }
    // errors are returned, not cached
    let bad = Pld::subsampled_gaussian_cached(0.02, 1.3, Neighbour::Add, 0.2);
    assert_eq!(param_of(bad), "grid_step");
}

#[test]
fn pair_build_shared_by_concurrent_callers_is_the_pld_itself() {
    // the two directions asked at once on the pool (as the DP-SGD accountant does) and from
    // plain threads: the pair is built once with its cells shared, every caller gets the
    // directly built PLD bit for bit; keys used by no other test. (σ = 0.01, h = 0.1: cells
    // whose e^z overflow, general splits; q = 1: the Gaussian)
    for (q, sigma, h) in [(0.03, 1.37, 2e-4), (1.0, 0.01, 0.1), (0.5, 0.011, 0.1)] {
        let want = [Neighbour::Remove, Neighbour::Add]
            .map(|d| Pld::subsampled_gaussian(q, sigma, d, h).unwrap());
        let (a, b) = crate::driver::pool().unwrap().install(|| {
            rayon::join(
                || Pld::subsampled_gaussian_cached(q, sigma, Neighbour::Remove, h),
                || Pld::subsampled_gaussian_cached(q, sigma, Neighbour::Add, h),
            )
        });
        assert!(same_bits(&a.unwrap(), &want[0]), "{q} {sigma}");
        assert!(same_bits(&b.unwrap(), &want[1]), "{q} {sigma}");
    }
    let (q, sigma, h) = (0.07, 0.93, 5e-4);
    let want = [Neighbour::Remove, Neighbour::Add]
        .map(|d| Pld::subsampled_gaussian(q, sigma, d, h).unwrap());
    std::thread::scope(|sc| {
        let hs: Vec<_> = (0..6)
            .map(|i| {
                let d = [Neighbour::Remove, Neighbour::Add][i % 2];
                sc.spawn(move || (i % 2, Pld::subsampled_gaussian_cached(q, sigma, d, h)))
            })
            .collect();
        for t in hs {
            let (i, p) = t.join().unwrap();
            assert!(same_bits(&p.unwrap(), &want[i]), "{i}");
        }
    });
}

#[test]
fn tiny_sigma_discretisation_is_finite_and_certified() {
    // σ = 0.01: losses up to ≈ 5945, far beyond e^709. Before: NaN masses (0·∞ in the cell
    // split) for q = 1, and for q = 0.5 every loss above 709 lumped at 709
    for q in [1.0, 0.5, 0.01] {
        for dir in [Neighbour::Remove, Neighbour::Add] {
            let p = Pld::subsampled_gaussian(q, 0.01, dir, 0.1).unwrap();
            assert!(
                p.pmf.iter().all(|w| w.is_finite() && *w >= 0.0),
                "{q} {dir:?}"
            );
            let tot: f64 = p.pmf.iter().sum::<f64>() + p.inf;
            assert!((tot - 1.0).abs() < 1e-9, "{q} {dir:?}: {tot}");
        }
    }
    // q = 1: the Gaussian mechanism with μ = 100; exact ε(1e-5) = 5425.50984614743 (pabi's
    // gdp_epsilon, mpmath agrees to 1e-12)
    let p = Pld::subsampled_gaussian(1.0, 0.01, Neighbour::Remove, 0.1).unwrap();
    let c = compose(&[(&p, 1)], DEFAULT_TAIL).unwrap();
    let (lo, _, up) = c.epsilon(1e-5);
    assert!(lo <= 5425.509846147 && up >= 5425.509846148, "{lo} {up}");
}

#[test]
fn profiles_composed_epsilon_is_the_one_by_one_route() {
    // three Laplace-mechanism profiles δ(kh) = max(0, 1 − e^{(kh − ε0)/2}) (ε0 = 0.5, 1, 2) and
    // one that is not a profile (increasing): each element is from_profile + compose +
    // epsilon's upper end, or its error
    let h = 0.05;
    let mut values = Vec::new();
    let mut offsets = vec![0];
    for e0 in [0.5f64, 1.0, 2.0] {
        values.extend((0..=60).map(|k| (-((k as f64 * h - e0) / 2.0).exp_m1()).max(0.0)));
        offsets.push(values.len());
    }
    values.extend([0.1, 0.2, 0.3]);
    offsets.push(values.len());
    let delta = [1e-5, 1e-6, 1e-5, 1e-5];
    let out = profiles_composed_epsilon(h, &values, &offsets, 3, DEFAULT_TAIL, &delta).unwrap();
    for k in 0..4 {
        let one = Pld::from_profile(h, &values[offsets[k]..offsets[k + 1]])
            .and_then(|p| compose(&[(&p, 3)], DEFAULT_TAIL))
            .map(|c| c.epsilon(delta[k]).2);
        match (&out[k], one) {
            (Ok((a, m)), Ok(b)) => {
                assert_eq!(a.to_bits(), b.to_bits(), "{k}");
                // the mass that upper ε takes from δ: the composition's own
                let p = Pld::from_profile(h, &values[offsets[k]..offsets[k + 1]]).unwrap();
                let c = compose(&[(&p, 3)], DEFAULT_TAIL).unwrap();
                let want = c.upper_epsilon_and_mass(delta[k]);
                assert_eq!(
                    (a.to_bits(), m.to_bits()),
                    (want.0.to_bits(), want.1.to_bits()),
                    "{k}"
                );
                assert!(*m >= c.inf && *m < delta[k], "{k}: {m}");
            }
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{k}"),
            (a, b) => panic!("{k}: {a:?} vs {b:?}"),
        }
    }
    assert!(out[3].is_err());
    // the outer errors come before any work: bad offsets, a δ outside (0, 1) with its index
    assert!(profiles_composed_epsilon(h, &values, &offsets[..4], 3, DEFAULT_TAIL, &delta).is_err());
    let e = profiles_composed_epsilon(
        h,
        &values,
        &offsets,
        3,
        DEFAULT_TAIL,
        &[1e-5, 1e-5, 1.5, 1e-5],
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("delta") && e.contains("index 2"), "{e}");
}

/// `upper_epsilon` (which skips the FFT where the composed +∞ mass alone makes the upper ε
/// +∞) is the composition's upper ε to the bit, at targets δ around that mass: profiles with a
/// +∞ atom (a floor c of δ: the atom c), one to three times, and a profile the composition
/// rejects (its error first, whatever the target).
#[test]
fn upper_epsilon_is_the_composed_one() {
    let h = 0.05;
    let mut skipped = 0;
    for c in [0.05, 0.3, 0.6, 0.9] {
        // δ(kh) = max(c, 1 − e^{(kh − 1)/2}): a Laplace-like profile over the atom c
        let v: Vec<f64> = (0..=60)
            .map(|k| (-((k as f64 * h - 1.0) / 2.0).exp_m1()).max(c))
            .collect();
        let p = Pld::from_profile(h, &v).unwrap();
        for t in 1..=3u64 {
            let full = compose(&[(&p, t)], DEFAULT_TAIL).unwrap();
            let m = full.inf;
            assert!(m > 0.0 && m < 1.0, "{c} {t}: {m}");
            for d in [
                m * 0.5,
                m * (1.0 - 1e-9),
                m,
                m * (1.0 + 1e-10),
                (m * (1.0 + 1e-10)).next_up(),
                m * (1.0 + 1e-9),
                (1.0 + m) / 2.0,
            ] {
                if !(d > 0.0 && d < 1.0) {
                    continue;
                }
                let (got, mass) =
                    super::profile::upper_epsilon(&[(&p, t)], DEFAULT_TAIL, d).unwrap();
                let want = full.epsilon(d).2;
                assert_eq!(got.to_bits(), want.to_bits(), "c {c} t {t} delta {d}");
                // the mass that ε takes from δ: the +∞ mass as it counts it where the FFT was
                // skipped, else the composition's own; it reaches δ where (and only where) ε is +∞
                let skip = Composition::upper_epsilon_infinite(m, d);
                let want_mass = if skip {
                    super::bracket::inf_up(m)
                } else {
                    full.upper_epsilon_and_mass(d).1
                };
                assert_eq!(mass.to_bits(), want_mass.to_bits(), "c {c} t {t} delta {d}");
                assert!(mass >= m);
                assert_eq!(
                    got == f64::INFINITY,
                    mass >= d * (1.0 - 1e-15),
                    "c {c} t {t} delta {d}: {mass}"
                );
                skipped += usize::from(skip);
            }
        }
    }
    assert!(skipped >= 12, "{skipped}");
    // a composition it rejects (a count beyond 2^53): the error, also where the +∞ mass alone
    // would decide
    let v: Vec<f64> = (0..=60)
        .map(|k| (-((k as f64 * h - 1.0) / 2.0).exp_m1()).max(0.6))
        .collect();
    let p = Pld::from_profile(h, &v).unwrap();
    let parts = [(&p, MAX_TIMES + 1)];
    let want = compose(&parts, DEFAULT_TAIL).unwrap_err().to_string();
    let got = super::profile::upper_epsilon(&parts, DEFAULT_TAIL, 0.5).unwrap_err();
    assert_eq!(got.to_string(), want);
}

/// The chunked suffix sums: against double-double serial recursions (with the same rounded
/// e^{−h}) within 1e-14 relative, far inside the (3W + 10)u that the queries add; a one-chunk
/// window gets exactly the serial pass's bits; no bit depends on the thread count, nor on the
/// order in which the chunks are formed (one by one as read, or all at once on the pool).
#[test]
fn chunked_suffix_sums_match_the_serial_recursions() {
    use super::suffix::Suffix;
    use crate::num::dd::Dd;
    let w_pmf = |w: usize| -> Vec<f64> {
        (0..w)
            .map(|i| {
                let z = (i as f64 - 0.4 * w as f64) / (0.1 * w as f64);
                (-0.5 * z * z).exp() * 1e-5 * (1.0 + ((i * 7919) % 13) as f64 / 13.0)
            })
            .collect()
    };
    let emh = (-1e-3f64).exp();
    // (s0, s1) at every point, read from the top down (lazily) or formed first on `threads`
    let run = |pmf: &[f64], threads: usize, fill: bool| {
        let prev = crate::driver::num_threads();
        crate::driver::set_num_threads(threads).unwrap();
        let (sums, mass) = Suffix::new(pmf, emh).unwrap();
        if fill {
            sums.fill(pmf);
        }
        crate::driver::set_num_threads(prev).unwrap();
        let w = pmf.len();
        let mut v: Vec<(f64, f64)> = (0..=w).rev().map(|i| sums.at(pmf, i)).collect();
        v.reverse();
        (v, mass)
    };
    for w in [5000usize, 3 * (1 << 14) + 12_347] {
        let pmf = w_pmf(w);
        let (s, mass) = run(&pmf, 1, false);
        // double-double references, from the top
        let (mut r0, mut r1) = (Dd::default(), Dd::default());
        let bound = (3.0 * w as f64 + 10.0) * crate::num::round::U;
        for i in (0..w).rev() {
            r0 = r0.add_f(pmf[i]);
            r1 = r1.mul_f(emh).add_f(pmf[i]);
            for (got, want) in [(s[i].0, r0.to_f64()), (s[i].1, r1.to_f64())] {
                let rel = (got - want).abs() / want;
                assert!(rel <= 1e-14 && rel <= bound, "w={w} i={i}: {got} vs {want}");
            }
        }
        assert!((mass - r0.to_f64()).abs() <= 1e-14 * mass);
        assert_eq!(s[w], (0.0, 0.0));
        let bits = |v: &[(f64, f64)]| {
            v.iter()
                .map(|x| (x.0.to_bits(), x.1.to_bits()))
                .collect::<Vec<_>>()
        };
        for (threads, fill) in [(3, false), (3, true), (1, true)] {
            let again = run(&pmf, threads, fill);
            assert_eq!(bits(&s), bits(&again.0));
            assert_eq!(mass.to_bits(), again.1.to_bits());
        }
        // read in a scattered order: the same values
        let (sums, _) = Suffix::new(&pmf, emh).unwrap();
        for i in (0..=w).step_by(997).chain([w / 2, 0, w]) {
            let got = sums.at(&pmf, i);
            assert_eq!(
                (got.0.to_bits(), got.1.to_bits()),
                (s[i].0.to_bits(), s[i].1.to_bits())
            );
        }
        if w <= 1 << 14 {
            // one chunk: the serial pass (Kahan on s0, the recursion on s1, the mass upwards)
            let (mut n0, mut k, mut n1, mut m) = (0.0f64, 0.0f64, 0.0f64, 0.0f64);
            for i in (0..w).rev() {
                let y = pmf[i] - k;
                let t = n0 + y;
                k = (t - n0) - y;
                n0 = t;
                n1 = pmf[i] + emh * n1;
                assert_eq!(
                    (s[i].0.to_bits(), s[i].1.to_bits()),
                    (n0.to_bits(), n1.to_bits())
                );
            }
            pmf.iter().for_each(|&x| m += x);
            assert_eq!(mass.to_bits(), m.to_bits());
        }
    }
}
