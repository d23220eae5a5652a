//! Unit tests of the online bounds: the suffix scan against a sequential evaluation, the block
//! kernels against the scalar forms, and the certified quadrature and sums against direct
//! evaluation.

use super::limit::gauss_direct_chunk;
use super::quadrature::QPoint;
use super::suffix::{fill_factor_logs, scan_all, SCAN_CHUNK};
use super::*;
use crate::pnsgd::log_b_gauss_block;

fn noise(n: usize) -> Vec<f64> {
    (1..=n)
        .map(|t| 40.0 * (t as f64).powf(-0.3) * (0.8 + 0.4 * ((t * 7919 % 1000) as f64) / 1000.0))
        .collect()
}

/// The chunked scan (several chunks) against a plain sequential scalar evaluation
/// of ln A_i + Σ_{t>i} ln B_t with the same per-step factors.
#[test]
fn chunked_scan_matches_sequential() {
    for kind in [Noise::Gaussian, Noise::Laplace] {
        let p = Problem::new(1.0, 1.0, 0.1, 1.0, None, 0.0).unwrap();
        let mut s = noise(3 * SCAN_CHUNK + 123);
        if kind == Noise::Laplace {
            // r_B = 10/v > ε mostly (B > 0); a few zero factors remain
            s.iter_mut().for_each(|x| *x /= 20.0);
            s[5000] = 100.0;
        }
        let mut out = vec![0.0; s.len()];
        online_log_delta_all(kind, &p, &s, &mut out).unwrap();
        let (mut la, mut lb) = (vec![0.0; s.len()], vec![0.0; s.len()]);
        fill_factor_logs(kind, p.eps, p.radii(), &s, &mut la, &mut lb);
        let mut acc = Neumaier::default(); // sequential compensated sum
        let mut zero = false;
        for t in (0..s.len()).rev() {
            let want = la[t] + acc.value();
            if zero || la[t] == f64::NEG_INFINITY {
                assert_eq!(out[t], f64::NEG_INFINITY);
                zero |= lb[t] == f64::NEG_INFINITY;
                if !zero {
                    acc.add(lb[t]);
                }
                continue;
            }
            assert!(
                (out[t] - want).abs() <= 1e-13 * want.abs().max(1.0),
                "{kind:?} {t}: {} vs {want}",
                out[t]
            );
            assert!(out[t] >= want.min(0.0), "{kind:?} {t}: not rounded up"); // rounded up
            if lb[t] == f64::NEG_INFINITY {
                zero = true;
            } else {
                acc.add(lb[t]);
            }
        }
        // values: exp of the logs, rounded up, in [0, 1]
        let mut v = vec![0.0; s.len()];
        online_delta_all(kind, &p, &s, &mut v, false).unwrap();
        let checked = out.iter().filter(|v| v.is_finite()).count();
        assert!(
            checked > s.len() / 2,
            "{kind:?}: too few finite values to test"
        );
        for t in 0..s.len() {
            let e = out[t].exp();
            assert!(v[t] >= e && v[t] <= 1.0 && v[t] <= e * (1.0 + 1e-13) + 1e-320);
        }
    }
}

