//! Tests of [`super`]: the exact searches against a plain boolean reference, the value-guided
//! steps, the worst-case evaluation bound and the lock-step search (the scalar one to the bit).

use super::*;

#[test]
fn finds_the_exact_threshold() {
    let t = 0.3_f64;
    assert_eq!(bisect_bits(0.0, f64::INFINITY, |x| x >= t), t);
    assert_eq!(bisect_bits(0.0, 1.0, |x| x > t), t.next_up());
    for x0 in [0.0, 1e-300, 0.29, 0.3, 0.31, 1e300, f64::INFINITY] {
        assert_eq!(first_ok(&|x| x >= t, x0), t, "x0 {x0}");
    }
    assert_eq!(first_ok(&|_| true, 5.0), 0.0);
    assert_eq!(first_ok(&|_| false, 5.0), f64::INFINITY);
}

/// Nested predicates give ordered results even when the function is not monotone.
#[test]
fn nested_predicates_give_monotone_results() {
    // a deliberately non-monotone "function": x with its last two bits scrambled
    let f = |x: f64| f64::from_bits(x.to_bits() ^ 3);
    let mut prev = 0.0;
    for i in 0..2000 {
        let d = 0.1 + 1e-16 * i as f64;
        let r = bisect_bits(0.0, f64::INFINITY, |x| f(x) > d);
        assert!(r >= prev, "{d}: {r} < {prev}");
        prev = r;
    }
}

/// The lock-step search probes, for every element, the scalar search's doubles in the
/// same order and returns its result to the bit, also for non-monotone predicates, guesses
/// at 0, +∞, negative or NaN, and predicates that never or always hold.
#[test]
fn lock_step_is_the_scalar_search() {
    use std::cell::RefCell;
    // element k's predicate: a threshold with scrambled low bits (not monotone), or constant
    let pred = |k: usize, x: f64| -> bool {
        match k % 5 {
            0 => true,
            1 => false,
            _ => f64::from_bits(x.to_bits() ^ (k as u64 & 7)) >= 0.1 * k as f64,
        }
    };
    let mut x0 = vec![0.0, f64::INFINITY, -1.0, f64::NAN, 1e-300, 5e-324, 1e300];
    x0.extend((0..40).map(|k| 0.37 * k as f64 + 1e-3));
    let mut out = x0.clone();
    let logs: RefCell<Vec<Vec<f64>>> = RefCell::new(vec![Vec::new(); x0.len()]);
    let mut rounds = 0;
    let res: Result<(), ()> = first_ok_many(&mut out, |active, probes, oks, _| {
        rounds += 1;
        for ((&k, &x), ok) in active.iter().zip(probes).zip(oks.iter_mut()) {
            logs.borrow_mut()[k].push(x);
            *ok = pred(k, x);
        }
        Ok(())
    });
    assert!(res.is_ok() && rounds <= MAX_EVALS);
    for (k, &g) in x0.iter().enumerate() {
        let log = RefCell::new(Vec::new());
        let want = first_ok(
            &|x| {
                log.borrow_mut().push(x);
                pred(k, x)
            },
            g,
        );
        assert_eq!(out[k].to_bits(), want.to_bits(), "element {k}, guess {g}");
        let (a, b) = (&logs.borrow()[k], &*log.borrow());
        assert!(a.len() == b.len() && a.iter().zip(b).all(|(p, q)| p.to_bits() == q.to_bits()));
    }
    // the first error of a round ends the search
    let mut calls = 0;
    let mut out = x0.clone();
    let err = first_ok_many(&mut out, |_, _, _, _| {
        calls += 1;
        if calls == 3 {
            Err("stop")
        } else {
            Ok(())
        }
    });
    assert_eq!((err, calls), (Err("stop"), 3));
    assert!(out.iter().zip(&x0).all(|(a, b)| a.to_bits() == b.to_bits()));
}

/// bisect_bits through the state machine: the bracket's end when it is one ulp or less.
#[test]
fn degenerate_brackets() {
    assert_eq!(bisect_bits(1.0, 1.0, |_| unreachable!()), 1.0);
    assert_eq!(
        bisect_bits(1.0, 1.0f64.next_up(), |_| unreachable!()),
        1.0f64.next_up()
    );
    assert_eq!(Search::bisect(2.0, 1.0).result(), Some(1.0));
}

