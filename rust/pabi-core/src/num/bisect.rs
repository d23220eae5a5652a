//! Exact searches over the bit patterns of non-negative doubles (ordered like their values):
//! the first double at which a predicate holds, to the last ulp.
//!
//! [`bisect_bits`] bisects a given bracket; [`first_ok`] first finds a bracket by exponential
//! steps from a guess; [`first_ok_many`] runs [`first_ok`] for many guesses (and predicates) in
//! lock-step, one batched evaluation per round. All are driven by one state machine,
//! [`Search`] (each step of the logic written once), so the lock-step search probes, for each
//! element, exactly the doubles the scalar search would, in the same order, and returns the
//! same result to the bit even where a predicate is not monotone. None needs the predicate to
//! be monotone to terminate. With a fixed bracket,
//! [`bisect_bits`] also makes an inversion **exactly monotone** whenever the predicates of two
//! targets are nested (ok₁(x) ⇒ ok₂(x) for every x, e.g. `f(x) > δ₂` ⇒ `f(x) > δ₁` for
//! δ₁ ≤ δ₂), even if the computed `f` itself is not monotone to the last ulp: both searches
//! visit the same midpoints until the first one where the predicates differ, and there the
//! first search continues below that midpoint and the second at or above it.
//!
//! **Value-guided search** ([`first_ok_valued`], [`Search::feed_value`]). A predicate of the form
//! f(x) ≤ target may also report the ratio r = f(x)/target (> 1 where it misses, ≤ 1 where it
//! holds). The verdict alone still decides every step (the result keeps its meaning: a double
//! x with ok(x) and !ok at the double below, the last two probes); the ratio only chooses WHERE
//! to probe, by interpolating ln r linearly in the bit pattern (≈ ln x): from the guess, a first
//! step sized by |ln r| and then secant extrapolation (aiming 1/8 past the predicted threshold)
//! replace the exponential steps; inside the bracket, regula falsi with the Illinois
//! modification (the value of an end kept twice in a row is halved), or, when one end has no
//! ratio, the secant through the other end and the last point replaced on its side (where its
//! zero lies at or beyond an end, the probe next to that end once per search, then the
//! midpoint). A missing,
//! non-finite or non-positive ratio, or one on the wrong side of 1 for its verdict, is no
//! information: such a probe is a boolean one, and a search fed no ratios probes exactly the
//! doubles of the boolean search.
//!
//! **The worst case: at most [`MAX_EVALS`] = 2·64 + [`SPARE`] evaluations**, whatever the
//! ratios, by one budget of [`SPARE`] evaluations (`Search::spare`) that both phases share:
//! a probe the boolean search would not make in the worst case is paid from it.
//! - *Bracket search* (from the guess): the guess, then steps whose pace doubles at every step
//!   (1, 2, 4, … ulps). A step at least its pace is free; a shorter one (the secant's) costs 1
//!   and is taken only while the budget lasts. A free step with a pace of 2⁶³ ulps passes every
//!   pattern (+∞'s is below 2⁶³), so the search reaches a bracket (or 0, or +∞) by its 64th
//!   step at the latest, plus one step per unit paid: ≤ 1 + 64 + *paid* evaluations.
//! - *Bisection* of a bracket of w ulps (w < 2⁶³): the potential *spare* + ⌈log₂ w⌉ (≤ 63 +
//!   what is left of the budget) falls by at least one at every probe. A midpoint lowers
//!   ⌈log₂ w⌉ by one; an interpolated probe (made only while the budget is not empty) pays
//!   from it what it lowers ⌈log₂ w⌉ by less than one and earns back what it lowers it by more
//!   (the budget capped at 64); an empty budget means midpoints. So ≤ 63 + [`SPARE`] − *paid*.
//!
//! In all, 1 + 64 + 63 + [`SPARE`]; the boolean search alone needs at most 2·63 (its bracket
//! of 2ᵏ⁻¹ ulps after k steps takes k − 1 bisections).

/// The bit pattern of +∞, the largest non-negative double pattern searched.
const INF: u64 = 0x7ff0_0000_0000_0000;

/// The value-guided steps allowed beyond the boolean search's step count (see the module doc).
pub const SPARE: u32 = 8;