/// The scan taken in parallel on the pool gives the serial scan's bits (the chunks, their sums
/// and offsets do not depend on the path), zero factors included (any number of workers:
/// `driver_tests::scan_rev_is_the_serial_scan`).
#[test]
fn parallel_scan_equals_serial_bitwise() {
    let p = Problem::new(1.0, 1.0, 0.1, 1.0, None, 0.0).unwrap();
    for kind in [Noise::Gaussian, Noise::Laplace] {
        let mut s = noise(5 * SCAN_CHUNK + 77);
        if kind == Noise::Laplace {
            s.iter_mut().for_each(|x| *x /= 20.0);
            s[3 * SCAN_CHUNK + 5] = 100.0; // B = 0 inside a chunk
        }
        for log in [true, false] {
            let mut want = vec![0.0; s.len()];
            scan_all(kind, &p, &s, &mut want, log, 1).unwrap();
            // several workers whatever the test pool's size (2, 3, 8: fewer, as many as and more
            // than some chunk counts)
            for workers in [2, 3, 8] {
                let mut got = vec![0.0; s.len()];
                scan_all(kind, &p, &s, &mut got, log, workers).unwrap();
                for t in 0..s.len() {
                    assert_eq!(
                        got[t].to_bits(),
                        want[t].to_bits(),
                        "{kind:?} {workers} {t}"
                    );
                }
            }
            if kind == Noise::Laplace {
                // every step up to the zero factor is −∞ (log) / 0, none after it
                let z = 3 * SCAN_CHUNK + 5;
                let gone = if log { f64::NEG_INFINITY } else { 0.0 };
                assert!(want[..z].iter().all(|&v| v == gone));
                assert!(want[z + 1..].iter().all(|&v| v != gone)); // (A_z = 0 too)
            }
        }
    }
}

/// The Gaussian factor logs by blocks equal the scalar forms bitwise.
#[test]
fn block_factor_logs_equal_scalar() {
    let p = Problem::new(0.7, 1.3, 0.1, 1.0, None, 0.0).unwrap();
    let mut s = noise(1000);
    s.extend([1e-3, 1e3, 0.05, 3.0, 1e-6]);
    let (mut la, mut lb) = (vec![0.0; s.len()], vec![0.0; s.len()]);
    fill_factor_logs(Noise::Gaussian, p.eps, p.radii(), &s, &mut la, &mut lb);
    for (t, &x) in s.iter().enumerate() {
        let (ra, rb) = p.radii().at(x);
        let a = theta::theta(p.eps, ra);
        let want_a = if a > 1e-300 {
            let l = vmath::ln(a);
            l - 2.0 * f64::EPSILON * l
        } else {
            theta::log_theta(p.eps, ra)
        };
        assert_eq!(la[t].to_bits(), want_a.to_bits(), "ln A at {t}");
        let u = theta::theta_complement(p.eps, rb);
        let mut one = [0.0];
        log_b_gauss_block(
            &mut crate::theta::ThetaBlocks::default(),
            &[u],
            &[p.eps],
            &[rb],
            &mut one,
        );
        assert_eq!(lb[t].to_bits(), one[0].to_bits(), "ln B at {t}");
        assert!(lb[t] <= 0.0 && la[t] <= 0.0);
    }
}

/// The block direct sum of the Gaussian schedule is bitwise equal to the scalar loop over g,
/// including ranges that end inside a block, and lanes with θ < ½ (small r: the θ kernel).
#[test]
fn gauss_direct_chunk_equals_scalar_loop() {
    let mut scheds = schedules();
    let p = Problem::new(3.0, 0.5, 0.01, 1.0, None, 0.0).unwrap();
    scheds.push(OnlineSchedule::new(Noise::Gaussian, p, 1e4, 0.5, 1.1).unwrap());
    for sc in scheds.iter().filter(|s| s.kind == Noise::Gaussian) {
        for (from, len) in [(1.0, 1000u64), (101.0, 77), (262_245.0, 300), (1e12, 33)] {
            let mut acc = Neumaier::default();
            for k in 0..len {
                acc.add(sc.g(from + k as f64));
            }
            let b = gauss_direct_chunk(sc, from, 0, len);
            assert_eq!((b.s, b.c), (acc.s, acc.c), "from {from}, len {len}");
        }
    }
}

fn schedules() -> Vec<OnlineSchedule> {
    let mut v = Vec::new();
    for kind in [Noise::Gaussian, Noise::Laplace] {
        for (eps, c1, c2, decay) in [
            (1.0, 100.0, 100.0, 1.5), // Fig. 4/5
            (0.5, 5.0, 3.0, 2.0),
            (2.0, 1.0, 10.0, 1.2),
            (6.0, 30.0, 0.0, 3.0),
        ] {
            let p = Problem::new(eps, 10.0, 0.01, 1.0, None, 0.0).unwrap();
            v.push(OnlineSchedule::new(kind, p, c1, c2, decay).unwrap());
        }
    }
    v
}

