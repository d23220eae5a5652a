//! proptest targets for the public entry points of pabi-core:
//!
//! * valid input over wide ranges (every bit pattern of a non-negative double: zero, subnormals,
//!   huge values, infinity where allowed; edge integers 1, 2^53 − 1) gives no panic and no NaN,
//!   and values in their range;
//! * invalid input (NaN, negative, out-of-range integers, …) gives `PabiError::Domain` naming
//!   the parameter, never a panic;
//! * on sampled points the directed results are on the certified side of a double-double oracle:
//!   the engine's θ / ln θ / 1 − θ against `theta_dd` (~30 digits), the Gaussian tail against
//!   φ·Mills in double-double and against `pxfm::f_erfc`, and the fixed-order PNSGD ln δ =
//!   ln A + k ln B against the same oracle.
//!
//! The case count is modest (the default 256 of proptest is lowered to 64 per target) so that
//! the file runs in a few seconds; set PROPTEST_CASES to raise it.

use pabi_core::batch;
use pabi_core::dd::{exp_dd, expm1_dd, Dd};
use pabi_core::error::PabiError;
use pabi_core::gdp;
use pabi_core::lambertw;
use pabi_core::pld;
use pabi_core::pnsgd::{self, Model, Noise, Order, Params, RdpParams};
use pabi_core::rdp::{self, Conversion, Fractional};
use pabi_core::schedules;
use pabi_core::setup::SetupArgs;
use pabi_core::theta;
use pabi_core::theta_dd::{ln_laplace_theta_dd, ln_theta_dd, mills_dd};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngSeed};

/// 64 cases per target unless PROPTEST_CASES says otherwise; a fixed seed (the same verdict on
/// every run, as the "ci" hypothesis profile) unless PROPTEST_RNG_SEED is set; no regression
/// files written into the source tree.
fn config() -> Config {
    let env = |k: &str| std::env::var(k).ok().and_then(|s| s.parse::<u64>().ok());
    Config {
        cases: env("PROPTEST_CASES").map_or(64, |c| c as u32),
        rng_seed: RngSeed::Fixed(env("PROPTEST_RNG_SEED").unwrap_or(0x7061_6269)),
        failure_persistence: None,
        ..Config::default()
    }
}

/// Every non-negative double, NaN excluded (zero, subnormals, normals, huge, +inf).
fn nonneg_any() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<u64>().prop_map(|b| f64::from_bits(b >> 1)), // sign bit cleared
        Just(0.0),
        Just(f64::MIN_POSITIVE),
        Just(5e-324),
        Just(f64::MAX),
        Just(f64::INFINITY),
    ]
    .prop_filter("not NaN", |x| !x.is_nan())
}

/// Every finite non-negative double.
fn nonneg_finite() -> impl Strategy<Value = f64> {
    nonneg_any().prop_filter("finite", |x| x.is_finite())
}

/// Every finite positive double.
fn pos_finite() -> impl Strategy<Value = f64> {
    nonneg_finite().prop_filter("> 0", |x| *x > 0.0)
}

/// A non-negative double of moderate size (log-uniform over [1e-6, 1e6], or 0).
fn moderate() -> impl Strategy<Value = f64> {
    prop_oneof![Just(0.0), (-6.0f64..6.0).prop_map(|e| 10f64.powf(e))]
}

/// Integers as doubles in [1, 2^53), biased to the edges.
fn count() -> impl Strategy<Value = f64> {
    prop_oneof![
        Just(1u64),
        Just(2u64),
        Just((1u64 << 53) - 1),
        1u64..1000,
        1u64..(1u64 << 53),
    ]
    .prop_map(|x| x as f64)
}

/// A value that no parameter accepts: NaN.
fn bad_nan() -> impl Strategy<Value = f64> {
    Just(f64::NAN)
}

/// Strictly negative doubles (finite or −inf).
fn negative() -> impl Strategy<Value = f64> {
    any::<u64>()
        .prop_map(|b| -f64::from_bits(b >> 1))
        .prop_filter("< 0 and not NaN", |x| *x < 0.0)
}

fn assert_domain(r: Result<impl std::fmt::Debug, PabiError>, param: &str) {
    match r {
        Err(PabiError::Domain { param: p, .. }) => {
            assert_eq!(p, param, "wrong parameter named")
        }
        other => panic!("expected a domain error on {param}, got {other:?}"),
    }
}

