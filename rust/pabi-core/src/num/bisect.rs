//! Exact searches over the bit patterns of non-negative doubles (ordered like their values):
//! the first double at which a predicate holds, to the last ulp.
//!
//! [`bisect_bits`] bisects a given bracket; [`first_ok`] first finds a bracket by exponential
//! steps from a guess; [`first_ok_many`] runs [`first_ok`] for many guesses (and predicates) in
//! lock-step, one batched evaluation per round. All three are driven by one state machine,
//! [`Search`] (each step of the logic written once), so the lock-step search probes, for each
//! element, exactly the doubles the scalar search would, in the same order, and returns the
//! same result to the bit even where a predicate is not monotone. None needs the predicate to
//! be monotone to terminate (at most ~2·64 evaluations per element). With a fixed bracket,
//! [`bisect_bits`] also makes an inversion **exactly monotone** whenever the predicates of two
//! targets are nested (ok₁(x) ⇒ ok₂(x) for every x, e.g. `f(x) > δ₂` ⇒ `f(x) > δ₁` for
//! δ₁ ≤ δ₂), even if the computed `f` itself is not monotone to the last ulp: both searches
//! visit the same midpoints until the first one where the predicates differ, and there the
//! first search continues below that midpoint and the second at or above it.

/// The bit pattern of +∞, the largest non-negative double pattern searched.
const INF: u64 = 0x7ff0_0000_0000_0000;

/// The state of an exact search between two evaluations of its predicate: [`Search::probe`]
/// gives the double to evaluate next (None once finished), [`Search::feed`] takes the
/// predicate's value there, [`Search::result`] the answer once finished.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Search {
    /// [`first_ok`]'s first evaluation, at the guess (bits `b`).
    Start { b: u64 },
    /// ok(b): stepping down by `step` ulps (doubling) to a double where ok fails.
    Down { b: u64, step: u64 },
    /// !ok(b): stepping up by `step` ulps (doubling) to a double where ok holds.
    Up { b: u64, step: u64 },
    /// !ok(a), ok(b), b − a > 1: bisection of the bit patterns.
    Bisect { a: u64, b: u64 },
    /// Finished with this result.
    Done(f64),
}

impl Search {
    /// [`first_ok`] from the guess `x0` (a negative or NaN guess starts at +∞).
    #[inline(always)]
    pub fn first_ok(x0: f64) -> Self {
        Search::Start {
            b: x0.to_bits().min(INF),
        }
    }

    /// [`bisect_bits`] on (lo, hi], given !ok(lo) and ok(hi), both ≥ 0.
    #[inline(always)]
    pub fn bisect(lo: f64, hi: f64) -> Self {
        Self::bracket(lo.to_bits(), hi.to_bits())
    }

    #[inline(always)]
    fn bracket(a: u64, b: u64) -> Self {
        if b.wrapping_sub(a) > 1 && b > a {
            Search::Bisect { a, b }
        } else {
            Search::Done(f64::from_bits(b))
        }
    }

    /// The double at which the predicate is evaluated next; None once finished.
    #[inline(always)]
    pub fn probe(&self) -> Option<f64> {
        let bits = match *self {
            Search::Start { b } => b,
            Search::Down { b, step } => b.saturating_sub(step),
            Search::Up { b, step } => b.saturating_add(step).min(INF),
            Search::Bisect { a, b } => a + (b - a) / 2,
            Search::Done(_) => return None,
        };
        Some(f64::from_bits(bits))
    }

    /// Advance by the predicate's value `ok` at [`Search::probe`] (no effect once finished).
    #[inline(always)]
    pub fn feed(&mut self, ok: bool) {
        *self = match *self {
            Search::Start { b } if ok => Self::down(b, 1),
            Search::Start { b } => Self::up(b, 1),
            Search::Down { b, step } => {
                let lb = b.saturating_sub(step);
                if ok {
                    Self::down(lb, step.saturating_mul(2))
                } else {
                    Self::bracket(lb, b)
                }
            }
            Search::Up { b, step } => {
                let hb = b.saturating_add(step).min(INF);
                if ok {
                    Self::bracket(b, hb)
                } else {
                    Self::up(hb, step.saturating_mul(2))
                }
            }
            Search::Bisect { a, b } => {
                let mid = a + (b - a) / 2;
                if ok {
                    Self::bracket(a, mid)
                } else {
                    Self::bracket(mid, b)
                }
            }
            done @ Search::Done(_) => done,
        }
    }