/// The most evaluations of its predicate any search makes (see the module doc): the guess,
/// 64 steps of the bracket search, 63 bisections and the [`SPARE`] budget.
pub const MAX_EVALS: u32 = 1 + 64 + 63 + SPARE;

/// Where the state machine is (bit patterns; `b` met, `a` missed).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    /// [`first_ok`]'s first evaluation, at the guess (bits `b`).
    Start { b: u64 },
    /// ok(b): stepping down by `step` ulps to a double where ok fails; `pace` doubles each
    /// step (the boolean search's step, and the least one beyond [`SPARE`] shorter ones).
    Down { b: u64, step: u64, pace: u64 },
    /// !ok(b): stepping up by `step` ulps (`pace` as for `Down`) to a double where ok holds.
    Up { b: u64, step: u64, pace: u64 },
    /// !ok(a), ok(b), b − a > 1: bisection (or interpolation) of the bit patterns.
    Bisect { a: u64, b: u64 },
    /// Finished with this result.
    Done(f64),
}

/// The state of an exact search between two evaluations of its predicate: [`Search::probe`]
/// gives the double to evaluate next (None once finished), [`Search::feed`] (or
/// [`Search::feed_value`]) takes the predicate's verdict there, [`Search::result`] the answer
/// once finished.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Search {
    phase: Phase,
    /// The next probe's bits (Down/Up: b ∓ step; Bisect: the midpoint or the interpolated probe).
    next: u64,
    /// ln r at `a` (Bisect; NaN: none; Illinois may have halved it).
    va: f64,
    /// ln r at `b` (Start/Down/Up: at the last point; Bisect: at b; NaN: none).
    vb: f64,
    /// The last valued point left behind (bits, ln r; NaN: none), for one-sided secants.
    prev: (u64, f64),
    /// The budget: value-guided probes still allowed beyond the boolean search's worst case
    /// (see the module doc; [`SPARE`] at the start, shared by both phases).
    spare: u32,
    /// Bisect: which end the last probe moved (+1 b, −1 a, 0 none), for Illinois.
    side: i8,
    /// Whether the one-sided secant's probe next to an end was made (see [`Search::inside`]).
    edge_tried: bool,
}

/// ⌈log₂ w⌉: the bisection steps that take a bracket of `w` ≥ 1 ulps to one ulp.
#[inline(always)]
fn need(w: u64) -> u32 {
    64 - (w - 1).leading_zeros()
}

/// ln r for the verdict `ok`, or NaN where r gives no information (not a positive finite
/// ratio, or on the wrong side of 1).
#[inline(always)]
fn margin(ok: bool, r: f64) -> f64 {
    if r > 0.0 && r < f64::INFINITY && (ok == (r <= 1.0)) {
        r.ln()
    } else {
        f64::NAN
    }
}

/// The offset (ulps, ≥ 0) from a point with ln r = `v` to where the line through it and a point
/// `dist` ulps behind it with ln r = `v_behind` crosses 0, if that lies ahead (finite, ≥ 0).
#[inline(always)]
fn ahead(dist: f64, v: f64, v_behind: f64) -> Option<f64> {
    let d = dist * v / (v_behind - v);
    (0.0..f64::INFINITY).contains(&d).then_some(d)
}

impl Search {
    #[inline(always)]
    fn at(phase: Phase, next: u64) -> Self {
        Search {
            phase,
            next,
            va: f64::NAN,
            vb: f64::NAN,
            prev: (0, f64::NAN),
            spare: SPARE,
            side: 0,
            edge_tried: false,
        }
    }

    /// [`first_ok`] from the guess `x0` (a negative or NaN guess starts at +∞).
    #[inline(always)]
    pub fn first_ok(x0: f64) -> Self {
        let b = x0.to_bits().min(INF);
        Self::at(Phase::Start { b }, b)
    }

    /// [`bisect_bits`] on (lo, hi], given !ok(lo) and ok(hi), both ≥ 0.
    #[inline(always)]
    pub fn bisect(lo: f64, hi: f64) -> Self {
        let mut s = Self::at(Phase::Done(hi), 0);
        s.bracket(lo.to_bits(), hi.to_bits(), f64::NAN, f64::NAN);
        s
    }