fn dd_oracle_ln_theta(eps: f64, r: f64) -> Option<(Dd, f64)> {
    ln_theta_dd(eps, Dd::from_f64(r))
}

// ============================================================================ engine

proptest! {
    #![proptest_config(config())]

    /// θ, ln θ, 1 − θ, ln(1 − θ), Laplace θ and its complement: never NaN, in range, for every
    /// pair of non-negative doubles (not both infinite), through the validated array API (odd
    /// lengths exercise the SIMD remainder).
    #[test]
    fn engine_no_nan_in_range(pairs in prop::collection::vec((nonneg_any(), nonneg_any()), 1..40)) {
        let pairs: Vec<(f64, f64)> =
            pairs.into_iter().filter(|(e, r)| !(e.is_infinite() && r.is_infinite())).collect();
        prop_assume!(!pairs.is_empty());
        let eps: Vec<f64> = pairs.iter().map(|p| p.0).collect();
        let r: Vec<f64> = pairs.iter().map(|p| p.1).collect();
        let mut out = vec![f64::NAN; eps.len()];
        type F = fn(&[f64], &[f64], &mut [f64]) -> pabi_core::Result<()>;
        let fs: [(&str, F, bool); 6] = [
            ("theta", batch::theta, false),
            ("log_theta", batch::log_theta, true),
            ("theta_complement", batch::theta_complement, false),
            ("log_theta_complement", batch::log_theta_complement, true),
            ("laplace_theta", batch::laplace_theta, false),
            ("laplace_theta_complement", batch::laplace_theta_complement, false),
        ];
        for (name, f, log) in fs {
            f(&eps, &r, &mut out).unwrap();
            for (i, &v) in out.iter().enumerate() {
                prop_assert!(!v.is_nan(), "{name}({}, {}) is NaN", eps[i], r[i]);
                if log {
                    // (log_theta_complement had returned positive values where ε/r ≳ 1.8e35;
                    // pinned by log_theta_complement_positive_at_huge_eps)
                    prop_assert!(v <= 0.0, "{name}({:e}, {:e}) = {v:e} > 0", eps[i], r[i]);
                } else {
                    prop_assert!((0.0..=1.0).contains(&v), "{name}({}, {}) = {v}", eps[i], r[i]);
                }
                // the scalar kernel agrees bit for bit with the array lane
                let s = match name {
                    "theta" => theta::theta(eps[i], r[i]),
                    "log_theta" => theta::log_theta(eps[i], r[i]),
                    "theta_complement" => theta::theta_complement(eps[i], r[i]),
                    "log_theta_complement" => theta::log_theta_complement(eps[i], r[i]),
                    "laplace_theta" => theta::laplace_theta(eps[i], r[i]),
                    _ => theta::laplace_theta_complement(eps[i], r[i]),
                };
                prop_assert!(s.to_bits() == v.to_bits(), "{name}({}, {}): scalar {s} != array {v}", eps[i], r[i]);
            }
        }
    }

    /// Invalid θ arguments: a DomainError naming the argument (NaN anywhere, negative values,
    /// both infinite), at the first bad index.
    #[test]
    fn engine_domain_errors(good in nonneg_finite(), bad in prop_oneof![bad_nan(), negative()], at in 0usize..5) {
        let mut eps = vec![good; 5];
        let r = vec![good; 5];
        eps[at] = bad;
        let mut out = vec![0.0; 5];
        for f in [batch::theta, batch::log_theta, batch::theta_complement, batch::log_theta_complement,
                  batch::laplace_theta, batch::laplace_theta_complement] {
            match f(&eps, &r, &mut out) {
                Err(PabiError::Domain { param, index, .. }) => {
                    prop_assert_eq!(param, "eps");
                    prop_assert_eq!(index, Some(at));
                }
                other => prop_assert!(false, "expected a domain error, got {:?}", other),
            }
            match f(&r, &eps, &mut out) {
                Err(PabiError::Domain { param, index, .. }) => {
                    prop_assert_eq!(param, "shift");
                    prop_assert_eq!(index, Some(at));
                }
                other => prop_assert!(false, "expected a domain error, got {:?}", other),
            }
        }
        assert_domain(batch::theta(&[f64::INFINITY], &[f64::INFINITY], &mut out[..1]), "shift");
    }

    /// θ (rounded up), ln θ (rounded up) and 1 − θ (rounded down) on the certified side of the
    /// double-double oracle, and within 1e-13 of it.
    #[test]
    fn theta_vs_double_double(eps in prop_oneof![0.0..50.0f64, moderate()], r in prop_oneof![1e-3..40.0f64, moderate()]) {
        prop_assume!(r > 0.0);
        let Some((ltd, err)) = dd_oracle_ln_theta(eps, r) else { return Ok(()); };
        let lt = ltd.to_f64();
        prop_assume!(err < 1e-20 * lt.abs().max(1.0));
        let got = theta::log_theta(eps, r);
        // rounded up: never below the exact ln θ (the oracle's error bound subtracted)
        prop_assert!(got >= lt - err - 1e-300, "log_theta({eps}, {r}) = {got} < oracle {lt}");
        prop_assert!(got - lt <= 1e-13 * lt.abs().max(1.0), "log_theta({eps}, {r}) = {got} vs {lt}");
        let th = theta::theta(eps, r);
        let ex = exp_dd(ltd);
        let ex = ex.hi + ex.lo;
        if lt > -700.0 && ex > 1e-300 {
            prop_assert!(th >= ex * (1.0 - 4e-16 - err), "theta({eps}, {r}) = {th} < oracle {ex}");
            prop_assert!(th <= ex * (1.0 + 1e-13), "theta({eps}, {r}) = {th} vs oracle {ex}");
        }
        // 1 − θ = −expm1(ln θ); its relative error from the oracle's is err·θ/(1 − θ)
        let c = -expm1_dd(ltd).to_f64();
        if c > 1e-300 && ex / c * err < 1e-18 {
            let co = theta::theta_complement(eps, r);
            prop_assert!(co <= c * (1.0 + 4e-16 + ex / c * err), "theta_complement({eps}, {r}) = {co} > oracle {c}");
            prop_assert!(co >= c * (1.0 - 1e-13), "theta_complement({eps}, {r}) = {co} vs oracle {c}");
        }
    }

    /// Laplace θ (rounded up) against the double-double oracle.
    #[test]
    fn laplace_theta_vs_double_double(eps in 0.0..50.0f64, r in 1e-3..60.0f64) {
        let Some((lt, err)) = ln_laplace_theta_dd(eps, Dd::from_f64(r)) else { return Ok(()); };
        let ex = exp_dd(lt).to_f64();
        prop_assume!(lt.hi > -700.0 && ex > 1e-300 && err < 1e-20);
        let th = theta::laplace_theta(eps, r);
        prop_assert!(th >= ex * (1.0 - 4e-16 - err), "laplace_theta({eps}, {r}) = {th} < oracle {ex}");
        prop_assert!(th <= ex * (1.0 + 1e-13), "laplace_theta({eps}, {r}) = {th} vs oracle {ex}");
    }

    /// Q(t) within a few ulp of φ(t)·m(t) in double-double (0 ≤ t ≤ 37) and of
    /// erfc(u)/2 at t = √2·u computed exactly enough (pxfm's correctly rounded erfc).
    #[test]
    fn gaussian_tail_vs_oracles(t in 0.0..37.0f64, u in 0.0..26.0f64) {
        let td = Dd::from_f64(t);
        let g = exp_dd(-td.sqr().ldexp(-1));
        let phi = g.mul_f(0.398_942_280_401_432_7) + g.mul_f(-2.492_327_202_277_73e-17);
        let q = (phi * mills_dd(td)).to_f64();
        let got = theta_free_tail(t);
        prop_assert!((got - q).abs() <= 4.0 * f64::EPSILON * q, "gaussian_tail({t}) = {got} vs {q}");
        // erfc oracle: t = √2·u is not a double, but Q(t) at the double t' nearest √2·u differs from
        // erfc(u)/2 by φ(t)·|t' − √2 u| ≤ φ(t)·ulp(t)/2: allow that plus a few ulp.
        let t2 = std::f64::consts::SQRT_2 * u;
        let e = pxfm::f_erfc(u) / 2.0;
        if e > 1e-300 {
            let slack = 0.3989422804014327 * (-(t2 * t2) / 2.0).exp() * (t2 * f64::EPSILON + 1e-300) * 2.0;
            let got2 = theta_free_tail(t2);
            prop_assert!((got2 - e).abs() <= 4.0 * f64::EPSILON * e + slack,
                "gaussian_tail({t2}) = {got2} vs erfc({u})/2 = {e}");
        }
    }

    /// Lambert W and Wright omega: no NaN over their whole domain; W e^W = x where representable.
    #[test]
    fn lambertw_no_nan(x in prop_oneof![nonneg_any(), -0.36787944117144233..0.0f64],
                       y in any::<u64>().prop_map(f64::from_bits).prop_filter("not NaN", |v| !v.is_nan())) {
        let mut out = [0.0];
        batch::lambertw(&[x], &mut out).unwrap();
        prop_assert!(!out[0].is_nan() && out[0] >= -1.0, "lambertw({x}) = {}", out[0]);
        batch::wright_omega(&[y], &mut out).unwrap();
        prop_assert!(!out[0].is_nan() && out[0] >= 0.0, "wright_omega({y}) = {}", out[0]);
        let w = lambertw::lambertw0(x);
        if x.is_finite() && w < 700.0 && x.abs() > 1e-300 {
            let back = w * w.exp();
            prop_assert!((back - x).abs() <= (8.0 + 2.0 * w.abs()) * f64::EPSILON * x.abs(), "W({x}) = {w}");
        }
        assert_domain(batch::lambertw(&[-0.37], &mut out), "x");
        assert_domain(batch::wright_omega(&[f64::NAN], &mut out), "x");
    }
}

