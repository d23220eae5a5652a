//! The DP-SGD accountant: `steps` subsampled Gaussian steps (sampling probability q, noise σ)
//! composed as PLDs on a grid coarsened until the size caps hold ([`dpsgd_compositions_with`]),
//! ε(δ) and δ(ε) as certified brackets ([`dpsgd_epsilon_with`], [`dpsgd_delta_with`]), and the σ
//! calibration ([`dpsgd_calibrate_sigma_with`]), under an [`Accounting`]: Poisson sampling with
//! add-or-remove-one neighbours (the default; the functions without `_with`), Poisson sampling
//! with replace-one neighbours, or sampling without replacement (fixed batch size, q = b/n)
//! with replace-one neighbours. Derivations: `docs/derivations/composition.md` and
//! `docs/derivations/neighbouring.md`.

use super::pld::{
    compose_in, grid_error, grid_span, ro_loss_range, sg_loss_range, window, Bracket, Composition,
    Neighbour, Pld, DEFAULT_TAIL, H_MAX, MAX_GRID, MAX_WINDOW,
};
use crate::error::{PabiError, Result};
use crate::num::round::{div_dn, mul_dn, sqrt_up};

/// Default loss grid step of the DP-SGD accountant.
pub const DPSGD_H: f64 = 1e-4;
/// Finest loss grid step the DP-SGD accountant accepts.
pub const DPSGD_H_MIN: f64 = 1e-6;

/// The noise std lr·z·C/b of an iterate of (clipped, averaged) noisy SGD, rounded **down**:
/// a larger noise std gives a smaller privacy bound, so the std handed to a bound must not
/// exceed the exact value for the given doubles. Two directed products and one directed
/// quotient ([`mul_dn`], [`div_dn`]: each ≤ 1 ulp below its exact value and non-decreasing in
/// its arguments, so the chain is ≤ the exact lr·z·C/b, within 3 ulp of it for normal results).
/// Also the other noise parameters of that shape: σ/Δ (lr = C = 1, b = Δ), z·C (lr = b = 1).
/// `lr`, `noise_multiplier`, `clip` ≥ 0 and finite, `batch_size` > 0 and finite.
pub fn iterate_noise_std(
    lr: f64,
    noise_multiplier: f64,
    clip: f64,
    batch_size: f64,
) -> Result<f64> {
    for (name, v) in [
        ("lr", lr),
        ("noise_multiplier", noise_multiplier),
        ("clip", clip),
    ] {
        if !(v >= 0.0 && v.is_finite()) {
            return Err(PabiError::domain(name, ">= 0 and finite", v));
        }
    }
    if !(batch_size > 0.0 && batch_size.is_finite()) {
        return Err(PabiError::domain(
            "batch_size",
            "> 0 and finite",
            batch_size,
        ));
    }
    Ok(div_dn(
        mul_dn(mul_dn(lr, noise_multiplier), clip),
        batch_size,
    ))
}

/// The noise σ/√k rounded **down**: the noise of one mechanism whose Rényi DP equals k times
/// that of noise σ when the RDP is proportional to 1/σ² (Gaussian-type bounds composed k
/// times, e.g. k epochs of the same bound). One directed square root ([`sqrt_up`], ≥ √k) and
/// one directed quotient ([`div_dn`], ≤ the exact quotient), so the result never exceeds the
/// exact σ/√k (a larger noise would give a smaller bound) and is within 2 ulp of it.
/// `noise` ≥ 0 and finite, `count` ≥ 1 and finite.
pub fn noise_over_sqrt_count(noise: f64, count: f64) -> Result<f64> {
    if !(noise >= 0.0 && noise.is_finite()) {
        return Err(PabiError::domain("noise_scale", ">= 0 and finite", noise));
    }
    if !(count >= 1.0 && count.is_finite()) {
        return Err(PabiError::domain("count", ">= 1 and finite", count));
    }
    Ok(div_dn(noise, sqrt_up(count)))
}