/// The interval bounds of ℓ' and ℓ'' on a piece contain the divided differences of ℓ
/// (mean-value theorem: (ℓ(s+h) − ℓ(s))/h = ℓ'(ξ), second differences/h² = ℓ''(ξ)).
#[test]
fn piece_bounds_contain_divided_differences() {
    for sch in schedules() {
        for s0 in [1.0f64, 2.5, 4.0, 7.0, 12.5, 20.0, 40.0] {
            if sch.kind == Noise::Laplace && sch.check_index("i", s0.exp().ceil()).is_err() {
                continue;
            }
            let h = 0.05;
            let (p, m, q) = (sch.qpoint(s0), sch.qpoint(s0 + h), sch.qpoint(s0 + 2.0 * h));
            let mid = |x: &QPoint| 0.5 * (x.l_lo + x.l_hi);
            let ((llo, lhi), _) = sch.piece_bounds(&p, &m);
            let d1 = (mid(&m) - mid(&p)) / h;
            let tol1 = 1e-11 * (1.0 + mid(&p).abs());
            assert!(
                d1 >= llo - tol1 && d1 <= lhi + tol1,
                "{:?} s={s0}: ℓ' {d1} not in [{llo}, {lhi}]",
                sch.kind
            );
            // tight: the width of the L bracket is O(h·sup|ℓ''|) (where F' = e^ℓ is small, as in the tails)
            let (_, (m1, m2)) = sch.piece_bounds(&p, &m);
            assert!(
                p.l_hi > -4.0 || lhi - llo <= 4.0 * h * m1.abs().max(m2.abs()) + 1e-12,
                "{:?} s={s0}: L bracket [{llo}, {lhi}] too wide for ℓ'' in [{m1}, {m2}]",
                sch.kind
            );
            let (_, (mlo, mhi)) = sch.piece_bounds(&p, &q);
            let d2 = (mid(&p) - 2.0 * mid(&m) + mid(&q)) / (h * h);
            let tol2 = 4e-12 * (1.0 + mid(&p).abs()) / (h * h);
            assert!(
                d2 >= mlo - tol2 && d2 <= mhi + tol2,
                "{:?} s={s0}: ℓ'' {d2} not in [{mlo}, {mhi}]",
                sch.kind
            );
        }
    }
}

/// The certified bracket of ∫_X^∞ g contains the tanh–sinh value (accurate to ~1e-15
/// there) and is narrow.
#[test]
fn certified_bracket_contains_quadrature_and_is_narrow() {
    for sch in schedules() {
        for (x0, tol) in [(101.0, 1e-10), (262_245.0, CERT_TOL), (1e9, CERT_TOL)] {
            if sch.check_index("i", x0 - 1.0).is_err() {
                continue;
            }
            let (lo, hi) = sch.integral_bracket(x0, tol);
            let (v, e) = sch.integral_from(x0);
            assert!(
                e <= 1e-14 * v.abs(),
                "{:?} x0={x0}: tanh-sinh estimate {e}",
                sch.kind
            );
            assert!(
                lo <= v && v <= hi,
                "{:?} x0={x0}: {v} not in [{lo}, {hi}]",
                sch.kind
            );
            let w = (hi - lo) / v.abs();
            assert!(
                w < 4.0 * tol.max(3e-13),
                "{:?} x0={x0}: relative width {w:e}",
                sch.kind
            );
        }
    }
}

