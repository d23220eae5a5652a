//! Unit tests of the per-step PNSGD bounds (`steps.rs`): the constant dispatch, the general
//! path against the constant bound, run lengths against the expanded arrays, validation; a
//! source read chunk by chunk against the array (bits) and its first bad step; the many-factors
//! call against the one-schedule call (bits, errors per element).

use super::params::{Noise, Order};
use super::steps::{stepwise_delta, stepwise_delta_factors, stepwise_epsilon, StepParams};
use super::steps_source::{stepwise_delta_source, SourceParams, StepChunk, StepSource};
use crate::setup::SetupArgs;

fn params<'a>(
    order: Order,
    sigma: &'a [f64],
    lr: &'a [f64],
    runs: Option<&'a [f64]>,
    index: Option<f64>,
) -> StepParams<'a> {
    StepParams {
        noise: Noise::Gaussian,
        order,
        sigma,
        setup: SetupArgs {
            max_grad_norm: &[1.0],
            lr,
            diameter: &[1.0],
            smoothness: Some(&[1.0]),
            strong_convexity: &[0.1],
        },
        run_lengths: runs,
        index,
    }
}

fn one(p: StepParams, eps: f64, log: bool, dispatch: bool) -> f64 {
    let mut o = [0.0];
    stepwise_delta(&[eps], p, &mut o, log, dispatch).unwrap();
    o[0]
}

#[test]
fn constant_general_agrees() {
    for (order, ix) in [
        (Order::Shuffled, None),
        (Order::Fixed, Some(3.0)),
        (Order::RandomStop, None),
        (Order::RandomStop, Some(5.0)),
    ] {
        for eps in [0.1, 1.0, 3.0] {
            let p = params(order, &[2.0], &[0.5], Some(&[20.0]), ix);
            let (a, b) = (one(p, eps, false, true), one(p, eps, false, false));
            assert!((b / a - 1.0).abs() < 1e-13, "{order:?} {eps}: {a} {b}");
        }
    }
}

#[test]
fn run_lengths_equal_expanded_arrays() {
    let lr = [0.5, 0.5, 0.5, 0.2, 0.2, 0.9];
    let runs = [3.0, 2.0, 1.0];
    for (order, ix) in [
        (Order::Shuffled, None),
        (Order::Fixed, Some(2.0)),
        (Order::RandomStop, None),
        (Order::RandomStop, Some(4.0)),
    ] {
        let a = one(params(order, &[1.5], &lr, None, ix), 1.0, true, true);
        let b = one(
            params(order, &[1.5], &[0.5, 0.2, 0.9], Some(&runs), ix),
            1.0,
            true,
            true,
        );
        assert_eq!(a, b, "{order:?}");
        assert!(a < 0.0 && a.is_finite());
    }
}

#[test]
fn epsilon_inverts() {
    let p = params(
        Order::Shuffled,
        &[1.5],
        &[0.5, 0.2],
        Some(&[10.0, 30.0]),
        None,
    );
    let mut e = [0.0];
    stepwise_epsilon(&[1e-5], p, &mut e, true).unwrap();
    assert!(one(p, e[0], false, true) <= 1e-5);
    assert!(one(p, e[0] * (1.0 - 1e-12), false, true) > 1e-5);
}

#[test]
fn validation_names_the_parameter() {
    let bad = [1.0, -1.0];
    let p = params(Order::Shuffled, &bad, &[0.5, 0.2], None, None);
    let e = stepwise_delta(&[1.0], p, &mut [0.0], false, true).unwrap_err();
    assert!(e.to_string().contains("noise_scale"), "{e}");
    let p = params(Order::Shuffled, &[1.0], &[0.5], Some(&[3.0, 0.5]), None);
    let e = stepwise_delta(&[1.0], p, &mut [0.0], false, true).unwrap_err();
    assert!(e.to_string().contains("run_lengths"), "{e}");
    // lr beyond 2/(β + ρ) at piece 1
    let p = params(Order::Shuffled, &[1.0], &[0.5, 1.9], None, None);
    let e = stepwise_delta(&[1.0], p, &mut [0.0], false, true).unwrap_err();
    assert!(e.to_string().contains("index 1"), "{e}");
}

/// Per-step arrays read through the [`StepSource`] interface, counting the chunks.
struct VecSource {
    sigma: Vec<f64>,
    lr: Vec<f64>,
    calls: usize,
}

impl StepSource for VecSource {
    fn fill(&mut self, start: usize, len: usize, c: &mut StepChunk) -> crate::Result<()> {
        self.calls += 1;
        c.sigma = self.sigma[start..start + len].to_vec();
        c.lr = self.lr[start..start + len].to_vec();
        c.max_grad_norm = vec![1.0];
        c.diameter = vec![1.0];
        c.smoothness = Some(vec![1.0]);
        c.strong_convexity = vec![0.1];
        Ok(())
    }
}

fn schedule(n: usize) -> (Vec<f64>, Vec<f64>) {
    // deterministic, varying at every step, with runs of equal steps across chunk boundaries
    let sigma = (0..n).map(|t| 1.0 + ((t / 3) % 17) as f64 / 16.0).collect();
    let lr = (0..n)
        .map(|t| 0.05 + ((t / 5) % 13) as f64 / 30.0)
        .collect();
    (sigma, lr)
}