/// The public names of the accountant's parameters (the glossary's, docs/glossary.md).
const SAMPLE_RATE: &str = "sample_rate";
const NOISE_MULTIPLIER: &str = "noise_multiplier";
const GRID_STEP: &str = "grid_step";

/// The neighbouring relation of the accountant (the glossary's `neighboring`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// add or remove one record
    AddRemove,
    /// replace one record by another
    ReplaceOne,
}

/// How each step's batch is drawn (the glossary's `sampling`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sampling {
    /// every record joins independently with probability q
    Poisson,
    /// a uniformly random batch of fixed size b out of the n records (q = b/n)
    WithoutReplacement,
}

/// The relation and the sampling an accountant's bound is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Accounting {
    pub relation: Relation,
    pub sampling: Sampling,
}

impl Accounting {
    /// Poisson sampling, add-or-remove-one neighbours (the accountant's default).
    pub const ADD_REMOVE_POISSON: Accounting = Accounting {
        relation: Relation::AddRemove,
        sampling: Sampling::Poisson,
    };

    /// Sampling without replacement is defined for replace-one neighbours only: under add or
    /// remove the dataset size, hence q = b/n, differs between the neighbours (dp-accounting
    /// likewise accepts `SampledWithoutReplacementDpEvent` only under `REPLACE_ONE`).
    fn check(self) -> Result<()> {
        if self.relation == Relation::AddRemove && self.sampling == Sampling::WithoutReplacement {
            return Err(PabiError::option(
                "sampling",
                "'poisson' under neighboring='add_remove' (sampling without replacement, a fixed \
                 batch size b out of n records, is defined for neighboring='replace_one': \
                 adding or removing a record changes n and so q = b/n)",
                "without_replacement",
            ));
        }
        Ok(())
    }
}

/// The single-step PLDs of one accounting, as (builder, loss range): Poisson add/remove is the
/// remove and add directions of the subsampled Gaussian; Poisson replace-one the symmetric
/// replace-one pair (one PLD); sampling without replacement under replace-one the
/// *symmetrised* pair of the remove direction at noise σ/2 (sensitivity 2: the replaced
/// record's slot may hold either of two records of norm ≤ 1 whatever the rest of the batch;
/// dominating pairs: Zhu–Dong–Wang 2022, Def. 7 and Thm 10), whose profile is the per-step worst case for every γ — the remove
/// pair for γ ≥ 1, the add pair for γ < 1 (`docs/derivations/neighbouring.md#symmetrised-pair`)
/// — and, for the lower end of the bracket, the two ordered pairs, which datasets attain.
/// σ/2 is rounded down (exact for normal σ).
#[derive(Clone, Copy, Debug)]
enum Pair {
    Sg(f64, Neighbour),
    Ro,
    /// the symmetrised remove/add pair at this noise (`Pld::symmetrised`)
    Sym(f64),
}

/// What a query needs: the whole bracket, or its upper end only (calibration, δ arrays).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Need {
    Bracket,
    Upper,
}

impl Pair {
    fn of(acc: Accounting, sigma: f64, need: Need) -> Vec<(Pair, f64)> {
        match (acc.relation, acc.sampling) {
            (Relation::AddRemove, _) => vec![
                (Pair::Sg(sigma, Neighbour::Remove), sigma),
                (Pair::Sg(sigma, Neighbour::Add), sigma),
            ],
            (Relation::ReplaceOne, Sampling::Poisson) => vec![(Pair::Ro, sigma)],
            (Relation::ReplaceOne, Sampling::WithoutReplacement) => {
                let half = div_dn(sigma, 2.0);
                let mut v = vec![(Pair::Sym(half), sigma)];
                if need == Need::Bracket {
                    v.push((Pair::Sg(half, Neighbour::Remove), sigma));
                    v.push((Pair::Sg(half, Neighbour::Add), sigma));
                }
                v
            }
        }
    }