/// The Gaussian concavity condition: where it holds, g has negative second differences
/// from a on; with C2 huge it fails (ρ ≈ 0: g is convex near a) and g is indeed convex there.
#[test]
fn gauss_concavity_condition() {
    for sch in schedules()
        .into_iter()
        .filter(|s| s.kind == Noise::Gaussian)
    {
        let a = 262_245.0;
        assert!(
            sch.concave_from(a),
            "{:?}",
            (sch.p.eps, sch.c1, sch.c2, sch.decay)
        );
        for k in 0..40 {
            let x = a * 2f64.powi(k);
            let h = x / 8.0;
            let d2 = sch.g(x - h) + sch.g(x + h) - 2.0 * sch.g(x);
            assert!(d2 < 0.0, "second difference at {x}: {d2}");
        }
    }
    let p = Problem::new(1.0, 10.0, 0.01, 1.0, None, 0.0).unwrap();
    let sch = OnlineSchedule::new(Noise::Gaussian, p, 100.0, 1e20, 1.5).unwrap();
    assert!(!sch.concave_from(262_245.0));
    let x = 262_245.0;
    assert!(sch.g(x - x / 8.0) + sch.g(x + x / 8.0) - 2.0 * sch.g(x) > 0.0);
    // the condition is met further out, where C2 no longer dominates z
    assert!(sch.concave_from(1e9));
}

