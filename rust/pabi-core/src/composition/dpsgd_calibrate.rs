//! The σ calibration of the DP-SGD accountant ([`dpsgd_calibrate_sigma`]): the smallest noise
//! multiplier whose certified upper ε meets a target (ε, δ), searched on a coarse grid and then
//! on the query's grid by a safeguarded regula falsi ([`illinois`]) with every step count fixed
//! up front. Part of `dpsgd.rs` (its queries, [`query`], and domains).

use super::*;

/// Largest ε target of [`dpsgd_calibrate_sigma`] (e^100 ≈ 2.7e43: no meaningful guarantee).
pub const CALIBRATE_EPS_MAX: f64 = 100.0;
/// Smallest relative tolerance of [`dpsgd_calibrate_sigma`].
pub const CALIBRATE_RTOL_MIN: f64 = 1e-12;
/// The σ range searched by [`dpsgd_calibrate_sigma`].
const SIGMA_SEARCH_MIN: f64 = 1e-3;
const SIGMA_SEARCH_MAX: f64 = 1e6;

/// Illinois regula falsi on a decreasing g with g(a) > 0 ≥ g(b): returns a bracket (a, b),
/// g(b) ≤ 0 < g(a), and b/a ≤ 1 + rtol. Every third step is a bisection in ln σ unless the
/// log-width has halved since the start of that block of three, so the number of steps is at
/// most 3·⌈log2(ln(b/a)/ln(1 + rtol))⌉ + 3, fixed up front (≤ 129 for b/a ≤ 2 and
/// rtol ≥ 2.5e-13). An error of g is returned as is.
pub(super) fn illinois(
    g: &dyn Fn(f64) -> Result<f64>,
    mut a: f64,
    mut b: f64,
    mut ga: f64,
    mut gb: f64,
    rtol: f64,
) -> Result<(f64, f64)> {
    let target = rtol.ln_1p();
    let w0 = (b / a).ln();
    let halvings = if w0 > target {
        (w0 / target).log2().ceil().min(200.0)
    } else {
        0.0
    };
    let max_iter = 3 * (halvings as usize) + 3;
    let mut side = 0i32;
    let mut block_w = w0;
    for it in 0..max_iter {
        if b / a <= 1.0 + rtol {
            break;
        }
        let w = (b / a).ln();
        if it % 3 == 0 {
            block_w = w;
        }
        let bisect = it % 3 == 2 && w > 0.5 * block_w;
        let mut m = if !bisect && ga.is_finite() && gb.is_finite() && ga != gb {
            (a * gb - b * ga) / (gb - ga)
        } else {
            (a * b).sqrt()
        };
        // stay strictly inside, at least a quarter-tolerance from the ends
        let lo_m = a * (1.0 + 0.25 * rtol);
        let hi_m = b / (1.0 + 0.25 * rtol);
        if !(m.is_finite()) {
            m = (a * b).sqrt();
        }
        m = m.clamp(lo_m.min(hi_m), hi_m.max(lo_m));
        let gm = g(m)?;
        if gm <= 0.0 {
            b = m;
            gb = gm;
            if side == 1 {
                ga /= 2.0;
            }
            side = 1;
        } else {
            a = m;
            ga = gm;
            if side == -1 {
                gb /= 2.0;
            }
            side = -1;
        }
    }
    Ok((a, b))
}

/// The calibration's answer when the target holds at the search range's floor σ = 1e-3.
fn floor_met(eps: f64) -> PabiError {
    PabiError::domain(
        "eps",
        "small enough that the calibrated sigma is at least 1e-3 (the search range's floor; for \
         this delta, q and steps the target is met for every sigma >= 1e-3)",
        eps,
    )
}

