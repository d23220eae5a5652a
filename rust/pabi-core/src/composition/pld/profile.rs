//! From a privacy profile to a PLD: [`Pld::from_profile`] builds the PLD whose profile is the
//! lower convex hull (in e^ε) of sampled upper bounds δ(k·h) of a symmetric profile, reflected to
//! negative losses; it dominates every mechanism with that profile. Derivation:
//! `docs/derivations/composition.md`.

use super::bracket::{composed_inf, inf_up};
use super::compose::{check_window, compose_in, window};
use super::{check_h, Composition, Pld, MAX_PROFILE};
use crate::error::{PabiError, Result};

impl Pld {
    /// The PLD whose privacy profile (for ε ≥ 0) is the convex (in e^ε) hull of the points
    /// (k·h, `delta[k]`), k = 0..J, continued by the constant `delta[J]` (mass at +∞), for a
    /// **symmetric** profile (δ bounds both E_{e^ε}(P‖Q) and E_{e^ε}(Q‖P)). Since the true profile
    /// is convex in e^ε and below the given values, it is below the hull: the PLD dominates every
    /// mechanism with this profile.
    pub fn from_profile(h: f64, delta: &[f64]) -> Result<Pld> {
        check_h(h)?;
        let j = delta.len();
        if j < 2 {
            return Err(PabiError::domain(
                "profile",
                "a profile sampled at >= 2 points",
                j as f64,
            ));
        }
        // the PLD has 2J − 1 points (the profile is reflected): J ≤ 2^20
        if j > MAX_PROFILE {
            return Err(PabiError::domain(
                "profile",
                "a profile of at most 2^20 samples (its PLD has 2J - 1 grid points, capped at \
                 2^21; sample with a coarser grid_step or a smaller eps_max)",
                j as f64,
            ));
        }
        for (i, &d) in delta.iter().enumerate() {
            if !(0.0..=1.0).contains(&d) {
                return Err(PabiError::domain("profile", "in [0, 1] (a privacy profile)", d).at(i));
            }
            if i > 0 && d > delta[i - 1] {
                return Err(PabiError::domain(
                    "profile",
                    "non-increasing in eps (a privacy profile)",
                    d,
                )
                .at(i));
            }
        }
        // lower convex hull of (γ_k, δ_k), γ_k = e^{kh}; work with γ_k − 1 = expm1(kh)
        let g: Vec<f64> = (0..j).map(|k| (k as f64 * h).exp_m1()).collect();
        let mut hull: Vec<usize> = Vec::with_capacity(j);
        for k in 0..j {
            while hull.len() >= 2 {
                let (i1, i2) = (hull[hull.len() - 2], hull[hull.len() - 1]);
                // remove i2 if it lies on or above the segment i1–k
                let lhs = (delta[i2] - delta[i1]) * (g[k] - g[i1]);
                let rhs = (delta[k] - delta[i1]) * (g[i2] - g[i1]);
                if lhs >= rhs {
                    hull.pop();
                } else {
                    break;
                }
            }
            hull.push(k);
        }
        // slopes between consecutive hull points; masses ω_k e^{−kh} = slope jump at γ_k
        let mut w_pos = vec![0.0; j]; // ω_k for k ≥ 1
        let mut slope_prev = f64::NAN;
        let mut s0 = 0.0;
        for w in hull.windows(2) {
            let (i1, i2) = (w[0], w[1]);
            let sl = (delta[i2] - delta[i1]) / (g[i2] - g[i1]);
            if i1 == 0 {
                s0 = sl;
            } else {
                w_pos[i1] = ((sl - slope_prev) * (i1 as f64 * h).exp()).max(0.0);
            }
            slope_prev = sl;
        }
        let last = *hull.last().unwrap_or(&0);
        if last > 0 {
            w_pos[last] = ((0.0 - slope_prev) * (last as f64 * h).exp()).max(0.0);
        }
        let inf = delta[j - 1];
        // mass at 0 from the symmetric reflection δ(γ) = 1 − γ + γ δ(1/γ) for γ < 1
        let w0 = 2.0 * s0 + 1.0 - delta[0];
        if w0 < -1e-12 {
            return Err(PabiError::domain(
                "profile",
                "a valid symmetric privacy profile (slope at eps = 0 too steep for delta(0))",
                delta[0],
            ));
        }
        let mut pmf = vec![0.0; 2 * j - 1];
        let mid = j - 1;
        pmf[mid] = w0.max(0.0);
        let mut total = inf + pmf[mid];
        for k in 1..j {
            let wk = w_pos[k];
            pmf[mid + k] = wk;
            pmf[mid - k] = wk * (-(k as f64) * h).exp();
            total += pmf[mid + k] + pmf[mid - k];
        }
        if total > 1.0 + 1e-9 {
            return Err(PabiError::domain(
                "profile",
                "a valid symmetric privacy profile (implied total mass > 1)",
                total,
            ));
        }
        Ok(Pld {
            h,
            lo: -(mid as i64),
            pmf,
            inf,
            bad: inf,
            inf_exact: 0.0,
        }
        .close_mass())
    }
}