    fn range(self, q: f64, sigma: f64) -> (f64, f64) {
        match self {
            Pair::Sg(s, dir) => sg_loss_range(q, s, dir),
            Pair::Ro => ro_loss_range(q, sigma),
            // the add direction's range is the remove direction's mirrored: [−lmax, lmax]
            Pair::Sym(s) => {
                let (_, lmax) = sg_loss_range(q, s, Neighbour::Remove);
                (-lmax, lmax)
            }
        }
    }

    fn build(self, q: f64, sigma: f64, h: f64) -> Result<Pld> {
        match self {
            // every query with one direction of σ also asks for the other (add/remove, and the
            // ordered pairs beside the symmetrised one): a miss builds both in one pass
            Pair::Sg(s, dir) => Pld::subsampled_gaussian_cached_with_other(q, s, dir, h),
            Pair::Ro => Pld::replace_one_gaussian(q, sigma, h),
            Pair::Sym(s) => Pld::subsampled_gaussian_pair_cached(q, s, h)
                .map(|(pos, neg)| Pld::symmetrised(&pos, &neg)),
        }
        // the noise named in an error is the caller's σ, not σ/2
        .map_err(|e| match e {
            PabiError::Domain {
                param: NOISE_MULTIPLIER,
                allowed,
                index,
                ..
            } => PabiError::Domain {
                param: NOISE_MULTIPLIER,
                allowed,
                value: sigma,
                index,
            },
            other => other,
        })
    }
}

fn check_dpsgd(q: f64, sigma: f64, steps: f64) -> Result<()> {
    if !(0.0..=1.0).contains(&q) {
        return Err(PabiError::domain(SAMPLE_RATE, "in [0, 1]", q));
    }
    if !(sigma > 0.0 && sigma.is_finite()) {
        return Err(PabiError::domain(NOISE_MULTIPLIER, "> 0 and finite", sigma));
    }
    if !(steps >= 1.0 && steps.fract() == 0.0 && steps <= 1e12) {
        return Err(PabiError::domain("steps", "an integer in [1, 1e12]", steps));
    }
    Ok(())
}

/// A domain error of the PLD composition under the accountant's names (its `count` of
/// composed mechanisms is the accountant's `steps`; the PLD constructor already names
/// sample_rate, noise_multiplier and grid_step as the accountant does).
fn composition_names(e: PabiError) -> PabiError {
    e.renamed(|param| match param {
        "count" => "steps",
        other => other,
    })
}

fn check_dpsgd_h(h: f64) -> Result<()> {
    if !(DPSGD_H_MIN..=H_MAX).contains(&h) {
        return Err(PabiError::domain(GRID_STEP, "in [1e-6, 0.1]", h));
    }
    Ok(())
}

/// One direction of DP-SGD composed on the finest grid h' = h·2^k (or 0.1) on which both the
/// single-step PLD (≤ [`MAX_GRID`] points) and the composed window (≤ [`MAX_WINDOW`]) fit; a
/// coarser grid is still a valid, slightly looser bound. The single-step grid size is found
/// without allocating; each window miss multiplies h' by the power of two that covers the
/// excess, so there are at most ⌈log2(0.1/1e-6)⌉ + 1 = 18 rounds. If nothing fits at
/// h' = 0.1, the error names `sigma` (σ too small for the caps).
fn dpsgd_direction(q: f64, sigma: f64, steps: f64, pair: Pair, h: f64) -> Result<Composition> {
    let t = steps as u64; // an integer in [1, 1e12] (check_dpsgd)
    let (lmin, lmax) = pair.range(q, sigma);
    let mut hh = h;
    for _ in 0..64 {
        if grid_span(lmin, lmax, hh, MAX_GRID).is_none() {
            if hh >= H_MAX {
                return Err(grid_error(
                    lmin,
                    lmax,
                    H_MAX,
                    MAX_GRID,
                    NOISE_MULTIPLIER,
                    sigma,
                ));
            }
            hh = (hh * 2.0).min(H_MAX);
            continue;
        }
        let p = pair.build(q, sigma, hh)?;
        let win = window(&[(&p, t)], DEFAULT_TAIL).map_err(composition_names)?;
        let w = win.width();
        if w <= MAX_WINDOW as i128 {
            return compose_in(&[(&p, t)], win).map_err(composition_names);
        }
        if hh >= H_MAX {
            return Err(PabiError::domain(
                NOISE_MULTIPLIER,
                format!(
                    "large enough that {steps} compositions fit the composed window's cap of \
                     2^22 points even at the coarsest grid_step = 0.1 (it needs {w}; or use fewer steps)"
                ),
                sigma,
            ));
        }
        // the window shrinks about in proportion to h: jump by the power of two covering it
        let f = (w as f64 / MAX_WINDOW as f64).log2().ceil().exp2().max(2.0);
        hh = (hh * f).min(H_MAX);
    }
    Err(PabiError::internal(
        "the DP-SGD grid coarsening did not terminate",
    ))
}

