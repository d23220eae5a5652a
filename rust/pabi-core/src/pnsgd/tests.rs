//! Unit tests of the PNSGD bounds: orders, validation, the inversions (round trip, lock-step
//! equals scalar), block kernel equals scalar path, the precise fixed-order path against
//! mpmath, the factors over arrays.

use crate::gd::Radii;
use crate::theta;

use super::ab_factors::factors_one;
use super::delta::{delta_log, delta_value, run_delta};
use super::fixed_precise::wants_precise;
use super::inverse::{solve_epsilon, solve_sigma};
use super::prepared::{Elem, Prepared};
use super::PAR_DELTA;
use super::*;
use crate::setup::SetupArgs;

/// Every order (the published random stop included).
const ORDERS: [Order; 4] = [
    Order::Fixed,
    Order::Shuffled,
    Order::RandomStop,
    Order::RandomStopAsPublished,
];

fn params<'a>(order: Order, index: Option<&'a [f64]>) -> Params<'a> {
    Params {
        model: Model {
            noise: Noise::Gaussian,
            order,
            setup: SetupArgs {
                max_grad_norm: &[1.0],
                lr: &[0.5],
                diameter: &[1.0],
                smoothness: None,
                strong_convexity: &[0.0],
            },
            n: &[100.0],
            index,
        },
        sigma: &[1.0],
    }
}

#[test]
fn fixed_last_index_is_a_and_random_stop_worst_is_shuffled() {
    let mut o = [0.0];
    delta(&[1.0], params(Order::Fixed, Some(&[100.0])), &mut o).unwrap();
    assert_eq!(o[0], theta::theta(1.0, 2.0));
    let mut s = [0.0];
    delta(&[1.0], params(Order::Shuffled, None), &mut s).unwrap();
    let mut r = [0.0];
    delta(&[1.0], params(Order::RandomStop, None), &mut r).unwrap();
    assert_eq!(s, r);
    let mut r1 = [0.0];
    delta(&[1.0], params(Order::RandomStop, Some(&[1.0])), &mut r1).unwrap();
    assert!((r1[0] / s[0] - 1.0).abs() < 1e-15);
}

#[test]
fn validation() {
    let mut o = [0.0];
    assert!(delta(&[1.0], params(Order::Fixed, None), &mut o).is_err());
    assert!(delta(&[1.0], params(Order::Shuffled, Some(&[1.0])), &mut o).is_err());
    assert!(delta(&[1.0], params(Order::Fixed, Some(&[101.0])), &mut o).is_err());
    assert!(delta(&[1.0], params(Order::Fixed, Some(&[1.5])), &mut o).is_err());
    assert!(delta(&[-1.0], params(Order::Shuffled, None), &mut o).is_err());
    let mut p = params(Order::Shuffled, None);
    p.model.setup.smoothness = Some(&[1.0]);
    assert!(delta(&[1.0], p, &mut o).is_ok());
    p.model.setup.lr = &[2.5];
    let err = delta(&[1.0], p, &mut o).unwrap_err();
    assert!(err.to_string().starts_with("lr must be"));
    let mut p = params(Order::Shuffled, None);
    p.model.n = &[0.0];
    assert!(delta(&[1.0], p, &mut o).is_err());
    p.model.n = &[N_MAX];
    assert!(delta(&[1.0], p, &mut o).is_err());
}

#[test]
fn inversions_round_trip() {
    let p = params(Order::Shuffled, None);
    let mut e = [0.0];
    epsilon(&[1e-6], p, &mut e).unwrap();
    let mut d = [0.0];
    delta(&e, p, &mut d).unwrap();
    assert!(d[0] <= 1e-6);
    let below = f64::from_bits(e[0].to_bits() - 1);
    delta(&[below], p, &mut d).unwrap();
    assert!(d[0] > 1e-6);
    let mut s = [0.0];
    calibrate_sigma(&[1.0], &[1e-6], p.model, &mut s).unwrap();
    let mut q = p;
    let sv = [s[0]];
    q.sigma = &sv;
    delta(&[1.0], q, &mut d).unwrap();
    assert!(d[0] <= 1e-6);
}