/// Regression (found by the proptest, fixed): ln(1 − θ) must be ≤ 0 (and never above the
/// exact, negative, value); for ε/r ≳ 1.8e35 it had come out positive: log_theta_complement(8.19563180289006e307, 6.279794463003872e153) =
/// +7.05e-185, (1.965402077740417e302, 2.890579520725121e144) = +2.14e-194,
/// (f64::MAX, 1.3526338998866606e38) = +1.0e-300, (f64::MAX, 1.504855165384229e30) = +5e-324
/// (and it chatters between 0.0 and −2e-323 for ε/r ≳ 1.9e8, see tests/test_laws.py).
#[test]
fn log_theta_complement_positive_at_huge_eps() {
    for (e, r) in [
        (8.19563180289006e307, 6.279794463003872e153),
        (1.965402077740417e302, 2.890579520725121e144),
        (f64::MAX, 1.3526338998866606e38),
        (f64::MAX, 1.504855165384229e30),
    ] {
        let v = theta::log_theta_complement(e, r);
        assert!(
            v <= 0.0,
            "log_theta_complement > 0: ({e:e}, {r:e}) -> {v:e}"
        );
    }
}

fn theta_free_tail(t: f64) -> f64 {
    let mut out = [0.0];
    batch::gaussian_tail(&[t], &mut out).unwrap();
    out[0]
}

