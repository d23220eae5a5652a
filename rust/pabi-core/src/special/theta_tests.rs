//! Unit tests of [`super`] (θ's kernel, its block kernels, the complement forms, the
//! Laplace factors): bitwise equality of the block and scalar paths, and values against mpmath.

use super::*;
use crate::num::test_rng::XorShift;

// One block each with fresh storage (the kernels hold a `ThetaBlocks` per loop).
fn theta_block(eps: &[f64], r: &[f64], out: &mut [f64]) {
    ThetaBlocks::default().theta(eps, r, out);
}
fn log_theta_block(eps: &[f64], r: &[f64], out: &mut [f64]) {
    ThetaBlocks::default().log_theta(eps, r, out);
}
fn theta_complement_block(eps: &[f64], r: &[f64], out: &mut [f64]) {
    ThetaBlocks::default().theta_complement(eps, r, out);
}
fn log_theta_complement_block(eps: &[f64], r: &[f64], out: &mut [f64]) {
    ThetaBlocks::default().log_theta_complement(eps, r, out);
}

/// A block kernel and the scalar function it must equal lane by lane.
type Pair = (fn(&[f64], &[f64], &mut [f64]), fn(f64, f64) -> f64);

/// The four block kernels of the θ family and their scalar functions.
const FAMILY: [Pair; 4] = [
    (theta_block, theta),
    (log_theta_block, log_theta),
    (theta_complement_block, theta_complement),
    (log_theta_complement_block, log_theta_complement),
];

/// Each pair's block kernel over `eps`, `r` (in blocks of [`BLOCK`]) bitwise equal to its scalar
/// function at every lane (`what` names the inputs in a failure).
fn assert_blocks_equal_scalars(pairs: &[Pair], eps: &[f64], r: &[f64], what: &str) {
    for &(blk, sc) in pairs {
        let mut out = vec![0.0; eps.len()];
        for ((o, a), b) in out
            .chunks_mut(BLOCK)
            .zip(eps.chunks(BLOCK))
            .zip(r.chunks(BLOCK))
        {
            blk(a, b, o);
        }
        for i in 0..eps.len() {
            let want = sc(eps[i], r[i]);
            assert_eq!(
                out[i].to_bits(),
                want.to_bits(),
                "{what}, lane {i}: eps {} r {}",
                eps[i],
                r[i]
            );
        }
    }
}

/// The block kernels (array path) and the scalar functions are the same formulas: bitwise equal.
#[test]
fn block_equals_scalar_bitwise() {
    let mut rng = XorShift::new();
    let mut rnd = || rng.next_f64();
    let n = 4 * BLOCK + 7;
    let mut eps: Vec<f64> = (0..n).map(|_| 700.0 * rnd() * rnd()).collect();
    let mut r: Vec<f64> = (0..n).map(|_| 10f64.powf(-7.0 + 10.0 * rnd())).collect();
    eps[3] = 0.0;
    r[4] = 0.0;
    r[5] = f64::INFINITY;
    eps[6] = f64::INFINITY;
    // tiny and subnormal radii (the scaled quotient of `ab`), huge a (LOG_A_MAX)
    for (i, &(e, x)) in [
        (0.0, 5e-324),
        (0.0, 1e-310),
        (3e-311, 1e-310),
        (1e-300, 1e-290),
        (1e-150, 1e-304),
        (3e154, 1.0),
        (0.0, 4e154),
        (1.5e154, 1.0),
    ]
    .iter()
    .enumerate()
    {
        eps[8 + 5 * i] = e;
        r[8 + 5 * i] = x;
    }
    // both widths of the polynomial pass (the block kernels pick one by the CPU)
    let mut pairs = FAMILY.to_vec();
    pairs.extend_from_slice(&[
        (block::theta_block_narrow, theta),
        (block::log_theta_block_narrow, log_theta),
        (block::theta_block_wide, theta),
    ]);
    assert_blocks_equal_scalars(&pairs, &eps, &r, "random and special inputs");
}