/// The lock-step solvers of the array path return, per element, bitwise the result of the
/// scalar solvers ([`solve_epsilon`], [`solve_sigma`]): every order, both noises, targets in
/// value and in log space, fixed order with large |k ln B| (the precise path decides), M < 1
/// per element, L = 0 lanes; and the same error (the first failing element) as the scalar loop.
#[test]
fn lock_step_solvers_equal_scalar() {
    let mut rng = crate::num::test_rng::XorShift::with_seed(0x2545_F491_4F6C_DD1D);
    let mut rnd = move || rng.next_f64();
    let m = 300;
    let mut total = 0;
    let mut precise = 0;
    for noise in [Noise::Gaussian, Noise::Laplace] {
        for order in ORDERS {
            let n: Vec<f64> = (0..m).map(|_| (10f64.powf(6.0 * rnd())).floor()).collect();
            let ix: Vec<f64> = n
                .iter()
                .map(|&x| {
                    if rnd() < 0.5 {
                        1.0
                    } else {
                        (x * rnd()).floor().max(1.0)
                    }
                })
                .collect();
            let sigma: Vec<f64> = (0..m).map(|_| 10f64.powf(1.3 * rnd() - 0.3)).collect();
            let diam: Vec<f64> = (0..m).map(|_| 0.2 + 2.0 * rnd()).collect();
            let lip: Vec<f64> = (0..m)
                .map(|_| if rnd() < 0.03 { 0.0 } else { 0.2 + rnd() })
                .collect();
            let beta: Vec<f64> = (0..m).map(|_| 1.0 + 9.0 * rnd()).collect();
            let rho: Vec<f64> = (0..m)
                .map(|_| if rnd() < 0.5 { 0.0 } else { 0.5 * rnd() })
                .collect();
            let target: Vec<f64> = (0..m)
                .map(|_| {
                    if rnd() < 0.1 {
                        10f64.powf(-290.0 - 15.0 * rnd())
                    } else {
                        10f64.powf(-1.0 - 14.0 * rnd())
                    }
                })
                .collect();
            let eps: Vec<f64> = (0..m).map(|_| 8.0 * rnd() * rnd()).collect();
            let mut p = params(order, None);
            p.model.noise = noise;
            p.sigma = &sigma;
            p.model.n = &n;
            p.model.setup.lr = &[0.05];
            p.model.setup.diameter = &diam;
            p.model.setup.max_grad_norm = &lip;
            p.model.setup.smoothness = Some(&beta);
            p.model.setup.strong_convexity = &rho;
            if order != Order::Shuffled {
                p.model.index = Some(&ix);
            }
            let prep = Prepared::new(p, m).unwrap();
            let mut out = vec![0.0; m];
            // ε: L = 0 lanes have δ = 0 at ε = 0 (result 0)
            epsilon(&target, p, &mut out).unwrap();
            for j in 0..m {
                let sc = solve_epsilon(&prep, &target, j).unwrap();
                assert_eq!(
                    out[j].to_bits(),
                    sc.to_bits(),
                    "eps {noise:?} {order:?} j={j}"
                );
                // at the solution, is the decision the precise path's?
                let e = prep.elem(j).unwrap();
                let (ra, rb) = e.radii(sigma[j]);
                let f = factors_one(noise, order, false, out[j], ra, rb);
                precise += (order == Order::Fixed
                    && wants_precise(noise, (e.n - e.i) * f.lb, rb, f.a))
                    as usize;
            }
            calibrate_sigma(&eps, &target, p.model, &mut out).unwrap();
            for (j, o) in out.iter().enumerate().take(m) {
                let sc = solve_sigma(&prep, &eps, &target, j).unwrap();
                assert_eq!(o.to_bits(), sc.to_bits(), "sigma {noise:?} {order:?} j={j}");
            }
            total += 2 * m;
        }
    }
    assert_eq!(total, 4800);
    assert!(precise > 50, "{precise} elements near the precise path");
    // errors: σ for ε = 0 and δ = 1e-310 is unreachable (θ(0, r) ≥ r/√(2π) with r ≥ 1e-300):
    // the first such element is reported, as by the scalar loop
    let p = params(Order::Shuffled, None);
    let mut eps = vec![1.0; 40];
    let mut target = vec![1e-6; 40];
    for &j in &[33, 17, 29] {
        eps[j] = 0.0;
        target[j] = 1e-310;
    }
    let mut out = vec![0.0; 40];
    let err = calibrate_sigma(&eps, &target, p.model, &mut out).unwrap_err();
    let prep = Prepared::searching_sigma(p.model, 40).unwrap();
    let want = solve_sigma(&prep, &eps, &target, 17).unwrap_err();
    assert_eq!(err.to_string(), want.to_string());
    assert!(err.to_string().contains("element 17"), "{err}");
}