/// Deterministic uniform draws in [0, 1) (64-bit LCG, top 53 bits).
fn uniform(mut state: u64) -> impl FnMut() -> f64 {
    move || {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A random schedule (Gaussian for even k, Laplace for odd): ε ∈ [0, 8), C1, C2 log-uniform
/// over `decades` decades from 0.1 (C2 = 0 with probability `zero_c2`), decay ∈ [1.1, 4).
fn random_schedule(
    k: usize,
    unif: &mut impl FnMut() -> f64,
    decades: f64,
    zero_c2: f64,
) -> (OnlineSchedule, (Noise, f64, f64, f64, f64)) {
    let kind = if k % 2 == 0 {
        Noise::Gaussian
    } else {
        Noise::Laplace
    };
    let eps = 8.0 * unif();
    let c1 = 10f64.powf(-1.0 + decades * unif());
    let c2 = if zero_c2 > 0.0 && unif() < zero_c2 {
        0.0
    } else {
        10f64.powf(-1.0 + decades * unif())
    };
    let decay = 1.1 + 2.9 * unif();
    let p = Problem::new(eps, 1.0, 0.1, 1.0, None, 0.0).unwrap();
    let sch = OnlineSchedule::new(kind, p, c1, c2, decay).unwrap();
    (sch, (kind, eps, c1, c2, decay))
}

/// Random parameters (fixed-seed): the certified bracket contains the tanh–sinh value
/// wherever that one's error estimate is small, and the certified tail bound of the sum lies
/// above the Euler–Maclaurin estimate.
#[test]
fn certified_bracket_random_parameters() {
    let mut unif = uniform(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    for k in 0..30 {
        let (sch, (kind, eps, c1, c2, decay)) = random_schedule(k, &mut unif, 5.0, 0.2);
        for x0 in [30.0, 262_245.0, 1e7] {
            if sch.check_index("i", x0 - 1.0).is_err() {
                continue;
            }
            let (lo, hi) = sch.integral_bracket(x0, 1e-10);
            assert!(
                !lo.is_nan() && lo <= hi && hi <= 0.0,
                "{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} x0={x0}: [{lo}, {hi}]"
            );
            let (v, e) = sch.integral_from(x0);
            if e <= 1e-14 * v.abs() {
                checked += 1;
                let slack = 1e-15 * v.abs(); // the estimate's own rounding
                assert!(
                    lo - slack <= v && v <= hi + slack,
                    "{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} x0={x0}: {v} not in [{lo}, {hi}]"
                );
            }
            let (em, m) = sch.tail_em(x0);
            assert!(
                em.is_finite() && m.is_finite(),
                "{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} x0={x0}: EM tail {em} ± {m}"
            );
            assert!(
                sch.sum_upper(x0, None) >= em - m,
                "{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} x0={x0}: {} < {em} - {m}; [{lo}, {hi}], quad {v} ± {e}, g = {}",
                sch.sum_upper(x0, None),
                sch.g(x0)
            );
        }
    }
    assert!(checked > 30, "only {checked} comparisons");
}

/// The certified upper bound of a finite sum Σ_{t=a}^{n} g(t) against the sum itself, summed
/// term by term (random parameters, fixed seed): never below it (the direct terms are rounded
/// up by ≤ 2^-46 relative, so the exact sum is ≥ direct − 2^-45·|direct|), and tight.
#[test]
fn certified_finite_sum_against_direct_sum() {
    let mut unif = uniform(0x2545_F491_4F6C_DD1D);
    let (mut worst, mut with_g3) = (0.0f64, 0);
    for k in 0..24 {
        let (sch, (kind, eps, c1, c2, decay)) = random_schedule(k, &mut unif, 4.0, 0.0);
        for a in [40.0, 3000.0, 262_145.0] {
            if sch.check_index("i", a - 1.0).is_err() {
                continue; // B_t = 0 below this index: no schedule
            }
            let n = a + 65_536.0;
            let direct = sch.direct(a, n);
            let up = sch.sum_upper(a, Some(n));
            let what = format!("{kind:?} eps={eps} c1={c1} c2={c2} decay={decay} a={a}");
            assert!(
                up.is_finite() && direct.is_finite(),
                "{what}: {up} {direct}"
            );
            let floor = direct - 2f64.powi(-45) * direct.abs();
            assert!(up >= floor, "{what}: certified {up} below the sum {direct}");
            let gap = up - direct; // the relative error of δ = e^S it causes
            let g3 = sch.bracket(a, CERT_TOL, Some(n)).g3;
            with_g3 += usize::from(g3);
            // the gap: the quadrature width (≈ 2e-13 of |∫ g|), plus the rule's defect:
            // concave g with the g''' step ≈ ∫_a^{a+2}|g''|/12 ≈ |g''(a)|/6 (the subtracted
            // integral starts at a + 2; allowed 1.5×), concave g without it
            // Σ|g''|/12 ≈ g'(a)/12 (allowed 2×); the monotone bound ∫_a^{n+1} g defect
            // Σ(∫_t^{t+1} g − g(t)) ≤ g(n + 1) − g(a)
            let d1 = sch.g(a + 1.0) - sch.g(a);
            let d2 = d1 - (sch.g(a + 2.0) - sch.g(a + 1.0));
            let defect = if !sch.concave_from(a) {
                sch.g(n + 1.0) - sch.g(a)
            } else if g3 {
                d2.abs() / 4.0
            } else {
                d1.abs() / 6.0
            };
            let allowed = 1e-12 * direct.abs() + 1e-18 + defect; // (1e-18: rounding floor)
            assert!(gap <= allowed, "{what}: gap {gap:e} (g3 {g3})");
            if a > 1e5 {
                worst = worst.max(gap / direct.abs().max(1.0));
            }
        }
    }
    assert!(
        with_g3 > 10,
        "only {with_g3} cases with the g''' correction"
    );
    // where pabi uses it (a = i + 2^18 + 1): the log of δ is within 3e-13·max(1, |Σ g|)
    // (the quadrature's relative width), i.e. δ within 3e-13·max(1, |ln δ|) relative
    assert!(worst <= 3e-13, "worst gap at a = 2^18 + 1: {worst:e}");
    eprintln!("certified finite sum at a = 2^18 + 1: worst gap / max(1, |sum|) {worst:e}");
}

/// The schedules at huge ε (limit.rs, "Huge ε"): the Fig. 5 Gaussian schedule at ε = 1e3 and a
/// Laplace one whose mass lies at x^α ≈ C1C2 = 1e250.
fn huge_eps() -> Vec<OnlineSchedule> {
    let pg = Problem::new(1e3, 10.0, 0.01, 1.0, None, 0.0).unwrap();
    let pl = Problem::new(1e3, 10.0, 0.1, 1.0, None, 0.0).unwrap();
    vec![
        OnlineSchedule::new(Noise::Gaussian, pg, 100.0, 100.0, 1.5).unwrap(),
        OnlineSchedule::new(Noise::Laplace, pl, 1.0, 1e250, 1.5).unwrap(),
    ]
}

/// The Gauss–Legendre estimate agrees with the tanh–sinh one where that is accurate, and with
/// the certified bracket; its error estimate is small.
#[test]
fn gauss_legendre_estimate_agrees_with_tanh_sinh_and_bracket() {
    for sch in schedules() {
        for x0 in [101.0, 262_245.0, 1e9] {
            if sch.check_index("i", x0 - 1.0).is_err() {
                continue;
            }
            let (v, e) = sch.integral_gl(x0);
            let (t, _) = sch.integral_from(x0);
            let (lo, hi) = sch.integral_bracket(x0, 1e-10);
            let k = format!(
                "{:?} x0={x0}: gl {v} ± {e}, tanh-sinh {t}, [{lo}, {hi}]",
                sch.kind
            );
            assert!(e <= 1e-12 * v.abs(), "{k}");
            assert!((v - t).abs() <= 2e-13 * t.abs(), "{k}");
            assert!(v + e >= lo && v - e <= hi, "{k}");
            // where tanh-sinh sees the whole integrand, the combined estimate is it, bit for bit
            assert_eq!(sch.integral_est(x0).0, t, "{k}");
        }
    }
}

/// At huge ε the tanh–sinh estimate misses the far mass (the combined one switches to
/// Gauss–Legendre); the certified quadrature gives up early (aborted) with a valid, loose
/// bound; the monotone bound lies above the estimate by ≈ 1e-3 or less; nothing saturates.
#[test]
fn huge_eps_estimate_and_certified_fallbacks() {
    for sch in huge_eps() {
        let a = 262_245.0;
        let (t, _) = sch.integral_from(a);
        let (v, e) = sch.integral_est(a);
        let k = format!("{:?}: tanh-sinh {t}, estimate {v} ± {e}", sch.kind);
        assert!(v < -1e90 && e <= 1e-12 * v.abs(), "{k}");
        assert_ne!(v, t, "{k}");
        let b = sch.bracket(a, CERT_TOL, None);
        assert!(b.aborted && b.hi >= v + e && b.lo <= v - e, "{k}: {b:?}");
        let m = sch.integral_upper_monotone(a, None);
        let rel = (m - v) / v.abs();
        assert!((0.0..2e-3).contains(&rel), "{k}: monotone {m} ({rel:e})");
        // a finite end: below the infinite one's magnitude, above its own estimate
        let n = 1e60;
        let mn = sch.integral_upper_monotone(a, Some(n));
        assert!(mn >= m && mn <= 0.0, "{k}: to 1e60 {mn}");
        assert!(!sch.saturated(a, None), "{k}");
    }
}

/// The monotone bound is a certified upper bound where everything is known exactly: against
/// the certified bracket at ordinary parameters (≥ its lower end), within its stated looseness.
#[test]
fn monotone_bound_above_certified_bracket() {
    for sch in schedules() {
        for x0 in [101.0, 262_245.0] {
            if sch.check_index("i", x0 - 1.0).is_err() {
                continue;
            }
            let (lo, hi) = sch.integral_bracket(x0, CERT_TOL);
            let m = sch.integral_upper_monotone(x0, None);
            let k = format!("{:?} x0={x0}: monotone {m}, bracket [{lo}, {hi}]", sch.kind);
            assert!(m >= lo, "{k}");
            assert!((m - hi) / hi.abs() < 2e-3, "{k}");
        }
    }
}

/// Saturation: proven only where the tail is below −f64::MAX (ε = 1e30: ln δ ≈ −e^{1e29});
/// never at the paper's parameters; a finite end below where the mass starts stops the proof.
#[test]
fn saturation_only_where_proven() {
    let p = Problem::new(1e30, 10.0, 0.01, 1.0, None, 0.0).unwrap();
    let sch = OnlineSchedule::new(Noise::Gaussian, p, 100.0, 100.0, 1.5).unwrap();
    assert!(sch.saturated(101.0, None));
    assert!(sch.saturated(101.0, Some(1e300)));
    assert!(!sch.saturated(101.0, Some(1e4))); // 1e4 terms of ≈ −1e57: far above −f64::MAX
    assert_eq!(sch.log_delta_limit(100.0).unwrap(), -f64::MAX);
    assert_eq!(sch.log_delta_limit_bound(100.0).unwrap(), -f64::MAX);
    assert_eq!(sch.log_delta_star_upper(100.0, false).unwrap(), -f64::MAX);
    assert_eq!(sch.log_delta_star_lower(100.0).unwrap(), f64::NEG_INFINITY);
    for s in schedules().into_iter().chain(huge_eps()) {
        assert!(!s.saturated(101.0, None), "{:?}", s.kind);
    }
}

/// The branch-free block radii (`Radii::at_block`, `gd::radii_lanes`) equal `Radii::at`
/// bitwise on every lane: quotients exact and
/// inexact, tiny (below 2^-969, the `div_up` special path, and below the 1e-300 floor), huge,
/// infinite noise, and blocks mixing those with ordinary lanes (the fallback recomputes the block).
#[test]
fn radii_block_equals_radii_at() {
    use crate::gd::Radii;
    use crate::num::test_rng::XorShift;
    let mut rng = XorShift::new();
    let special = [
        1.0,
        3.0,
        0.1,
        1e-300,
        5e-324,
        1e300,
        f64::MAX,
        f64::INFINITY,
        1e290,
        2.0f64.powi(968),
        2.0f64.powi(-1000),
        7.0,
    ];
    for rad in [
        Radii::new(1.0, 1.0, 1.0, 0.1),
        Radii::new(3.0, 0.7, 2.5, 0.03),
        Radii::new(1e-300, 1.0, 1e-10, 1.0),
        Radii::new(1e300, 1.0, 1e5, 1e-3),
    ] {
        for round in 0..200 {
            let n = 1 + round % theta::BLOCK;
            let s: Vec<f64> = (0..n)
                .map(|_| {
                    if rng.next_f64() < 0.1 {
                        special[(rng.next_f64() * special.len() as f64) as usize % special.len()]
                    } else {
                        10f64.powf(rng.next_f64() * 8.0 - 4.0)
                    }
                })
                .collect();
            let (mut ra, mut rb) = ([0.0; theta::BLOCK], [0.0; theta::BLOCK]);
            rad.at_block(&s, &mut ra, &mut rb);
            // per-lane numerators (the pnsgd kernels): this numerator on odd lanes
            let other = Radii::new(0.5, 0.9, 3.0, 0.2);
            let pick = |t: usize| if t % 2 == 1 { rad } else { other };
            let (mut pa, mut pb) = ([0.0; theta::BLOCK], [0.0; theta::BLOCK]);
            crate::gd::radii_lanes(pick, &s, &mut pa, &mut pb);
            for t in 0..n {
                let (x, y) = rad.at(s[t]);
                assert_eq!(
                    (ra[t].to_bits(), rb[t].to_bits()),
                    (x.to_bits(), y.to_bits()),
                    "{}",
                    s[t]
                );
                let (x, y) = pick(t).at(s[t]);
                assert_eq!(
                    (pa[t].to_bits(), pb[t].to_bits()),
                    (x.to_bits(), y.to_bits()),
                    "{}",
                    s[t]
                );
            }
        }
    }
}

/// The many-element entry with a "defined" mask: C1 across the end of the Laplace domain at
/// a fixed ε (i^α + C1·C2 > C1·e^{ε/2}), and the Gaussian schedule (always defined). Each
/// element is the one-element `quantity` to the bit where that is defined, and undefined
/// (mask 0, NaN) exactly where `quantity` fails on the domain; the mask alone (no values) is
/// the same; an error of the horizon is raised at its element's index even where another
/// element is undefined, and with no values asked.
#[test]
fn quantities_if_defined_mask() {
    let (i, n, eps) = (100.0, 1000.0, 0.5);
    // C2 = 0.5, α = 1.5: defined for C1 < 1000/(e^{1/4} − 0.5) ≈ 1275.5
    let c1: Vec<f64> = [1.0, 100.0, 1275.0, 1276.0, 5000.0, f64::MAX].to_vec();
    let setup = [0.01, 1.0, 0.0]; // η, D, ρ (no smoothness)
    let schedule = |kind: Noise, c1: f64| {
        let p = Problem::new(eps, 10.0, setup[0], setup[1], None, setup[2])?;
        OnlineSchedule::new(kind, p, c1, 0.5, 1.5)
    };
    for (kind, q) in [
        (Noise::Laplace, OnlineQuantity::Delta),
        (Noise::Laplace, OnlineQuantity::LimitBound),
        (Noise::Gaussian, OnlineQuantity::Delta),
    ] {
        let steps = [n];
        let element = |[c1, n]: [f64; 2]| -> Result<(OnlineSchedule, f64, f64)> {
            Ok((schedule(kind, c1)?, n, i))
        };
        let (mut defined, mut values) = (vec![0.0; c1.len()], vec![0.0; c1.len()]);
        quantities_if_defined(
            [&c1, &steps],
            q,
            false,
            element,
            &mut defined,
            Some(&mut values),
        )
        .unwrap();
        let mut mask_only = vec![0.0; c1.len()];
        quantities_if_defined([&c1, &steps], q, false, element, &mut mask_only, None).unwrap();
        assert_eq!(defined, mask_only);
        for (j, &c) in c1.iter().enumerate() {
            match schedule(kind, c).unwrap().quantity(q, n, i, false) {
                Ok(v) => assert!(
                    defined[j] == 1.0 && v.to_bits() == values[j].to_bits(),
                    "{j}"
                ),
                Err(PabiError::Domain { param: "index", .. }) => {
                    assert!(defined[j] == 0.0 && values[j].is_nan(), "{j}")
                }
                Err(e) => panic!("{e}"),
            }
        }
        let want: &[f64] = if kind == Noise::Laplace {
            &[1.0, 1.0, 1.0, 0.0, 0.0, 0.0]
        } else {
            &[1.0; 6]
        };
        assert_eq!(defined, want);
        // a horizon below the index (element 4, undefined for Laplace at element 3): that error
        let bad = [n, n, n, n, 50.0, n];
        for values in [Some(&mut values[..]), None] {
            let r = quantities_if_defined([&c1, &bad], q, false, element, &mut defined, values);
            if q == OnlineQuantity::Delta && kind == Noise::Gaussian {
                assert!(matches!(
                    r,
                    Err(PabiError::Domain {
                        param: "steps",
                        index: Some(4),
                        ..
                    })
                ));
            } else {
                // Laplace: element 4 is undefined (the domain comes first), the limit reads no n
                assert!(r.is_ok(), "{r:?}");
            }
        }
    }
    // a bad constant is the one-element call's error, at its index
    let zero = [1.0, 0.0];
    let element = |[c1]: [f64; 1]| -> Result<(OnlineSchedule, f64, f64)> {
        Ok((schedule(Noise::Laplace, c1)?, n, i))
    };
    let mut defined = vec![0.0; 2];
    let r = quantities_if_defined(
        [&zero],
        OnlineQuantity::Delta,
        false,
        element,
        &mut defined,
        None,
    );
    assert!(matches!(
        r,
        Err(PabiError::Domain {
            param: "c1",
            index: Some(1),
            ..
        })
    ));
}