/// For every profile k (`values[offsets[k]..offsets[k + 1]]`: δ at ε = 0, h, 2h, ...), the
/// certified upper ε at `delta[k]` of its PLD ([`Pld::from_profile`], grid `h`) composed
/// `count` times ([`super::compose`], `tail_mass`), with the mass that upper ε takes from δ
/// ([`upper_epsilon`]): element k is exactly what those calls and the composition's
/// `epsilon` give one by one (its value or its error), the profiles in parallel on the shared
/// pool ([`crate::driver::each`]); an element whose composed +∞ mass alone makes that ε +∞
/// skips the FFT. The outer error, before any work: `offsets` not n + 1 non-decreasing
/// positions in `values` (n = `delta.len()`), a `delta` outside (0, 1) (with its index); or a
/// stop requested while running.
pub fn profiles_composed_epsilon(
    h: f64,
    values: &[f64],
    offsets: &[usize],
    count: u64,
    tail_mass: f64,
    delta: &[f64],
) -> Result<Vec<Result<(f64, f64)>>> {
    let n = delta.len();
    if offsets.len() != n + 1
        || offsets.windows(2).any(|w| w[0] > w[1])
        || offsets[n] > values.len()
    {
        return Err(PabiError::domain(
            "offsets",
            "n + 1 non-decreasing positions in values (n = len(delta))",
            offsets.len() as f64,
        ));
    }
    Composition::check_delta(delta)?;
    let profiles: Vec<(&[f64], f64)> = (0..n)
        .map(|k| (&values[offsets[k]..offsets[k + 1]], delta[k]))
        .collect();
    crate::driver::unless_interrupted(crate::driver::each(profiles, |(v, d)| {
        crate::interrupt::check()?;
        upper_epsilon(&[(&Pld::from_profile(h, v)?, count)], tail_mass, d)
    }))
}

/// The certified upper ε at `delta` of `compose(parts, tail)` ([`Composition::epsilon`]'s upper
/// end) and the mass that upper end takes from δ ([`Composition::upper_epsilon_and_mass`]; it is
/// +∞ where the mass reaches δ), or the error: where the composed +∞ mass alone makes the ε +∞
/// ([`Composition::upper_epsilon_infinite`]) once the window is checked, +∞ without the FFT,
/// with that +∞ mass as the upper end counts it ([`inf_up`]; the same ε and the same errors:
/// those of [`window`] and of [`compose_in`]'s checks come first). The mass is what a search for
/// the least noise with a finite ε interpolates across the edge where the ε jumps to +∞.
pub(super) fn upper_epsilon(parts: &[(&Pld, u64)], tail: f64, delta: f64) -> Result<(f64, f64)> {
    let win = window(parts, tail)?;
    check_window(parts, &win)?;
    let inf = composed_inf(parts);
    if Composition::upper_epsilon_infinite(inf, delta) {
        return Ok((f64::INFINITY, inf_up(inf)));
    }
    Ok(compose_in(parts, win)?.upper_epsilon_and_mass(delta))
}