/// The block kernel (arrays) and the scalar path (one element at a time) are the same
/// formulas: bitwise equal, for every order, both noises, value and log.
#[test]
fn block_kernel_equals_scalar_path() {
    let m = 3 * theta::BLOCK + 5;
    let eps: Vec<f64> = (0..m).map(|k| 0.05 * k as f64).collect();
    let sigma: Vec<f64> = (0..m).map(|k| 0.2 + 0.1 * ((k * 37 % 50) as f64)).collect();
    let n: Vec<f64> = (0..m)
        .map(|k| 1.0 + ((k * 7919) % 100_000) as f64)
        .collect();
    let idx: Vec<f64> = n.iter().map(|&x| (x - 3.0).max(1.0)).collect();
    for noise in [Noise::Gaussian, Noise::Laplace] {
        for order in ORDERS {
            for log in [false, true] {
                let mut p = params(order, None);
                p.model.noise = noise;
                p.sigma = &sigma;
                p.model.n = &n;
                p.model.setup.lr = &[0.05];
                if order == Order::Fixed || order == Order::RandomStop {
                    p.model.index = Some(&idx);
                }
                let mut out = vec![0.0; m];
                run_delta(&eps, p, &mut out, log).unwrap();
                for j in 0..m {
                    let mut one = [0.0];
                    let mut q = p;
                    let (e1, s1, n1) = ([eps[j]], [sigma[j]], [n[j]]);
                    let i1 = [idx[j]];
                    q.sigma = &s1;
                    q.model.n = &n1;
                    if q.model.index.is_some() {
                        q.model.index = Some(&i1);
                    }
                    run_delta(&e1, q, &mut one, log).unwrap();
                    assert_eq!(
                        out[j].to_bits(),
                        one[0].to_bits(),
                        "{noise:?} {order:?} log={log} j={j}"
                    );
                    let e = prep_elem(q);
                    let (ra, rb) = e.radii(s1[0]);
                    let sc = if log {
                        delta_log(&e, e1[0], s1[0], ra, rb)
                    } else {
                        delta_value(&e, e1[0], s1[0], ra, rb)
                    };
                    assert_eq!(
                        out[j].to_bits(),
                        sc.to_bits(),
                        "{noise:?} {order:?} scalar j={j}"
                    );
                }
            }
        }
    }
}

/// The precise path of the fixed order at large |k ln B| against mpmath (50 digits,
/// `pabi.reference.pnsgd_delta` / `pnsgd_log_delta` at ε = 1, σ = L = 1, order="fixed"):
/// never below, within 1e-13 relative (value) / 2 ulp (log).
#[test]
fn fixed_precise_golden() {
    // (noise, lr, diameter, n, index, smoothness, strong_convexity, δ, ln δ)
    let cases = [
        (
            Noise::Gaussian,
            0.5,
            1.0,
            700.0,
            1.0,
            None,
            0.0,
            1.646830720565693e-205,
            -471.5310913983363,
        ),
        (
            Noise::Gaussian,
            0.05,
            0.7,
            1e15,
            1.0,
            Some(10.0),
            1e-14,
            0.0,
            -4210.429368149016,
        ),
        (
            Noise::Laplace,
            0.05,
            3.0,
            2e15,
            5.0,
            None,
            0.0,
            3.872865941117902e-135,
            -309.4949927679683,
        ),
    ];
    for (noise, lr, d, n, i, beta, rho, dv, lv) in cases {
        let sm = beta.map(|b| [b]);
        let p = Params {
            model: Model {
                noise,
                order: Order::Fixed,
                setup: SetupArgs {
                    max_grad_norm: &[1.0],
                    lr: &[lr],
                    diameter: &[d],
                    smoothness: sm.as_ref().map(|b| &b[..]),
                    strong_convexity: &[rho],
                },
                n: &[n],
                index: Some(&[i]),
            },
            sigma: &[1.0],
        };
        let (mut v, mut l) = ([0.0], [0.0]);
        delta(&[1.0], p, &mut v).unwrap();
        log_delta(&[1.0], p, &mut l).unwrap();
        assert!(
            l[0] >= lv && l[0] - lv <= 2.0 * f64::EPSILON * lv.abs(),
            "{noise:?} {l:?} {lv}"
        );
        if dv > 0.0 {
            assert!(
                v[0] >= dv && v[0] / dv - 1.0 < 1e-13,
                "{noise:?} {v:?} {dv}"
            );
        } else {
            assert!(v[0] <= 4.0 * 5e-324); // underflow: TINY
        }
    }
}

/// `factors` over an array (block kernels, chunks across the pool) equals the scalar
/// engine functions at the radii of each element, bitwise.
#[test]
fn factors_array_equals_scalar() {
    let m = 3 * PAR_DELTA / 2 + 7;
    let eps: Vec<f64> = (0..m).map(|k| 0.001 * (k % 3000) as f64).collect();
    let sigma: Vec<f64> = (0..m)
        .map(|k| 0.2 + 0.01 * ((k * 37 % 500) as f64))
        .collect();
    for noise in [Noise::Gaussian, Noise::Laplace] {
        let mut p = params(Order::Shuffled, None);
        p.model.noise = noise;
        p.sigma = &sigma;
        let (mut a, mut b, mut u) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
        let fp = FactorParams {
            noise,
            sigma: p.sigma,
            setup: p.model.setup,
        };
        factors(&eps, fp, &mut a, &mut b, &mut u).unwrap();
        let rad = Radii::new(1.0, 1.0, 1.0, 0.5);
        for j in (0..m).step_by(97) {
            let (ra, rb) = rad.at(sigma[j]);
            let want = match noise {
                Noise::Gaussian => (
                    theta::theta(eps[j], ra),
                    theta::theta(eps[j], rb),
                    theta::theta_complement(eps[j], rb),
                ),
                Noise::Laplace => (
                    theta::laplace_theta(eps[j], ra),
                    theta::laplace_theta(eps[j], rb),
                    theta::laplace_theta_complement(eps[j], rb),
                ),
            };
            assert_eq!((a[j], b[j], u[j]), want, "{noise:?} j={j}");
        }
    }
}