/// The two compositions (remove, add) of `steps` Poisson-subsampled Gaussian steps, each on
/// the finest grid h·2^k ≤ 0.1 that fits the size caps (see the module doc, "Resource limits").
pub fn dpsgd_compositions(q: f64, sigma: f64, steps: f64, h: f64) -> Result<Vec<Composition>> {
    dpsgd_compositions_with(q, sigma, steps, h, Accounting::ADD_REMOVE_POISSON)
}

/// The compositions of `steps` subsampled Gaussian steps under `acc`, each on the finest grid
/// h·2^k ≤ 0.1 that fits the caps: the two directions (Poisson add/remove), the one symmetric
/// replace-one PLD (Poisson replace-one), or, for sampling without replacement, the
/// symmetrised pair first (its upper end is the bound) and then the two ordered pairs (their
/// lower ends are attained by datasets).
pub fn dpsgd_compositions_with(
    q: f64,
    sigma: f64,
    steps: f64,
    h: f64,
    acc: Accounting,
) -> Result<Vec<Composition>> {
    check_query(q, sigma, steps, h, acc)?;
    composed_pairs(q, sigma, steps, h, acc, Need::Bracket)
}

/// The checks of a query's arguments, in the order the errors are reported.
fn check_query(q: f64, sigma: f64, steps: f64, h: f64, acc: Accounting) -> Result<()> {
    check_dpsgd(q, sigma, steps)?;
    check_dpsgd_h(h)?;
    acc.check()
}

/// The compositions of `steps` steps under `acc` (their arguments checked by [`check_query`]
/// first): the pairs of [`Pair::of`], in parallel.
fn composed_pairs(
    q: f64,
    sigma: f64,
    steps: f64,
    h: f64,
    acc: Accounting,
    need: Need,
) -> Result<Vec<Composition>> {
    if q == 0.0 {
        return Ok(vec![]);
    }
    let pairs = Pair::of(acc, sigma, need);
    // the pairs are composed in parallel; the first error in their order is returned
    crate::driver::each(pairs, |p| dpsgd_direction(q, p.1, steps, p.0, h))
        .into_iter()
        .collect()
}

/// The factor by which the add direction's probe grid is coarser than the query's (see
/// [`query`]). Measured on 360 accountant queries (q 0.001–0.05, σ 0.6–3, T 1e2–1e5, δ 1e-5 to
/// 1e-8): the probe settles 290 of them at factor 8, about as many as at 2 (297) or 4 (296),
/// and costs an eighth of a direction, so the compositions cost 1.32 directions on average
/// instead of 2 (2.125 where the probe does not settle).
const ADD_PROBE: f64 = 8.0;

/// Single-step grids of the remove direction from which [`query`] probes the add direction: a
/// smaller PLD is cheap to compose on the grid h anyway (its composed window is at most steps
/// times as long), and where the single-step PLD is that small the two directions are close
/// (σ large against q, ε small), so the probe rarely settles: it cost 0.1–0.2 ms more there.
const PROBE_MIN_GRID: i64 = 1 << 12;