/// Whole blocks whose lanes all sit in one band of a = ε/r − r/2 (the complements' kernels skip
/// the polynomial pass for groups with every a < −1, and ln(1 − θ) reads it for a ∈ [−1, 0)):
/// block and scalar paths bitwise equal in every band, and across band edges.
#[test]
fn block_equals_scalar_on_uniform_bands() {
    let mut rng = XorShift::with_seed(11);
    let mut rnd = || rng.next_f64();
    let bands = [
        (-1.0, 0.0),
        (-1.0, -0.999),
        (-8.0, -1.0),
        (-1.0001, -0.9999),
        (-40.0, -8.0),
        (0.0, 1.0),
    ];
    for &(lo, hi) in &bands {
        // r ∈ [2|lo| + 0.1, 2|lo| + 20] so that ε = r(a + r/2) ≥ 0 for every a of the band
        let (mut eps, mut r) = (vec![0.0; 4 * BLOCK], vec![0.0; 4 * BLOCK]);
        for i in 0..4 * BLOCK {
            let a: f64 = lo + (hi - lo) * rnd();
            r[i] = 2.0 * lo.abs() + 0.1 + 19.9 * rnd();
            eps[i] = (r[i] * (a + 0.5 * r[i])).max(0.0);
        }
        assert_blocks_equal_scalars(&FAMILY, &eps, &r, &format!("band {lo}..{hi}"));
    }
}

/// The polynomial complement factor (1 < −a ≤ POLY_COMP_MAX) agrees with the erfcx_pos one
/// to a few ulp over its whole range.
#[test]
fn complement_factor_near_equals_far() {
    let mut worst = 0.0_f64;
    for i in 0..4000 {
        let a = -1.0 - (POLY_COMP_MAX - 1.0) * (i as f64 + 0.5) / 4000.0;
        for &r in &[1e-3, 0.3, 2.0, 9.0, 16.5, 40.0] {
            let eps = r * (a + 0.5 * r);
            if eps < 0.0 {
                continue;
            }
            let p = pre(eps, r, 40.0, -1.0);
            if !comp_near(p.a, p.b, -1.0) {
                continue;
            }
            let (dd, u) = poly_dd(p.sa, p.sb);
            let near = comp_y_near(p.hd, dd, u);
            let far = comp_y_far(p.a, p.b);
            worst = worst.max((near / far - 1.0).abs());
        }
    }
    assert!(
        worst < 8.0 * f64::EPSILON,
        "worst relative difference {worst:e}"
    );
}

/// a exactly on a grid of eighths in [−8, −1), in particular a = −c = −4 (θ(10, 10),
/// θ(0, 8), θ(4.5, 9)), where a + c = 0 made the near complement lanes 0·∞ = NaN and θ
/// came out as 1 (a found by hypothesis in CI).
#[test]
fn complement_lanes_at_exact_a() {
    for k in 9..64 {
        let a = -(k as f64) / 8.0;
        for &r in &[-2.0 * a, -2.0 * a + 1.0, 9.0, 10.0, 12.0, 16.0] {
            let eps = r * (a + 0.5 * r);
            if eps < 0.0 {
                continue;
            }
            let p = pre(eps, r, 40.0, -1.0);
            assert_eq!(p.a, a, "eps {eps}, r {r}");
            let th = theta(eps, r);
            let co = theta_complement(eps, r);
            assert!(th < 1.0, "theta({eps}, {r}) = {th}");
            assert!(
                (th + co - 1.0).abs() < 3e-14,
                "theta({eps}, {r}) = {th}, complement {co}"
            );
            let far = comp_y_far(p.a, p.b);
            if comp_near(p.a, p.b, -1.0) {
                let (dd, u) = poly_dd(p.sa, p.sb);
                let near = comp_y_near(p.hd, dd, u);
                assert!(
                    (near / far - 1.0).abs() < 8.0 * f64::EPSILON,
                    "a {a}, r {r}"
                );
            }
            let mut out = [0.0; BLOCK];
            theta_block(&[eps; BLOCK], &[r; BLOCK], &mut out);
            assert!(out.iter().all(|&v| v == th), "block path at a {a}, r {r}");
        }
    }
}