// ============================================================================ PNSGD

#[derive(Debug, Clone)]
struct P {
    noise: Noise,
    order: Order,
    sigma: f64,
    max_grad_norm: f64,
    lr: f64,
    diameter: f64,
    n: f64,
    index: Option<f64>,
}

fn pnsgd_wide() -> impl Strategy<Value = P> {
    (
        prop_oneof![Just(Noise::Gaussian), Just(Noise::Laplace)],
        0u8..3,
        pos_finite(),
        nonneg_finite(),
        pos_finite(),
        nonneg_finite(),
        count(),
        any::<u64>(),
        any::<bool>(),
    )
        .prop_map(
            |(noise, o, sigma, max_grad_norm, lr, diameter, n, seed, with_index)| {
                let order = [Order::Fixed, Order::Shuffled, Order::RandomStop][o as usize];
                let i = 1.0 + (seed % (n as u64)) as f64;
                let index = match order {
                    Order::Fixed => Some(i),
                    Order::Shuffled => None,
                    _ => with_index.then_some(i),
                };
                P {
                    noise,
                    order,
                    sigma,
                    max_grad_norm,
                    lr,
                    diameter,
                    n,
                    index,
                }
            },
        )
}

fn params<'a>(p: &P, bufs: &'a [[f64; 1]; 7]) -> Params<'a> {
    Params {
        model: Model {
            noise: p.noise,
            order: p.order,
            setup: SetupArgs {
                max_grad_norm: &bufs[1],
                lr: &bufs[2],
                diameter: &bufs[3],
                smoothness: None,
                strong_convexity: &bufs[6],
            },
            n: &bufs[4],
            index: p.index.map(|_| &bufs[5][..]),
        },
        sigma: &bufs[0],
    }
}