    /// ok(b) holds: 0 if b is 0, else step down.
    #[inline(always)]
    fn down(b: u64, step: u64) -> Self {
        if b == 0 {
            Search::Done(0.0)
        } else {
            Search::Down { b, step }
        }
    }

    /// ok(b) fails: +∞ if b is +∞, else step up.
    #[inline(always)]
    fn up(b: u64, step: u64) -> Self {
        if b >= INF {
            Search::Done(f64::INFINITY)
        } else {
            Search::Up { b, step }
        }
    }

    /// The answer, once finished.
    #[inline(always)]
    pub fn result(&self) -> Option<f64> {
        match *self {
            Search::Done(x) => Some(x),
            _ => None,
        }
    }

    /// Run to the end with a scalar predicate.
    #[inline(always)]
    fn run(mut self, ok: impl Fn(f64) -> bool) -> f64 {
        loop {
            match self.probe() {
                Some(x) => self.feed(ok(x)),
                None => return self.result().unwrap_or(f64::NAN),
            }
        }
    }
}

/// Smallest double x in (lo, hi] with `ok(x)`, given !ok(lo) and ok(hi), both ≥ 0: bisection
/// on the bit patterns (monotone for non-negative doubles), at most 64 steps.
#[inline(always)]
pub fn bisect_bits(lo: f64, hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
    Search::bisect(lo, hi).run(ok)
}

/// Exact predicate search: given `ok` false below a threshold and true from it on (or at least
/// evaluated consistently), the smallest double x ≥ 0 with ok(x) near `x0` (0 if ok(0), +∞ if
/// no finite double is ok). Exponential steps over the bit patterns from x0 find a bracket, then
/// [`bisect_bits`]: ≤ ~2·64 evaluations. The result depends on `x0` where `ok` is not monotone.
pub fn first_ok(ok: &dyn Fn(f64) -> bool, x0: f64) -> f64 {
    Search::first_ok(x0).run(ok)
}

/// [`first_ok`] for every guess at once, in lock-step rounds: `x` holds the guesses on entry
/// and the results on exit (one slice: no length to mismatch). Each round calls
/// `round(active, probes, oks)` once with the indices of the still-running searches and the
/// double each one evaluates next, and the predicate of search `active[j]` at `probes[j]` is
/// to be written to `oks[j]`. Element k probes exactly the doubles of `first_ok(ok_k, x[k])`,
/// in the same order, so its result is that scalar search's to the bit. At most ~2·64 rounds;
/// the first error of `round` ends the search and is returned (`x` then unchanged).
pub fn first_ok_many<E>(
    x: &mut [f64],
    mut round: impl FnMut(&[usize], &[f64], &mut [bool]) -> Result<(), E>,
) -> Result<(), E> {
    let mut states: Vec<Search> = x.iter().map(|&g| Search::first_ok(g)).collect();
    let (mut active, mut probes, mut oks) = (Vec::new(), Vec::new(), Vec::new());
    loop {
        active.clear();
        probes.clear();
        for (k, s) in states.iter().enumerate() {
            if let Some(x) = s.probe() {
                active.push(k);
                probes.push(x);
            }
        }
        if active.is_empty() {
            break;
        }
        oks.clear();
        oks.resize(active.len(), false);
        round(&active, &probes, &mut oks)?;
        for (&k, &ok) in active.iter().zip(&oks) {
            states[k].feed(ok);
        }
    }
    for (o, s) in x.iter_mut().zip(&states) {
        *o = s.result().unwrap_or(f64::NAN);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
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
        let res: Result<(), ()> = first_ok_many(&mut out, |active, probes, oks| {
            rounds += 1;
            for ((&k, &x), ok) in active.iter().zip(probes).zip(oks.iter_mut()) {
                logs.borrow_mut()[k].push(x);
                *ok = pred(k, x);
            }
            Ok(())
        });
        assert!(res.is_ok() && rounds <= 2 * 65);
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
        let err = first_ok_many(&mut out, |_, _, _| {
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
}