/// Tiny and subnormal radii: ε/r from the scaled quotient (radii below 1e-300 had been
/// raised to 1e-300). Exact values from mpmath at 40 digits
/// (`pabi.reference.theta` / `log_theta` / `theta_complement` / `log_theta_complement`).
#[test]
#[allow(clippy::excessive_precision)]
fn tiny_radii_against_mpmath() {
    // θ(0, 1e-310): was 3.99e-301 (r raised to 1e-300); exact 3.98942280401431e-311
    let t = theta(0.0, 1e-310);
    let exact = 3.989_422_804_014_314_6e-311;
    assert!(t >= exact && t - exact <= 8.0 * 5e-324, "{t:e}");
    // ln θ(0, 5e-324): was −691.69; exact −745.35901045458590...
    let l = log_theta(0.0, 5e-324);
    let exact = -745.359_010_454_585_9;
    assert!(
        l >= exact && (l - exact).abs() <= 2e-14 * exact.abs(),
        "{l}"
    );
    // ln θ(1e-150, 1e-304): a = 1e154; was −5.0e299 (r raised to 1e-300)
    let l = log_theta(1e-150, 1e-304);
    assert!(
        (-5e307 * (1.0 + 1e-15)..=-5e307 * (1.0 - 3e-14)).contains(&l),
        "{l:e}"
    );
    // ε and r both subnormal, ε/r = 0.3: θ ≈ r·(φ(a)·…) relative to r
    let (e, x) = (3e-311, 1e-310);
    let lt = log_theta(e, x);
    // exact: ln θ(3e-311, 1e-310) (mpmath) = −715.12278007307318...
    let exact = -715.122_780_073_073_2;
    assert!(lt >= exact && (lt - exact).abs() < 2e-14 * 715.2, "{lt}");
    // the complements stay ≤ their exact values (1 − tiny, −tiny)
    assert!(theta_complement(0.0, 1e-310) < 1.0);
    assert!(log_theta_complement(0.0, 1e-310) < 0.0);
}

/// |a| near and beyond LOG_A_MAX (a²/2 = f64::MAX): ln θ is −f64::MAX (rounded up) where
/// the exact value is below −f64::MAX, ln(1 − θ) −∞ (rounded down). Before: a was clamped
/// at 1e154, so ln(1 − θ(0, 2.1e154)) was −5.0e307, above the exact −5.5125e307, and
/// ln θ(1.5e154, 1) −5.0e307 instead of −1.125e308.
#[test]
fn huge_a_in_the_log_kernels() {
    let l = log_theta(1.5e154, 1.0);
    let exact = -(0.75e154f64 * 1.5e154); // −a²/2 − ln(a√(2π)) − …, a = 1.5e154 − ½
    assert!(l >= exact && l <= exact * (1.0 - 3e-14), "{l:e}");
    let l = log_theta_complement(0.0, 2.1e154);
    // ln(1 − θ) = ln(Q(−a) + Q(b)) ≤ −a²/2, a = −1.05e154
    assert!(l <= -(0.525e154f64 * 1.05e154), "{l:e}");
    for &(e, x) in &[(3e154, 1.0), (1.0, 1e-160), (1e300, 1.0)] {
        assert_eq!(log_theta(e, x), -f64::MAX, "{e:e} {x:e}");
    }
    assert_eq!(log_theta_complement(0.0, 4e154), f64::NEG_INFINITY);
    // a ≈ 1e9: the low part of −a²/2 (≈ 1e2) had made e^{hi}(1 + lo) negative and
    // ln(1 − θ(1, 1e-9)) came out as 0, above the exact (negative) value
    assert!(log_theta_complement(1.0, 1e-9) < 0.0);
    assert!(log_theta_complement(2.942_016_394_682_226_4e-292, 5.451_296_731_808_387e-307) < 0.0);
}