    /// Enter the bracket (a, b] (values `va`, `vb`), or finish at b when it is one ulp or less.
    #[inline(always)]
    fn bracket(&mut self, a: u64, b: u64, va: f64, vb: f64) {
        if b.wrapping_sub(a) > 1 && b > a {
            (self.va, self.vb, self.side) = (va, vb, 0);
            self.phase = Phase::Bisect { a, b };
            self.next = self.inside(a, b);
        } else {
            self.phase = Phase::Done(f64::from_bits(b));
        }
    }

    /// The probe inside (a, b), b − a ≥ 2: the interpolated one while the budget allows,
    /// otherwise (and always without values) the midpoint of the bit patterns.
    #[inline(always)]
    fn inside(&mut self, a: u64, b: u64) -> u64 {
        let w = b - a;
        let mid = a + w / 2;
        if self.spare == 0 {
            return mid;
        }
        // the offset from a of the zero of ln r: regula falsi between the ends, or the secant
        // through the valued end and the last valued point left behind. Where that secant's
        // zero lies at or beyond an end, the probe next to that end tests whether the answer
        // is there (as where it is the end of the domain), once per search: where it is not, a
        // chain of such probes would move the end one ulp at a time, each paid from the budget,
        // while the midpoint is free
        let (va, vb, (p, vp)) = (self.va, self.vb, self.prev);
        let off = if va.is_finite() && vb.is_finite() {
            Some(w as f64 * (va / (va - vb)))
        } else if vp.is_finite() && (va.is_finite() || vb.is_finite()) {
            let (e, ve) = if va.is_finite() { (a, va) } else { (b, vb) };
            let d = (e as i128 - p as i128) as f64 * ve / (vp - ve); // signed, from e
            let o = (e - a) as f64 + d;
            let at_end = !(o > 1.0 && o < (w - 1) as f64);
            if at_end && o.is_finite() {
                if self.edge_tried {
                    None
                } else {
                    self.edge_tried = true;
                    Some(o)
                }
            } else {
                Some(o)
            }
        } else {
            None
        };
        match off {
            Some(o) if o.is_finite() => a + (o.max(1.0) as u64).clamp(1, w - 1),
            _ => mid,
        }
    }

    /// The size of the next step of the bracket search that just moved `dist` ulps from a point
    /// with ln r = `v_behind` to one with ln r = `v`, its pace doubled to `doubled`: that pace,
    /// or (with values) the secant's distance to ln r = 0 plus 1/8, a shorter one than the pace
    /// only while the budget lasts.
    #[inline(always)]
    fn next_step(&mut self, dist: u64, doubled: u64, v: f64, v_behind: f64) -> u64 {
        match ahead(dist as f64, v, v_behind) {
            Some(d) => {
                let g = ((d + d / 8.0) as u64).saturating_add(1);
                if g >= doubled {
                    g
                } else if self.spare > 0 {
                    self.spare -= 1;
                    g
                } else {
                    doubled
                }
            }
            None => doubled,
        }
    }

    /// The double at which the predicate is evaluated next; None once finished.
    #[inline(always)]
    pub fn probe(&self) -> Option<f64> {
        match self.phase {
            Phase::Done(_) => None,
            _ => Some(f64::from_bits(self.next)),
        }
    }

    /// Advance by the predicate's verdict `ok` at [`Search::probe`] (no effect once finished).
    #[inline(always)]
    pub fn feed(&mut self, ok: bool) {
        self.feed_value(ok, f64::NAN)
    }