/// Whether the remove direction's single-step grid at h has [`PROBE_MIN_GRID`] points or more
/// (or does not fit its cap at h: the accountant coarsens it), for q < 1.
fn worth_a_probe(q: f64, sigma: f64, h: f64) -> bool {
    if q >= 1.0 {
        // no subsampling: the two directions are mirror images, the probe never settles
        return false;
    }
    let (lmin, lmax) = Pair::Sg(sigma, Neighbour::Remove).range(q, sigma);
    grid_span(lmin, lmax, h, MAX_GRID).is_none_or(|(a, b)| b - a + 1 >= PROBE_MIN_GRID)
}

/// The bracket of the query `f` (ε at a δ, or δ at an ε) under `acc`: that of
/// [`bracket_of`] over the [`composed_pairs`] of `acc`, with one shortcut for add-or-remove-one
/// neighbours, whose bracket is the componentwise maximum of the two directions'. The remove
/// direction is composed on the grid h and, beside it, the add direction on the grid
/// [`ADD_PROBE`]·h (a coarser grid is a valid, looser bound: its upper end is ≥ the add
/// direction's exact value). When that upper end is below the remove direction's certified
/// lower end, the add direction's exact value is below every end of the remove direction's
/// bracket, so the remove direction's bracket is the answer (the add direction on the grid h,
/// whose ends bound the same exact value, would not have raised it); else the add direction is
/// composed on the grid h as well and the maximum taken as before. The answer is a certified
/// bracket either way; where the shortcut is taken it is the bracket of the two directions on
/// the grid h unless the fine add direction's upper end would have exceeded the remove
/// direction's (then it is tighter), which the probe set does not meet.
fn query(
    q: f64,
    sigma: f64,
    steps: f64,
    h: f64,
    acc: Accounting,
    need: Need,
    f: impl Fn(&Composition) -> Bracket,
) -> Result<Bracket> {
    check_query(q, sigma, steps, h, acc)?;
    let hc = (ADD_PROBE * h).min(H_MAX);
    if acc.relation != Relation::AddRemove || q == 0.0 || hc <= h || !worth_a_probe(q, sigma, h) {
        let comps = composed_pairs(q, sigma, steps, h, acc, need)?;
        return Ok(bracket_of(acc, &comps, f));
    }
    let tasks = vec![(Neighbour::Remove, h), (Neighbour::Add, hc)];
    let mut comps: Vec<Composition> = crate::driver::each(tasks, |(dir, hh)| {
        dpsgd_direction(q, sigma, steps, Pair::Sg(sigma, dir), hh)
    })
    .into_iter()
    .collect::<Result<_>>()?;
    let removed = f(&comps[0]);
    if f(&comps[1]).2 < removed.0 {
        return Ok(removed);
    }
    comps[1] = dpsgd_direction(q, sigma, steps, Pair::Sg(sigma, Neighbour::Add), h)?;
    Ok(worse_direction(&comps, &f))
}

/// The componentwise maximum of `f` over the directions (both brackets are certified, so the
/// larger ends bound the add-or-remove-one relation); (0, 0, 0) when there is none (q = 0).
fn worse_direction(comps: &[Composition], f: &impl Fn(&Composition) -> Bracket) -> Bracket {
    let mut r: Bracket = (0.0, 0.0, 0.0);
    for c in comps {
        let (l, e, u) = f(c);
        r = (r.0.max(l), r.1.max(e), r.2.max(u));
    }
    r
}

/// The bracket of a query `f` over the compositions of [`composed_pairs`] under `acc`: the worse
/// direction, except for sampling without replacement, where the estimate and upper end are the
/// symmetrised pair's (the estimate at least the ordered pairs', at most the upper end) and the
/// lower end is the ordered pairs' (attained by datasets; the symmetrised
/// pair's lower end bounds only that pair). Only the upper end when the pairs were not composed.
fn bracket_of(
    acc: Accounting,
    comps: &[Composition],
    f: impl Fn(&Composition) -> Bracket,
) -> Bracket {
    if acc.sampling != Sampling::WithoutReplacement {
        return worse_direction(comps, &f);
    }
    match comps.split_first() {
        None => (0.0, 0.0, 0.0),
        Some((sym, [])) => {
            let u = f(sym).2;
            (u, u, u)
        }
        Some((sym, orders)) => {
            let (l, e, _) = worse_direction(orders, &f);
            let (_, es, us) = f(sym);
            // l ≤ the ordered pairs' value ≤ the symmetrised pair's ≤ us: the bracket is
            // ordered without raising us (the upper-only route gives us alone, the same value)
            (l, es.max(e).min(us), us)
        }
    }
}