/// The search before value guidance, written out: exponential steps from the guess, then
/// bisection of the bit patterns (the probes a boolean predicate must still get).
fn boolean_reference(ok: &dyn Fn(f64) -> bool, x0: f64) -> f64 {
    let g = x0.to_bits().min(INF);
    let (mut a, mut b) = (g, g);
    if ok(f64::from_bits(g)) {
        let mut step = 1u64;
        loop {
            if b == 0 {
                return 0.0;
            }
            let lb = b.saturating_sub(step);
            if ok(f64::from_bits(lb)) {
                b = lb;
                step = step.saturating_mul(2);
            } else {
                a = lb;
                break;
            }
        }
    } else {
        let mut step = 1u64;
        loop {
            if a >= INF {
                return f64::INFINITY;
            }
            let hb = a.saturating_add(step).min(INF);
            if ok(f64::from_bits(hb)) {
                b = hb;
                break;
            }
            a = hb;
            step = step.saturating_mul(2);
        }
    }
    while b - a > 1 {
        let mid = a + (b - a) / 2;
        if ok(f64::from_bits(mid)) {
            b = mid
        } else {
            a = mid
        }
    }
    f64::from_bits(b)
}

/// Runs `first_ok_valued` and returns (result, probes).
fn valued_log(ok: &dyn Fn(f64) -> (bool, f64), x0: f64) -> (f64, Vec<f64>) {
    use std::cell::RefCell;
    let log = RefCell::new(Vec::new());
    let r = first_ok_valued(
        &|x| {
            log.borrow_mut().push(x);
            ok(x)
        },
        x0,
    );
    (r, log.into_inner())
}

/// A small deterministic generator for the property tests (splitmix64).
fn mix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Without ratios (none given, or NaN, infinite, non-positive, or on the wrong side of 1)
/// the search probes exactly the doubles of the boolean search, in order.
#[test]
fn no_values_is_the_boolean_search() {
    use std::cell::RefCell;
    let preds: Vec<Box<dyn Fn(f64) -> bool>> = vec![
        Box::new(|x| x >= 0.3),
        Box::new(|x| f64::from_bits(x.to_bits() ^ 5) >= 7.5e-3),
        Box::new(|_| true),
        Box::new(|_| false),
        Box::new(|x| x > 1e300),
    ];
    let junk = [f64::NAN, f64::INFINITY, -1.0, 0.0];
    for (i, p) in preds.iter().enumerate() {
        for x0 in [
            0.0,
            5e-324,
            1e-200,
            0.29,
            0.3,
            4.0,
            1e300,
            f64::INFINITY,
            -2.0,
            f64::NAN,
        ] {
            let want = RefCell::new(Vec::new());
            let w = boolean_reference(
                &|x| {
                    want.borrow_mut().push(x.to_bits());
                    p(x)
                },
                x0,
            );
            for j in 0..=junk.len() {
                let (r, log) = if j == junk.len() {
                    assert_eq!(first_ok(p, x0).to_bits(), w.to_bits());
                    valued_log(&|x| (p(x), f64::NAN), x0) // no ratio: first_ok's search
                } else {
                    // a junk ratio, or a ratio on the wrong side of 1 for the verdict
                    valued_log(&|x| (p(x), if j == 3 && p(x) { 2.0 } else { junk[j] }), x0)
                };
                assert_eq!(r.to_bits(), w.to_bits(), "pred {i} x0 {x0} junk {j}");
                let log: Vec<u64> = log.iter().map(|x| x.to_bits()).collect();
                assert_eq!(log, *want.borrow(), "pred {i} x0 {x0} junk {j}");
            }
        }
    }
}