/// δ (ln δ with `log`) at each ε of `eps` of the steps (σ_t, η_t) read through a
/// [`VecSource`] (differing record at `index`), and the number of chunks read.
fn sourced(
    sigma: &[f64],
    lr: &[f64],
    order: Order,
    index: Option<f64>,
    eps: &[f64],
    out: &mut [f64],
    log: bool,
) -> (crate::Result<()>, usize) {
    let mut src = VecSource {
        sigma: sigma.to_vec(),
        lr: lr.to_vec(),
        calls: 0,
    };
    let q = SourceParams {
        noise: Noise::Gaussian,
        order,
        steps: sigma.len() as f64,
        index,
    };
    let r = stepwise_delta_source(eps, q, &mut src, out, log, true);
    (r, src.calls)
}

#[test]
fn source_equals_array_bits() {
    let n = 2 * (1 << 16) + 77;
    let (sigma, lr) = schedule(n);
    let eps = [0.3, 1.0];
    for (order, ix) in [
        (Order::Shuffled, None),
        (Order::Fixed, Some(100_000.0)),
        (Order::RandomStop, None),
        (Order::RandomStop, Some(70_000.0)),
    ] {
        let mut a = [0.0; 2];
        stepwise_delta(
            &eps,
            params(order, &sigma, &lr, None, ix),
            &mut a,
            true,
            true,
        )
        .unwrap();
        let mut b = [0.0; 2];
        let (r, calls) = sourced(&sigma, &lr, order, ix, &eps, &mut b, true);
        r.unwrap();
        assert_eq!(a.map(f64::to_bits), b.map(f64::to_bits), "{order:?}");
        assert_eq!(calls, 3, "one pass in chunks of 2^16 steps");
        assert!(a.iter().all(|x| x.is_finite() && *x < 0.0));
    }
}

#[test]
fn source_names_the_first_bad_step() {
    let n = 3 * (1 << 16);
    let (sigma, mut lr) = schedule(n);
    lr[70_000] = -1.0;
    lr[140_000] = f64::NAN;
    for order in [Order::Shuffled, Order::RandomStop] {
        let e = sourced(&sigma, &lr, order, None, &[1.0], &mut [0.0], false)
            .0
            .unwrap_err();
        assert!(
            e.to_string().contains("lr") && e.to_string().contains("index 70000"),
            "{e}"
        );
    }
}

#[test]
fn work_counts_pieces_and_search_passes() {
    let lr = [0.5, 0.2, 0.9, 0.5, 0.2, 0.9];
    let p = params(Order::Shuffled, &[1.5], &lr, None, None);
    assert_eq!(p.work(10, false), 60);
    assert_eq!(p.work(10, true), 10 * super::steps::SEARCH_PASSES * 6);
    let p = params(
        Order::Shuffled,
        &[1.5],
        &lr[..3],
        Some(&[4.0, 1e9, 2.0]),
        None,
    );
    assert_eq!(p.work(1, false), 3, "the pieces, not the steps");
    assert_eq!(p.work(usize::MAX, true), usize::MAX, "saturates");
    assert_eq!(p.work(0, true), 0);
}

/// Chunks each constant but different from each other: not a constant schedule (a piece of
/// one chunk compared with step 1 of another), so the source takes the general path as the
/// array does; all equal: the constant bound, bit for bit.
#[test]
fn source_constant_across_chunks() {
    let n = (1 << 16) + 5;
    for (s2, constant) in [(2.0, false), (1.0, true)] {
        let mut sigma = vec![1.0; n];
        sigma[1 << 16..].fill(s2);
        let mut b = [0.0];
        let (r, _) = sourced(
            &sigma,
            &vec![0.5; n],
            Order::Shuffled,
            None,
            &[1.0],
            &mut b,
            false,
        );
        r.unwrap();
        let runs = [(1 << 16) as f64, 5.0];
        let levels = [1.0, s2];
        let p = params(Order::Shuffled, &levels, &[0.5], Some(&runs), None);
        let (a, general) = (one(p, 1.0, false, true), one(p, 1.0, false, false));
        assert_eq!(a.to_bits(), b[0].to_bits(), "{s2}");
        // the constant bound of step 1 alone differs from the general value of two levels
        let first = one(
            params(Order::Shuffled, &[1.0], &[0.5], Some(&[n as f64]), None),
            1.0,
            false,
            true,
        );
        assert_eq!(a.to_bits() == first.to_bits(), constant, "{s2}");
        assert!(constant || a.to_bits() == general.to_bits());
    }
}

#[test]
fn factors_are_the_one_schedule_calls() {
    let sigma = [1.0, 2.0, 1e300];
    let (lr, runs) = ([0.5, 0.1, 0.3], [10.0, 5.0, 7.0]);
    let p = params(Order::Shuffled, &sigma, &lr, Some(&runs), None);
    let (eps, fac) = ([0.5, 1.0, 2.0, 1.0], [0.7, 3.0, 1e10, 1.0]);
    let got = stepwise_delta_factors(&eps, &fac, p, true).unwrap();
    for j in 0..4 {
        let s: Vec<f64> = sigma.iter().map(|x| fac[j] * x).collect();
        let mut o = [0.0];
        let want = stepwise_delta(
            &[eps[j]],
            StepParams { sigma: &s, ..p },
            &mut o,
            false,
            true,
        );
        match (&got[j], want) {
            (Ok(a), Ok(())) => assert_eq!(a.to_bits(), o[0].to_bits(), "{j}"),
            (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{j}"),
            (a, b) => panic!("{j}: {a:?} vs {b:?}"),
        }
    }
    assert!(got[2].is_err() && got[0].is_ok());
    assert!(stepwise_delta_factors(&eps[..2], &fac, p, true).is_err());
}