/// Laplace factor for tiny ε − r: (0 − 5e-324)/2 rounds to −0, and θ(0, 5e-324) was 0
/// (exact 2.5e-324), its complement 1, its log −∞ (exact ln 2.5e-324 = −745.1332...).
#[test]
fn laplace_tiny_difference() {
    assert!(laplace_theta(0.0, 5e-324) >= 2.5e-324);
    assert!(laplace_theta_complement(0.0, 5e-324) < 1.0);
    let l = log_laplace_theta(0.0, 5e-324);
    let exact = (5e-324f64).ln() - std::f64::consts::LN_2; // ln(2.5e-324) to ~1e-300
    assert!(l >= exact && l - exact < 1e-12, "{l}");
    let l = log_laplace_theta(1e-310, 3e-310);
    let exact = -713.801_378_828_154_2; // ln(1 − e^{−1e-310}), mpmath
    assert!(l >= exact && l - exact < 1e-12, "{l}");
    assert_eq!(log_laplace_theta(1.0, 1.0), f64::NEG_INFINITY);
    assert_eq!(laplace_theta(1.0, 1.0), 0.0);
}

/// ε > 0 with a subnormal r: ε/r overflows, a = +∞, θ = 0 (it used to come out as 1).
#[test]
fn subnormal_r() {
    for &r in &[5e-324, 1e-310, 2e-308] {
        assert_eq!(theta(1.0, r), 4.0 * 5e-324); // the underflow guard of `up`
        assert!(theta_complement(1.0, r) > 0.999_999_999_999_999);
        let l = log_theta(1.0, r);
        assert!(l < -1e300, "log_theta(1, {r:e}) = {l:e}");
    }
}

/// The gathered complement lanes of the ln θ block kernel (a < −1: exp + log1p only there):
/// blocks with 0, 1, 8, 9, 17 and 32 such lanes, at scattered positions, mixed with special
/// inputs and huge a, equal the scalar ln θ bitwise; and ln θ agrees with ln of θ there.
#[test]
fn log_theta_block_gathered_complement_lanes() {
    for &k in &[0_usize, 1, 8, 9, 17, 32] {
        for shift in 0..3 {
            let mut eps = [2.0_f64; BLOCK];
            let mut r = [0.5_f64; BLOCK];
            for t in 0..k {
                let j = (t * 7 + shift) % BLOCK;
                // a = ε/r − r/2 ∈ (−9, −1): near and far complement lanes (r up to 30)
                r[j] = 3.0 + t as f64;
                eps[j] = 0.01 * (t + 1) as f64;
            }
            if k < 32 {
                let j = (k * 7 + shift + 1) % BLOCK;
                if eps[j] == 2.0 {
                    (eps[j], r[j]) = (0.0, 0.0); // θ = 0
                }
                let j = (k * 7 + shift + 3) % BLOCK;
                if eps[j] == 2.0 {
                    (eps[j], r[j]) = (1.0, f64::INFINITY); // θ = 1
                }
                let j = (k * 7 + shift + 5) % BLOCK;
                if eps[j] == 2.0 {
                    (eps[j], r[j]) = (3e154, 1.0); // a ≥ LOG_A_MAX
                }
            }
            assert_blocks_equal_scalars(
                &[(log_theta_block, log_theta)],
                &eps,
                &r,
                &format!("k {k} shift {shift}"),
            );
            let mut out = [0.0; BLOCK];
            log_theta_block(&eps, &r, &mut out);
            for j in 0..BLOCK {
                let th = theta(eps[j], r[j]);
                if th > 1e-300 && th < 1.0 {
                    assert!(
                        (out[j] - th.ln()).abs() <= 1e-13 * out[j].abs().max(1.0),
                        "{j}"
                    );
                }
            }
        }
    }
}