/// Smooth monotone ratios (powers, exponentials, a kink, targets far from and at the guess):
/// the exact threshold of the boolean search in a few evaluations.
#[test]
fn values_converge_in_few_steps() {
    let mut worst = 0;
    let mut total = 0;
    let mut n = 0;
    for k in [0.5, 1.0, 2.0, 7.0] {
        for t in [1e-12, 1e-3, 0.37, 1.0, 55.0, 1e9] {
            for x0 in [1e-6, 0.05, 1.0, 4.0, 1e3, 1e12] {
                // f falls as x grows: x^-k, x^-k/(1 + x) (its log-slope changing), and one
                // with a kink at 1 (x^-k below, x^-2k above)
                let fs: [&dyn Fn(f64) -> f64; 3] =
                    [&|x| x.powf(-k), &|x| x.powf(-k) / (1.0 + x), &|x| {
                        if x < 1.0 {
                            x.powf(-k)
                        } else {
                            x.powf(-2.0 * k)
                        }
                    }];
                for f in fs {
                    let want = boolean_reference(&|x| f(x) <= t, x0);
                    let (got, log) = valued_log(&|x| (f(x) <= t, f(x) / t), x0);
                    assert_eq!(got.to_bits(), want.to_bits(), "k {k} t {t} x0 {x0}");
                    if want > 0.0 && want < f64::INFINITY && f(want) / t > 1e-300 {
                        worst = worst.max(log.len());
                        total += log.len();
                        n += 1;
                    }
                }
            }
        }
    }
    let mean = total as f64 / n as f64;
    eprintln!("value-guided: {n} searches, mean {mean:.1}, worst {worst} evaluations");
    assert!(mean <= 16.0 && worst <= 40, "mean {mean} worst {worst}");
    // a guess at the threshold: a few evaluations
    let t = 0.3_f64;
    let x = boolean_reference(&|x| 1.0 / x <= t, 1.0);
    let (got, log) = valued_log(&|x| (1.0 / x <= t, (1.0 / x) / t), x);
    assert!(got == x && log.len() <= 4, "{}", log.len());
}

/// A threshold t just above a region where the function is undefined (no ratio, missed:
/// too little noise for the bound), with a smooth ratio on both sides of t (multi-epoch
/// PNSGD's guide near the edge where its ε jumps to +∞): the one-sided secant from the met
/// side points below the undefined end; its probe next to that end is made once, then the
/// search bisects until both ends have values (a chain of one-ulp probes had emptied the
/// budget: 65 evaluations from 0.3). And where the answer is next to the undefined end
/// (the smallest positive double), that one probe finds it.
#[test]
fn undefined_region_below_the_threshold() {
    for (t, u, x0, most) in [
        (0.054_210_957_927_302_5, 0.0527, 0.3, 25),
        (0.054_210_957_927_302_5, 0.0527, 4.0, 25),
        (1.234, 1.0, 100.0, 25),
        (3e-5, 1e-5, 1.0, 25),
    ] {
        let f = |x: f64| -> (bool, f64) {
            if x < u {
                return (false, f64::NAN);
            }
            let edge = (t / x).powi(40);
            let r = if x >= t {
                edge.max(1e-3 * (t / x).powi(2))
            } else {
                edge
            };
            (x >= t, r)
        };
        let want = boolean_reference(&|x| f(x).0, x0);
        let (got, log) = valued_log(&f, x0);
        assert_eq!(got.to_bits(), want.to_bits(), "t {t} x0 {x0}");
        assert!(
            log.len() <= most,
            "t {t} x0 {x0}: {} evaluations",
            log.len()
        );
    }
    // the answer next to the undefined end: 0 rejected, every positive double met
    let (got, log) = valued_log(
        &|x| (x > 0.0, if x > 0.0 { 0.5 / (1.0 + x) } else { f64::NAN }),
        1.0,
    );
    assert_eq!(got.to_bits(), 1, "{got}");
    assert!(log.len() <= 8, "{}", log.len());
}