fn bufs(p: &P) -> [[f64; 1]; 7] {
    [
        [p.sigma],
        [p.max_grad_norm],
        [p.lr],
        [p.diameter],
        [p.n],
        [p.index.unwrap_or(1.0)],
        [0.0],
    ]
}

proptest! {
    #![proptest_config(config())]

    /// δ and ln δ of every order and noise: no panic, no NaN, δ ∈ [0, 1], ln δ ≤ 0, for every
    /// positive σ, η, every L, D ≥ 0 (subnormal to MAX), n up to 2^53 − 1.
    #[test]
    fn pnsgd_delta_no_nan(p in pnsgd_wide(), eps in prop_oneof![nonneg_finite(), 0.0..10.0f64]) {
        let b = bufs(&p);
        let mut out = [f64::NAN];
        pnsgd::delta(&[eps], params(&p, &b), &mut out).unwrap();
        prop_assert!((0.0..=1.0).contains(&out[0]), "delta({eps}, {p:?}) = {}", out[0]);
        pnsgd::log_delta(&[eps], params(&p, &b), &mut out).unwrap();
        prop_assert!(!out[0].is_nan() && out[0] <= 0.0, "log_delta({eps}, {p:?}) = {}", out[0]);
    }

    /// The inversions never panic: a value (ε ≥ 0, σ ≥ 0) or an Unreachable error.
    #[test]
    fn pnsgd_inversions_no_panic(p in pnsgd_wide(), delta in prop_oneof![1e-300..1.0f64, pos_finite()],
                                 eps in prop_oneof![0.0..10.0f64, nonneg_finite()]) {
        prop_assume!(delta < 1.0);
        let b = bufs(&p);
        let mut out = [f64::NAN];
        match pnsgd::epsilon(&[delta], params(&p, &b), &mut out) {
            Ok(()) => prop_assert!(out[0] >= 0.0, "epsilon({delta}, {p:?}) = {}", out[0]),
            Err(PabiError::Unreachable { .. }) => {}
            // no finite eps reaches delta: the noise is too small for 2*max_grad_norm
            Err(PabiError::Domain { param: "noise_scale", .. }) => {}
            Err(e) => prop_assert!(false, "epsilon({delta}, {p:?}): {e}"),
        }
        match pnsgd::calibrate_sigma(&[eps], &[delta], params(&p, &b).model, &mut out) {
            Ok(()) => prop_assert!(out[0] >= 0.0, "calibrate({eps}, {delta}, {p:?}) = {}", out[0]),
            Err(PabiError::Unreachable { .. }) => {}
            Err(e) => prop_assert!(false, "calibrate({eps}, {delta}, {p:?}): {e}"),
        }
    }

    /// Invalid PNSGD arguments: DomainError naming the parameter.
    #[test]
    fn pnsgd_domain_errors(p in pnsgd_wide(), which in 0usize..6, bad in prop_oneof![bad_nan(), negative()]) {
        let mut b = bufs(&p);
        let mut p = p;
        if which == 5 {
            p.order = Order::Fixed;
            p.index = Some(1.0);
        }
        let names = ["noise_scale", "max_grad_norm", "lr", "diameter", "steps", "index"];
        b[which][0] = bad;
        let mut out = [0.0];
        assert_domain(pnsgd::delta(&[1.0], params(&p, &b), &mut out), names[which]);
        let b = bufs(&p);
        assert_domain(pnsgd::delta(&[bad], params(&p, &b), &mut out), "eps");
        assert_domain(pnsgd::epsilon(&[bad], params(&p, &b), &mut out), "delta");
        // non-integer / out-of-range counts
        let mut b2 = bufs(&p);
        b2[4][0] = 1.5;
        assert_domain(pnsgd::delta(&[1.0], params(&p, &b2), &mut out), "steps");
        if p.order == Order::Fixed {
            let mut b3 = bufs(&p);
            b3[5][0] = p.n + 1.0;
            assert_domain(pnsgd::delta(&[1.0], params(&p, &b3), &mut out), "index");
        }
    }

    /// Fixed-order Gaussian δ = A·B^k (M = 1): ln δ ≥ ln A + k·ln B from the double-double
    /// oracle, and within 1e-12·(1 + |ln δ|) of it.
    #[test]
    fn pnsgd_fixed_log_delta_vs_double_double(eps in 0.0..10.0f64, sigma in 0.1..10.0f64, l in 0.01..10.0f64,
                                             lr in 0.01..2.0f64, d in 0.01..10.0f64, n in 1u64..100_000, i in any::<u64>()) {
        let index = 1 + i % n;
        let k = (n - index) as f64;
        let ra = (Dd::from_f64(2.0 * l) / Dd::from_f64(sigma)).hi; // 2L exact; r_A as the crate forms it
        let rb = Dd::from_f64(d) / (Dd::from_f64(lr) * Dd::from_f64(sigma));
        let (Some((la, ea)), Some((lb, eb))) = (ln_theta_dd(eps, Dd::from_f64(ra)), ln_theta_dd(eps, rb)) else {
            return Ok(());
        };
        let _ = ra;
        let oracle = la.hi + la.lo + k * (lb.hi + lb.lo);
        let oerr = ea + k * eb + 4.0 * f64::EPSILON * oracle.abs();
        let p = P { noise: Noise::Gaussian, order: Order::Fixed, sigma, max_grad_norm: l, lr, diameter: d,
                    n: n as f64, index: Some(index as f64) };
        let b = bufs(&p);
        let mut out = [0.0];
        pnsgd::log_delta(&[eps], params(&p, &b), &mut out).unwrap();
        prop_assume!(oracle.is_finite() && oracle > -1e300);
        prop_assert!(out[0] >= oracle - oerr, "log_delta = {} < oracle {oracle} ({p:?}, eps {eps})", out[0]);
        prop_assert!(out[0] - oracle <= 1e-12 * (1.0 + oracle.abs()), "log_delta = {} vs {oracle} ({p:?})", out[0]);
    }

    /// RDP route: no NaN over wide ranges, c ≥ 0, δ ∈ [0, 1].
    #[test]
    fn pnsgd_rdp_no_nan(sigma in pos_finite(), l in nonneg_finite(), lr in pos_finite(), n in count(), i in any::<u64>(),
                        eps in nonneg_finite(), delta in 1e-300..1.0f64) {
        let index = 1.0 + (i % (n as u64)) as f64;
        let (s, ll, lrr, nn, ii, rho) = ([sigma], [l], [lr], [n], [index], [0.0]);
        let p = RdpParams { sigma: &s, max_grad_norm: &ll, lr: &lrr, n: &nn, index: &ii, smoothness: None, strong_convexity: &rho };
        let mut out = [f64::NAN];
        pnsgd::rdp_slope_values(p, &mut out).unwrap();
        prop_assert!(out[0] >= 0.0, "slope = {}", out[0]);
        let p = RdpParams { sigma: &s, max_grad_norm: &ll, lr: &lrr, n: &nn, index: &ii, smoothness: None, strong_convexity: &rho };
        pnsgd::rdp_delta(&[eps], p, &mut out, false).unwrap();
        prop_assert!((0.0..=1.0).contains(&out[0]), "rdp delta = {}", out[0]);
        let p = RdpParams { sigma: &s, max_grad_norm: &ll, lr: &lrr, n: &nn, index: &ii, smoothness: None, strong_convexity: &rho };
        pnsgd::rdp_epsilon(&[delta], p, &mut out).unwrap();
        prop_assert!(out[0] >= 0.0, "rdp epsilon = {}", out[0]);
        let bad = [f64::NAN];
        let p = RdpParams { sigma: &bad, max_grad_norm: &ll, lr: &lrr, n: &nn, index: &ii, smoothness: None, strong_convexity: &rho };
        assert_domain(pnsgd::rdp_slope_values(p, &mut out), "noise_scale");
    }
}