/// ln(1 − e^{(ε−r)/2}) where ε − r is exact and tiny: no margin beyond the log's own (the input
/// was once moved down by 2^-52·(ε + r)/2 there, and the factor came out ~5× its exact value).
#[test]
fn log_laplace_theta_tight_where_the_difference_is_exact() {
    // exact values by mpmath (40 digits), rounded down to a double: the result must not be
    // below them (rounded up) and within 1e-14 relative above
    let check = |v: f64, exact_down: f64| {
        assert!(
            v >= exact_down && v <= exact_down + 1e-14 * exact_down.abs(),
            "{v} vs {exact_down}"
        );
    };
    // ε − 1 = −2^-53 exactly: ln(1 − e^{−2^-54}) = −37.429947750237046736...
    check(
        log_laplace_theta(1.0 - f64::EPSILON / 2.0, 1.0),
        -37.42994775023705,
    );
    // an inexact difference (2^-60 − 3 rounds to −3): ln(1 − e^{(2^-60 − 3)/2}) = −0.25248245892545399616...
    check(log_laplace_theta(2f64.powi(-60), 3.0), -0.252482458925454);
}

/// [`theta_many`] (the array path of θ, with its underflow skip and the pending block) equals
/// the scalar θ bitwise: lanes around the skip threshold a ≈ 39.5 and the kernel's own floor
/// (a ≈ 38.6), special lanes (r = 0, ∞, subnormal; ε = 0, ∞; NaN), runs where every lane skips,
/// where none does, and mixes, at lengths that are not multiples of [`BLOCK`].
#[test]
fn theta_many_equals_scalar_bitwise() {
    let mut rng = XorShift::new();
    let mut rnd = || rng.next_f64();
    for round in 0..40 {
        let n = [0, 1, 31, 33, 257, 1000][round % 6] + round;
        // share of lanes drawn at a ∈ [37, 42] (the threshold region), the rest from the bench
        // workload or all-skipping
        let mode = round % 5;
        let (mut eps, mut r) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for _ in 0..n {
            // mode 4: tiny radii (the scaled quotient of `ab` below 2^-900) around the threshold
            let x = if mode == 4 {
                10f64.powf(-307.0 + 40.0 * rnd())
            } else {
                10f64.powf(-2.0 + 3.0 * rnd())
            };
            let e = match mode {
                0 => 10.0 * rnd(),
                1 | 4 => x * (37.0 + 5.0 * rnd() + 0.5 * x),
                2 => x * (40.0 + 0.5 * x) + rnd(),
                _ => {
                    if rnd() < 0.5 {
                        10.0 * rnd()
                    } else {
                        x * (39.5 + 0.5 * x)
                    }
                }
            };
            eps.push(e);
            r.push(x);
        }
        if n > 14 {
            let specials = [
                (1.0, 0.0),
                (f64::INFINITY, 1.0),
                (1.0, f64::INFINITY),
                (1.0, 5e-324),
                (1e-300, 1e-310),
                (0.0, 1e-3),
                (f64::NAN, 1.0),
                (1.0, f64::NAN),
                (1e300, 1e-300),
                (40.0, 1.0),
                (39.5 + 0.5 * 0.01, 0.01 * 0.01),
                (f64::MAX, 1.0),
                (39.6 * f64::MIN_POSITIVE, f64::MIN_POSITIVE),
                (1.0, f64::MIN_POSITIVE),
            ];
            for (i, &(e, x)) in specials.iter().enumerate() {
                eps[i] = e;
                r[i] = x;
            }
        }
        let mut out = vec![-1.0; n];
        let valid = eps
            .iter()
            .zip(&r)
            .all(|(&e, &x)| e >= 0.0 && x >= 0.0 && !(e.is_infinite() && x.is_infinite()));
        assert_eq!(
            theta_many(&eps, &r, &mut out),
            valid,
            "round {round}: the domain verdict"
        );
        for i in 0..n {
            let want = theta(eps[i], r[i]);
            assert_eq!(
                out[i].to_bits(),
                want.to_bits(),
                "round {round}, lane {i}: eps {:e} r {:e}",
                eps[i],
                r[i]
            );
        }
    }
}