    /// Advance by the predicate's verdict `ok` at [`Search::probe`] and the ratio `r` of its
    /// function to its target there (> 1 missed, ≤ 1 met; NaN: none), which only guides where
    /// the search probes next (see the module doc). No effect once finished.
    #[inline(always)]
    pub fn feed_value(&mut self, ok: bool, r: f64) {
        let x = self.next;
        let v = margin(ok, r);
        match self.phase {
            Phase::Start { b } => {
                // the first step: 1 ulp, or |ln r| read as a relative distance (2^52 ulps per
                // unit of ln x), within [1, 2^44] ulps
                let step = if v.is_finite() {
                    ((v.abs() * 4503599627370496.0) as u64).clamp(1, 1 << 44)
                } else {
                    1
                };
                self.vb = v;
                if ok {
                    self.down(b, step, 1)
                } else {
                    self.up(b, step, 1)
                }
            }
            Phase::Down { b, pace, .. } => {
                if ok {
                    let pace = pace.saturating_mul(2);
                    let s = self.next_step(b - x, pace, v, self.vb);
                    self.prev = (b, self.vb);
                    self.vb = v;
                    self.down(x, s, pace)
                } else {
                    self.bracket(x, b, v, self.vb)
                }
            }
            Phase::Up { b, pace, .. } => {
                if ok {
                    let vb = self.vb;
                    self.bracket(b, x, vb, v)
                } else {
                    let pace = pace.saturating_mul(2);
                    let s = self.next_step(x - b, pace, v, self.vb);
                    self.prev = (b, self.vb);
                    self.vb = v;
                    self.up(x, s, pace)
                }
            }
            Phase::Bisect { a, b } => {
                let before = need(b - a);
                let (a, b) = if ok {
                    if self.vb.is_finite() || self.prev.1.is_nan() {
                        self.prev = (b, self.vb);
                    }
                    if self.side > 0 {
                        self.va *= 0.5; // Illinois: the end kept twice in a row
                    }
                    (self.vb, self.side) = (v, 1);
                    (a, x)
                } else {
                    if self.va.is_finite() || self.prev.1.is_nan() {
                        self.prev = (a, self.va);
                    }
                    if self.side < 0 {
                        self.vb *= 0.5;
                    }
                    (self.va, self.side) = (v, -1);
                    (x, b)
                };
                if b - a > 1 {
                    // spare + need falls by one (module doc): a probe that does not halve the
                    // bracket pays the difference, one that shrinks it more earns it back, a
                    // midpoint (always, with an empty budget) leaves the budget as it is; no
                    // underflow, since need never rises and falls at a midpoint
                    let after = need(b - a);
                    debug_assert!(self.spare + before > after);
                    self.spare = (self.spare + before - 1 - after).min(64);
                    self.phase = Phase::Bisect { a, b };
                    self.next = self.inside(a, b);
                } else {
                    self.phase = Phase::Done(f64::from_bits(b));
                }
            }
            Phase::Done(_) => {}
        }
    }

    /// ok(b) holds: 0 if b is 0, else step down.
    #[inline(always)]
    fn down(&mut self, b: u64, step: u64, pace: u64) {
        if b == 0 {
            self.phase = Phase::Done(0.0);
        } else {
            self.phase = Phase::Down { b, step, pace };
            self.next = b.saturating_sub(step);
        }
    }

    /// ok(b) fails: +∞ if b is +∞, else step up.
    #[inline(always)]
    fn up(&mut self, b: u64, step: u64, pace: u64) {
        if b >= INF {
            self.phase = Phase::Done(f64::INFINITY);
        } else {
            self.phase = Phase::Up { b, step, pace };
            self.next = b.saturating_add(step).min(INF);
        }
    }

    /// The answer, once finished.
    #[inline(always)]
    pub fn result(&self) -> Option<f64> {
        match self.phase {
            Phase::Done(x) => Some(x),
            _ => None,
        }
    }

    /// Run to the end with a scalar predicate giving (verdict, ratio).
    #[inline(always)]
    fn run(mut self, ok: impl Fn(f64) -> (bool, f64)) -> f64 {
        while let Some(x) = self.probe() {
            let (o, r) = ok(x);
            self.feed_value(o, r);
        }
        self.result().unwrap_or(f64::NAN)
    }
}

/// Verdicts proven for a whole side of a threshold search, as bit patterns of non-negative
/// doubles: the predicate fails at every x ≤ `miss` and holds at every x ≥ `meet` (the certified
/// skips of the PNSGD and GDP inversions: one evaluation far enough from the target proves a
/// side; the proofs are in their modules). A bisection takes [`Certificates::decided`]'s verdict
/// at a midpoint instead of evaluating it, and confirms by evaluation any end of its final
/// bracket that a certificate decided.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Certificates {
    /// Largest proven miss, smallest proven meet (bits; None: none yet).
    pub miss: Option<u64>,
    pub meet: Option<u64>,
}