// ============================================================================ RDP, GDP, composition

proptest! {
    #![proptest_config(config())]

    /// Sampled Gaussian RDP: no NaN, ≥ 0, exact ≤ ceiling rule; domain errors for α ≤ 1, q ∉ [0, 1].
    #[test]
    fn sampled_gaussian_rdp_no_nan(alpha in prop_oneof![1.0001..10.0f64, 1.0001..1e4f64, Just(2.0)],
                                   q in prop_oneof![0.0..=1.0f64, Just(0.0), Just(1.0), Just(5e-324)],
                                   r in prop_oneof![nonneg_finite(), 0.0..10.0f64]) {
        let ex = rdp::sampled_gaussian_rdp_at(alpha, q, r, Fractional::Exact).unwrap();
        let ce = rdp::sampled_gaussian_rdp_at(alpha, q, r, Fractional::Ceil).unwrap();
        prop_assert!(ex >= 0.0 && ce >= 0.0, "{alpha} {q} {r}: {ex} {ce}");
        prop_assert!(ex <= ce, "{alpha} {q} {r}: exact {ex} > ceil {ce}");
        assert_domain(rdp::sampled_gaussian_rdp_at(1.0, q, r, Fractional::Exact), "order");
        assert_domain(rdp::sampled_gaussian_rdp_at(alpha, 1.0 + 1e-9, r, Fractional::Exact), "sample_rate");
        assert_domain(rdp::sampled_gaussian_rdp_at(alpha, q, f64::NAN, Fractional::Exact), "r");
    }

    /// RDP → DP conversions: no NaN, δ ∈ [0, 1], ε ≥ 0; domain errors.
    #[test]
    fn rdp_to_dp_no_nan(curve in prop::collection::vec((1.0001..1e4f64, nonneg_finite()), 1..20),
                        delta in prop_oneof![5e-324..1.0f64, 1e-10..1.0f64], eps in nonneg_any()) {
        prop_assume!(delta < 1.0);
        let (o, r): (Vec<f64>, Vec<f64>) = curve.into_iter().unzip();
        for rule in [Conversion::Tight, Conversion::Classical] {
            let (e, a) = rdp::rdp_to_dp_epsilon(&o, &r, delta, rule).unwrap();
            prop_assert!(e >= 0.0 && o.contains(&a), "eps {e} order {a}");
            let (d, a) = rdp::rdp_to_dp_delta(&o, &r, eps, rule).unwrap();
            prop_assert!((0.0..=1.0).contains(&d) && o.contains(&a), "delta {d} order {a}");
            assert_domain(rdp::rdp_to_dp_epsilon(&o, &r, 1.0, rule), "delta");
            assert_domain(rdp::rdp_to_dp_delta(&o, &r, f64::NAN, rule), "eps");
            let mut bad = o.clone();
            bad[0] = 1.0;
            assert_domain(rdp::rdp_to_dp_epsilon(&bad, &r, delta, rule), "orders");
        }
    }

    /// GDP: ε(δ, μ) ≥ 0 and μ(ε, δ) ≥ 0, never NaN, θ(ε(δ)) ≤ δ up to rounding; domain errors.
    #[test]
    fn gdp_no_nan(delta in prop_oneof![5e-324..1.0f64, 1e-10..1.0f64], mu in prop_oneof![nonneg_finite(), 0.0..20.0f64],
                  eps in prop_oneof![nonneg_finite(), 0.0..20.0f64]) {
        prop_assume!(delta < 1.0);
        let e = gdp::gdp_epsilon(delta, mu).unwrap();
        prop_assert!(e >= 0.0, "gdp_epsilon({delta}, {mu}) = {e}");
        if mu < 1e3 {
            let th = theta::theta(e, mu);
            prop_assert!(th <= delta * (1.0 + 1e-12), "theta(gdp_epsilon({delta}, {mu})) = {th}");
        }
        let m = gdp::gdp_mu(eps, delta).unwrap();
        prop_assert!(m >= 0.0 && !m.is_nan(), "gdp_mu({eps}, {delta}) = {m}");
        assert_domain(gdp::gdp_epsilon(1.0, mu), "delta");
        assert_domain(gdp::gdp_epsilon(delta, -1.0), "mu");
        assert_domain(gdp::gdp_mu(f64::NAN, delta), "eps");
        let c = gdp::gdp_compose(&[mu, eps]).unwrap();
        prop_assert!(c >= mu.max(eps) && !c.is_nan(), "gdp_compose([{mu}, {eps}]) = {c}");
        assert_domain(gdp::gdp_compose(&[mu, f64::NAN]), "mu");
    }

    /// Exact (KOV) composition: δ ∈ [0, 1], ε ≥ 0 (or +inf), never NaN; domain errors.
    #[test]
    fn approx_dp_composition_no_nan(e0 in prop_oneof![0.0..5.0f64, nonneg_finite()], d0 in 0.0..=1.0f64,
                                    k in prop_oneof![1u64..100, 1u64..1_000_000], eps in nonneg_finite(),
                                    delta in 1e-300..1.0f64) {
        let k = k as f64;
        let d = pld::approx_dp_composition_delta(e0, d0, k, eps).unwrap();
        prop_assert!((0.0..=1.0).contains(&d), "delta({e0}, {d0}, {k}, {eps}) = {d}");
        let e = pld::approx_dp_composition_epsilon(e0, d0, k, delta).unwrap();
        prop_assert!(e >= 0.0, "epsilon({e0}, {d0}, {k}, {delta}) = {e}");
        assert_domain(pld::approx_dp_composition_delta(e0, d0, 0.5, eps), "count");
        assert_domain(pld::approx_dp_composition_delta(e0, 1.5, k, eps), "delta0");
        assert_domain(pld::approx_dp_composition_delta(-1.0, d0, k, eps), "eps0");
        assert_domain(pld::approx_dp_composition_epsilon(e0, d0, k, 0.0), "delta");
    }

    /// Schedule limits and calibration: no NaN over wide ranges.
    #[test]
    fn schedules_no_nan(eps in prop_oneof![0.0..50.0f64, nonneg_finite()], c1 in pos_finite(), ds in 1e-300..1.0f64) {
        for noise in [schedules::Noise::Gaussian, schedules::Noise::Laplace] {
            let d = schedules::schedule_delta_star(noise, eps, c1).unwrap();
            prop_assert!((0.0..=1.0).contains(&d), "delta_star({eps}, {c1}) = {d}");
            if eps < 1e3 {
                let c = schedules::schedule_c1_for_target(noise, ds, eps).unwrap();
                prop_assert!(c > 0.0 && !c.is_nan(), "c1_for_target({ds}, {eps}) = {c}");
            }
            assert_domain(schedules::schedule_delta_star(noise, f64::NAN, c1), "eps");
            assert_domain(schedules::schedule_delta_star(noise, eps, 0.0), "c1");
        }
    }
}