/// Smallest σ (to relative tolerance `rtol`) whose certified upper ε is ≤ `eps`.
/// Brackets on a coarse grid (h = 10·`h`, which only loosens the upper bound), then refines on
/// the fine grid; the returned σ is certified on the fine grid.
///
/// Domains, checked before any work: eps ∈ (0, 100] (beyond, e^ε > 2.7e43 certifies nothing,
/// and the σ such a target calls for can be so small that its PLD exceeds the grid caps),
/// δ ∈ (0, 1), q ∈ (0, 1], steps an integer in [1, 1e12], h ∈ [1e-6, 0.1],
/// rtol ∈ [1e-12, 0.1). The σ search is confined to [1e-3, 1e6]; every loop has a bound fixed
/// up front (bracketing: ≤ 27 halvings or 22 doublings; Illinois: ≤ 129 steps per phase, see
/// `illinois`; the fine phase: ≤ 80 steps each way), a few hundred evaluations at most
/// (typically 15–30). An error while evaluating
/// ε(σ) is returned, never read as a value. A σ whose grid or window exceeds the caps ends the
/// search with a `DomainError` on `eps`: reached going down, the target holds for every σ
/// tried (it is looser than any certifiable σ); elsewhere, the target is too loose to
/// certify within the caps.
pub fn dpsgd_calibrate_sigma(
    eps: f64,
    delta: f64,
    q: f64,
    steps: f64,
    h: f64,
    rtol: f64,
) -> Result<f64> {
    dpsgd_calibrate_sigma_with(
        eps,
        delta,
        q,
        steps,
        h,
        rtol,
        Accounting::ADD_REMOVE_POISSON,
    )
}

/// [`dpsgd_calibrate_sigma`] under `acc` (same domains, search and guarantees).
pub fn dpsgd_calibrate_sigma_with(
    eps: f64,
    delta: f64,
    q: f64,
    steps: f64,
    h: f64,
    rtol: f64,
    acc: Accounting,
) -> Result<f64> {
    if !(eps > 0.0 && eps <= CALIBRATE_EPS_MAX) {
        return Err(PabiError::domain("eps", "in (0, 100]", eps));
    }
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    check_dpsgd(q, 1.0, steps)?;
    check_dpsgd_h(h)?;
    if !(CALIBRATE_RTOL_MIN..0.1).contains(&rtol) {
        return Err(PabiError::domain("rtol", "in [1e-12, 0.1)", rtol));
    }
    acc.check()?;
    if q == 0.0 {
        // no privacy loss at q = 0: every sigma meets the target, there is none to calibrate
        return Err(PabiError::domain(
            SAMPLE_RATE,
            "in (0, 1] (at sample_rate = 0 there is no privacy loss and every noise_multiplier \
             meets the target)",
            q,
        ));
    }
    // g(σ) = upper ε(σ) − eps on the grid hh; every error is returned. A `sigma` error at a
    // valid σ (the search stays in [1e-3/2, 2e6]) is a grid/window cap: on the way down it
    // means the target holds for every σ tried and smaller ones cannot be certified
    // (`met_down`), elsewhere the target is too loose to certify within the caps (`relabel`).
    let raw = |s: f64, hh: f64| -> Result<f64> {
        // only the upper end is searched on (delta was checked above)
        Ok(query(q, s, steps, hh, acc, Need::Upper, |c| c.epsilon(delta))?.2 - eps)
    };
    let cap_of = |e: &PabiError| -> Option<String> {
        match e {
            PabiError::Domain {
                param: NOISE_MULTIPLIER,
                allowed,
                ..
            } => Some(allowed.to_string()),
            _ => None,
        }
    };
    let relabel = |e: PabiError, s: f64| -> PabiError {
        match cap_of(&e) {
            Some(a) => PabiError::domain(
                "eps",
                format!(
                    "a target the accountant can certify within its size caps (the sigma \
                     search reached sigma = {s:.4e}, and sigma must be {a})"
                ),
                eps,
            ),
            None => e,
        }
    };
    let met_down = |e: PabiError, hi: f64, lo: f64| -> PabiError {
        match cap_of(&e) {
            // the target is too loose for what the accountant can certify: name eps (the
            // message names the coupled q, delta and steps)
            Some(a) => PabiError::domain(
                "eps",
                format!(
                    "small enough that the calibrated sigma can be certified: for this delta, \
                     q and steps the target is met for every sigma >= {hi:.4e} tried, and a \
                     smaller sigma (here {lo:.4e}) cannot be certified within the accountant's \
                     size caps (sigma must be {a})"
                ),
                eps,
            ),
            None => e,
        }
    };
    // coarse phase (h = 10·h, cheap): geometric bracketing, then Illinois to rtol/4
    let hc = (10.0 * h).min(H_MAX);
    let gc = |s: f64| -> Result<f64> { raw(s, hc).map_err(|e| relabel(e, s)) };
    let guess = (q * steps.sqrt() / eps.sqrt()).clamp(0.3, 1e5);
    let (mut lo, mut hi);
    let (mut glo, mut ghi);
    let g0 = gc(guess)?;
    if g0 <= 0.0 {
        hi = guess;
        ghi = g0;
        lo = guess / 2.0;
        glo = raw(lo, hc).map_err(|e| met_down(e, hi, lo))?;
        // lo ≥ 1e-3 after at most log2(1e5/1e-3) < 27 halvings
        while glo <= 0.0 {
            hi = lo;
            ghi = glo;
            lo /= 2.0;
            if lo < SIGMA_SEARCH_MIN {
                return Err(floor_met(eps));
            }
            glo = raw(lo, hc).map_err(|e| met_down(e, hi, lo))?;
        }
    } else {
        lo = guess;
        glo = g0;
        hi = guess * 2.0;
        ghi = gc(hi)?;
        // hi ≤ 1e6 after at most log2(1e6/0.3) < 22 doublings
        while ghi > 0.0 {
            lo = hi;
            glo = ghi;
            hi *= 2.0;
            if hi > SIGMA_SEARCH_MAX {
                return Err(PabiError::domain(
                    "delta",
                    "large enough that the target (eps, delta) is met with sigma <= 1e6 \
                     (the calibration's search range) for this q and steps",
                    delta,
                ));
            }
            ghi = gc(hi)?;
        }
    }
    let (_, hi_c) = illinois(&gc, lo, hi, glo, ghi, 0.25 * rtol)?;
    // fine phase: the fine grid is a little tighter, so the answer is at or just below hi_c;
    // each way, the steps (1 + rtol)^(2^k) multiply σ by ≈ e^{rtol·2^k} until they are capped
    // at 2 (≤ 40 steps, a factor ≤ e^1.1 in all at rtol = 1e-12), then σ leaves [1e-3, 1e6]
    // after ≤ 30 more: 80 steps bound both loops
    let g = |s: f64| -> Result<f64> { raw(s, h).map_err(|e| relabel(e, s)) };
    let mut b = hi_c;
    let mut gb = g(b)?;
    let mut step = 1.0 + rtol;
    for _ in 0..80 {
        if gb <= 0.0 {
            break;
        }
        b *= step;
        step = (step * step).min(2.0);
        if b > SIGMA_SEARCH_MAX {
            break;
        }
        gb = g(b)?;
    }
    if gb > 0.0 {
        return Err(PabiError::unreachable(
            "target not reached for sigma <= 1e6 on the fine grid",
        ));
    }
    let mut a = b / (1.0 + rtol);
    let mut ga = g(a)?;
    if ga > 0.0 {
        return Ok(b);
    }
    step = 1.0 + 2.0 * rtol;
    for _ in 0..80 {
        if ga > 0.0 {
            break;
        }
        b = a;
        gb = ga;
        a /= step;
        step = (step * step).min(2.0);
        if a < SIGMA_SEARCH_MIN {
            return Err(floor_met(eps));
        }
        ga = raw(a, h).map_err(|e| met_down(e, b, a))?;
    }
    if ga <= 0.0 {
        return Err(floor_met(eps));
    }
    let (_, b) = illinois(&g, a, b, ga, gb, rtol)?;
    Ok(b)
}