impl Certificates {
    /// No certificate.
    pub const NONE: Certificates = Certificates {
        miss: None,
        meet: None,
    };

    /// The verdict at `m` (bits) that a certificate proves, if any.
    #[inline(always)]
    pub fn decided(&self, m: u64) -> Option<bool> {
        if self.miss.is_some_and(|c| m <= c) {
            Some(false)
        } else if self.meet.is_some_and(|c| m >= c) {
            Some(true)
        } else {
            None
        }
    }

    /// A proven miss at `b` (bits): keeps the largest.
    #[inline(always)]
    pub fn add_miss(&mut self, b: u64) {
        self.miss = Some(self.miss.map_or(b, |c| c.max(b)));
    }

    /// A proven meet at `b` (bits): keeps the smallest.
    #[inline(always)]
    pub fn add_meet(&mut self, b: u64) {
        self.meet = Some(self.meet.map_or(b, |c| c.min(b)));
    }
}

/// Smallest double x in (lo, hi] with `ok(x)`, given !ok(lo) and ok(hi), both ≥ 0: bisection
/// on the bit patterns (monotone for non-negative doubles), at most 64 steps.
#[inline(always)]
pub fn bisect_bits(lo: f64, hi: f64, ok: impl Fn(f64) -> bool) -> f64 {
    Search::bisect(lo, hi).run(|x| (ok(x), f64::NAN))
}

/// Exact predicate search: given `ok` false below a threshold and true from it on (or at least
/// evaluated consistently), the smallest double x ≥ 0 with ok(x) near `x0` (0 if ok(0), +∞ if
/// no finite double is ok). Exponential steps over the bit patterns from x0 find a bracket, then
/// [`bisect_bits`]: ≤ 2·63 evaluations. The result depends on `x0` where `ok` is not monotone.
pub fn first_ok(ok: &dyn Fn(f64) -> bool, x0: f64) -> f64 {
    Search::first_ok(x0).run(|x| (ok(x), f64::NAN))
}

/// [`first_ok`] for a predicate that also gives the ratio of its function to its target (> 1
/// missed, ≤ 1 met; NaN: none), which guides the probes (module doc): the same meaning of the
/// result (ok there, not at the double below, decided by the verdicts alone), in ~10-25
/// evaluations for a smooth ratio, ≤ [`MAX_EVALS`] in any case.
pub fn first_ok_valued(ok: &dyn Fn(f64) -> (bool, f64), x0: f64) -> f64 {
    Search::first_ok(x0).run(ok)
}

/// [`first_ok_valued`] for every guess at once, in lock-step rounds: `x` holds the guesses on
/// entry and the results on exit (one slice: no length to mismatch). Each round calls
/// `round(active, probes, oks, ratios)` once with the indices of the still-running searches and
/// the double each one evaluates next; the verdict of search `active[j]` at `probes[j]` is to be
/// written to `oks[j]` and, optionally, its ratio to `ratios[j]` (NaN on entry: a boolean
/// probe). Element k probes exactly the doubles of `first_ok_valued(ok_k, x[k])`, in the same
/// order, so its result is that scalar search's to the bit (and [`first_ok`]'s where no ratios
/// are given). The first error of `round` ends the search and is returned (`x` then unchanged).
pub fn first_ok_many<E>(
    x: &mut [f64],
    mut round: impl FnMut(&[usize], &[f64], &mut [bool], &mut [f64]) -> Result<(), E>,
) -> Result<(), E> {
    let mut states: Vec<Search> = x.iter().map(|&g| Search::first_ok(g)).collect();
    let (mut active, mut probes, mut oks, mut ratios) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
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
        ratios.clear();
        ratios.resize(active.len(), f64::NAN);
        round(&active, &probes, &mut oks, &mut ratios)?;
        for ((&k, &ok), &r) in active.iter().zip(&oks).zip(&ratios) {
            states[k].feed_value(ok, r);
        }
    }
    for (o, s) in x.iter_mut().zip(&states) {
        *o = s.result().unwrap_or(f64::NAN);
    }
    Ok(())
}

#[cfg(test)]
#[path = "bisect_tests.rs"]
mod tests;