/// The largest order (1e7, an O(α) sum: ~1 s, so not a proptest target): finite, no NaN.
#[test]
fn sampled_gaussian_rdp_max_order() {
    let v = rdp::sampled_gaussian_rdp_at(1e7, 0.5, 1.0, Fractional::Exact).unwrap();
    assert!(v.is_finite() && v > 0.0, "{v}");
}

/// DP-SGD accountant on a coarse grid: bracket ordered, no NaN, at a few fixed points (each
/// call is an FFT composition: not a proptest target).
#[test]
fn dpsgd_brackets_ordered() {
    for &(q, sigma, steps, delta) in &[
        (0.01, 1.0, 1000.0, 1e-5),
        (1.0, 5.0, 1.0, 1e-3),
        (0.2, 0.7, 37.0, 1e-8),
    ] {
        let (lo, est, up) = pld::dpsgd_epsilon(q, sigma, steps, delta, 1e-2).unwrap();
        assert!(
            lo <= est && est <= up && !up.is_nan(),
            "{q} {sigma} {steps}: {lo} {est} {up}"
        );
        let (lo, est, up) = pld::dpsgd_delta(q, sigma, steps, 1.0, 1e-2).unwrap();
        assert!(
            lo <= est && est <= up && (0.0..=1.0).contains(&up),
            "{lo} {est} {up}"
        );
    }
    assert_domain(
        pld::dpsgd_epsilon(1.5, 1.0, 10.0, 1e-5, 1e-2),
        "sample_rate",
    );
    assert_domain(
        pld::dpsgd_epsilon(0.1, 0.0, 10.0, 1e-5, 1e-2),
        "noise_multiplier",
    );
    assert_domain(pld::dpsgd_epsilon(0.1, 1.0, 0.5, 1e-5, 1e-2), "steps");
    assert_domain(pld::dpsgd_epsilon(0.1, 1.0, 10.0, 1.0, 1e-2), "delta");
}