/// [`dpsgd_calibrate_sigma_with`] of every target (`eps[i]`, `delta[i]`), the targets in
/// parallel (one calibration a task on the shared pool): element i is exactly the scalar
/// calibration's result for target i, its value or its error (each target runs the same
/// deterministic search; the thread count changes nothing). The outer error: `eps` and `delta`
/// of different lengths (before any work), or a stop requested while running
/// ([`crate::interrupt`], checked before each target).
#[allow(clippy::too_many_arguments)]
pub fn dpsgd_calibrate_sigma_many_with(
    eps: &[f64],
    delta: &[f64],
    q: f64,
    steps: f64,
    h: f64,
    rtol: f64,
    acc: Accounting,
) -> Result<Vec<Result<f64>>> {
    if delta.len() != eps.len() {
        return Err(PabiError::domain(
            "delta",
            format!("as long as eps ({} targets)", eps.len()),
            delta.len() as f64,
        ));
    }
    let targets: Vec<(f64, f64)> = eps.iter().copied().zip(delta.iter().copied()).collect();
    crate::driver::unless_interrupted(crate::driver::each(targets, |(e, d)| {
        crate::interrupt::check()?;
        dpsgd_calibrate_sigma_with(e, d, q, steps, h, rtol, acc)
    }))
}