/// ε(δ) of DP-SGD (add-or-remove-one neighbours, worse direction) as (lower, estimate, upper).
pub fn dpsgd_epsilon(q: f64, sigma: f64, steps: f64, delta: f64, h: f64) -> Result<Bracket> {
    dpsgd_epsilon_with(q, sigma, steps, delta, h, Accounting::ADD_REMOVE_POISSON)
}

/// ε(δ) of DP-SGD under `acc` (the worse direction where there are two).
pub fn dpsgd_epsilon_with(
    q: f64,
    sigma: f64,
    steps: f64,
    delta: f64,
    h: f64,
    acc: Accounting,
) -> Result<Bracket> {
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    query(q, sigma, steps, h, acc, Need::Bracket, |c| c.epsilon(delta))
}

/// δ(ε) of DP-SGD as (lower, estimate, upper); ε ∈ [0, +∞].
pub fn dpsgd_delta(q: f64, sigma: f64, steps: f64, eps: f64, h: f64) -> Result<Bracket> {
    dpsgd_delta_with(q, sigma, steps, eps, h, Accounting::ADD_REMOVE_POISSON)
}

/// δ(ε) of DP-SGD under `acc` as (lower, estimate, upper); ε ∈ [0, +∞].
pub fn dpsgd_delta_with(
    q: f64,
    sigma: f64,
    steps: f64,
    eps: f64,
    h: f64,
    acc: Accounting,
) -> Result<Bracket> {
    if eps.is_nan() || eps < 0.0 {
        return Err(PabiError::domain("eps", ">= 0", eps));
    }
    query(q, sigma, steps, h, acc, Need::Bracket, |c| c.delta(eps))
}

/// The certified upper ends of δ(ε) of DP-SGD at every ε of `eps` (each ≥ 0; the first bad
/// one is a DomainError at its index, before any work), from one pair of compositions: the
/// profile of a run costs one composition, not one per ε.
pub fn dpsgd_delta_upper_all(
    q: f64,
    sigma: f64,
    steps: f64,
    eps: &[f64],
    h: f64,
    out: &mut [f64],
) -> Result<()> {
    dpsgd_delta_upper_all_with(q, sigma, steps, eps, h, out, Accounting::ADD_REMOVE_POISSON)
}

/// [`dpsgd_delta_upper_all`] under `acc`.
pub fn dpsgd_delta_upper_all_with(
    q: f64,
    sigma: f64,
    steps: f64,
    eps: &[f64],
    h: f64,
    out: &mut [f64],
    acc: Accounting,
) -> Result<()> {
    if let Some(i) = crate::batch::first_bad(eps, |e| e >= 0.0) {
        return Err(PabiError::domain("eps", ">= 0", eps[i]).at(i));
    }
    check_query(q, sigma, steps, h, acc)?;
    let comps = composed_pairs(q, sigma, steps, h, acc, Need::Upper)?;
    comps.iter().for_each(|c| c.ready_for(eps.len()));
    for (o, &e) in out.iter_mut().zip(eps) {
        *o = bracket_of(acc, &comps, |c| c.delta(e)).2;
    }
    Ok(())
}

#[path = "dpsgd_calibrate.rs"]
mod calibrate;
#[cfg(test)]
use calibrate::illinois;
pub use calibrate::{
    dpsgd_calibrate_sigma, dpsgd_calibrate_sigma_many_with, dpsgd_calibrate_sigma_with,
    CALIBRATE_EPS_MAX, CALIBRATE_RTOL_MIN,
};

#[cfg(test)]
#[path = "dpsgd_tests.rs"]
mod tests;