/// Adversarial ratios (random, on the right side of 1 but of any size, or constant): the
/// exact threshold still, within the bound of MAX_EVALS = 2·64 + SPARE evaluations.
#[test]
fn adversarial_values_stay_bounded() {
    let mut seed = 7u64;
    for i in 0..3000 {
        let t = f64::from_bits(mix(&mut seed) % INF);
        let x0 = f64::from_bits(mix(&mut seed) % (INF + 1));
        let style = i % 4;
        let s0 = mix(&mut seed);
        let ratio = |x: f64| -> f64 {
            let h = mix(&mut (x.to_bits() ^ s0));
            let m = match style {
                0 => 1.0 + (h % 1000) as f64, // any size
                1 => 1.0 + 1e-300,            // flat
                2 => f64::from_bits(h % INF).max(1e-300) + 1.0,
                _ => 1.0 + (x - t).abs(), // linear in x, not in the bits
            };
            if x >= t {
                1.0 / m
            } else {
                m
            }
        };
        let want = boolean_reference(&|x| x >= t, x0);
        let (got, log) = valued_log(&|x| (x >= t, ratio(x)), x0);
        assert_eq!(got.to_bits(), want.to_bits(), "t {t} x0 {x0} style {style}");
        assert!(log.len() <= MAX_EVALS as usize, "{} evaluations", log.len());
    }
}

/// The boolean search's worst cases (from one end of the doubles to a threshold at the
/// other) stay within its bound of 2·63 evaluations, and come close to it.
#[test]
fn boolean_worst_case() {
    use std::cell::Cell;
    let mut worst = 0;
    for (x0, t) in [
        (f64::INFINITY, 5e-324),
        (f64::INFINITY, 1e-300),
        (0.0, f64::MAX),
        (0.0, 1e300),
        (5e-324, f64::INFINITY),
    ] {
        let n = Cell::new(0);
        let r = first_ok(
            &|x| {
                n.set(n.get() + 1);
                x >= t
            },
            x0,
        );
        assert_eq!(r, t);
        worst = worst.max(n.get());
    }
    assert!((120..=2 * 63).contains(&worst), "{worst}");
}

/// Random non-monotone predicates with ratios: the result keeps its meaning (ok there, not
/// at the double below; 0 or +∞ at the ends), and the lock-step search is the scalar one.
#[test]
fn random_property_invariant_and_lock_step() {
    use std::cell::RefCell;
    let mut seed = 11u64;
    let mut guesses = Vec::new();
    let mut params = Vec::new();
    for _ in 0..400 {
        let t = 1e-3 * (1 + mix(&mut seed) % 1_000_000) as f64;
        let noise = mix(&mut seed) % 64; // the low bits scrambled: not monotone
        let k = 0.25 + (mix(&mut seed) % 16) as f64 / 4.0;
        params.push((t, noise, k));
        guesses.push(f64::from_bits(mix(&mut seed) % INF));
    }
    let pred = |j: usize, x: f64| -> (bool, f64) {
        let (t, noise, k) = params[j];
        let y = f64::from_bits(x.to_bits() ^ noise);
        let f = (t / y).powf(k); // ≤ 1 from about t on
        (f <= 1.0, f)
    };
    for (j, &g) in guesses.iter().enumerate() {
        let (r, _) = valued_log(&|x| pred(j, x), g);
        if r == f64::INFINITY {
            assert!(!pred(j, f64::INFINITY).0, "{j}"); // the last probe, +inf, missed
        } else if r > 0.0 {
            assert!(pred(j, r).0 && !pred(j, r.next_down()).0, "{j}: {r}");
        } else {
            assert!(pred(j, 0.0).0);
        }
    }
    let mut out = guesses.clone();
    let logs: RefCell<Vec<Vec<u64>>> = RefCell::new(vec![Vec::new(); guesses.len()]);
    let res: Result<(), ()> = first_ok_many(&mut out, |active, probes, oks, ratios| {
        for (j, (&k, &x)) in active.iter().zip(probes).enumerate() {
            logs.borrow_mut()[k].push(x.to_bits());
            (oks[j], ratios[j]) = pred(k, x);
        }
        Ok(())
    });
    assert!(res.is_ok());
    for (j, &g) in guesses.iter().enumerate() {
        let (r, log) = valued_log(&|x| pred(j, x), g);
        assert_eq!(out[j].to_bits(), r.to_bits(), "element {j}");
        let log: Vec<u64> = log.iter().map(|x| x.to_bits()).collect();
        assert_eq!(logs.borrow()[j], log, "element {j}");
    }
}