fn prep_elem(p: Params) -> Elem {
    Prepared::new(p, 1).unwrap().elem(0).unwrap()
}

/// Bad option strings and a missing / superfluous index are `PabiError::Option` (a
/// `DomainError` in Python) naming the parameter, not `Unreachable`; a bad index value is a
/// `Domain` error naming `index` with n, at its first bad position.
#[test]
fn options_and_index_errors() {
    use crate::error::PabiError;
    let opt = |e: PabiError| match e {
        PabiError::Option { param, .. } => param,
        other => panic!("not an Option error: {other:?}"),
    };
    assert_eq!(opt(Noise::parse("cauchy").unwrap_err()), "noise");
    assert_eq!(
        opt(Order::parse("cyclic", "corrected").unwrap_err()),
        "ordering"
    );
    assert_eq!(opt(Order::parse("fixed", "fast").unwrap_err()), "variant");
    let e = Order::parse("fixed", "as_published").unwrap_err();
    assert_eq!(
        e.to_string(),
        "variant must be 'corrected' with ordering=\"fixed\" ('as_published' only applies to \
         ordering='random_stop'), got \"as_published\""
    );
    assert_eq!(
        Order::parse("random_stop", "as_published").unwrap(),
        Order::RandomStopAsPublished
    );
    let mut out = [0.0; 2];
    let e = delta(&[1.0], params(Order::Fixed, None), &mut out).unwrap_err();
    assert!(e.to_string().contains("index is required"), "{e}");
    assert_eq!(opt(e), "index");
    let e = delta(&[1.0], params(Order::Shuffled, Some(&[3.0])), &mut out).unwrap_err();
    assert!(e.to_string().contains("index must not be given"), "{e}");
    assert_eq!(opt(e), "index");
    let e = delta(&[1.0], params(Order::Fixed, Some(&[1.0, 101.0])), &mut out).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index must be an integer in 1..=steps (steps = 100), got 101 at index 1"
    );
}

/// The certified skips of the lock-step inversions (`inverse_lanes.rs`): the same results as
/// the plain bisection of the scalar solvers, bit for bit, in far fewer evaluations on the
/// guided orders (shuffled, random stop; the bench's regime: lr = 0.05, n up to 1e6,
/// δ from 1e-12 to 1e-2). Counts are deterministic (one thread, fixed inputs).
#[test]
fn lock_step_certified_skips_save_evaluations() {
    use super::inverse_lanes::{solve_lanes, Solve, EVALS};
    let mut rng = crate::num::test_rng::XorShift::with_seed(7);
    let mut rnd = move || rng.next_f64();
    let m = 512;
    let sigma: Vec<f64> = (0..m).map(|_| 10f64.powf(rnd() - 0.3)).collect();
    let n: Vec<f64> = (0..m)
        .map(|_| (10f64.powf(1.0 + 5.0 * rnd())).floor())
        .collect();
    let target: Vec<f64> = (0..m).map(|_| 10f64.powf(-2.0 - 10.0 * rnd())).collect();
    // (noise, most evaluations per element allowed; the plain bisection takes ~57, Laplace
    // noise is not guided)
    for (noise, most) in [(Noise::Gaussian, 28.0), (Noise::Laplace, 64.0)] {
        for order in [Order::Shuffled, Order::RandomStop] {
            let mut p = params(order, None);
            p.model.noise = noise;
            p.sigma = &sigma;
            p.model.n = &n;
            p.model.setup.lr = &[0.05];
            let mut out = vec![0.0; m];
            let prep = super::prepared::Prepared::new(p, m).unwrap();
            EVALS.with(|c| c.set(0));
            solve_lanes(&prep, Solve::Epsilon, &[], &target, 0, &mut out).unwrap();
            let per = EVALS.with(|c| c.get()) as f64 / m as f64;
            assert!(
                per <= most,
                "{noise:?} {order:?}: {per} evaluations per element"
            );
            for (j, got) in out.iter().enumerate() {
                let plain = super::inverse::solve_epsilon(&prep, &target, j).unwrap();
                assert_eq!(
                    got.to_bits(),
                    plain.to_bits(),
                    "{noise:?} {order:?} element {j}"
                );
            }
        }
    }
}
