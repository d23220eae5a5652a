//! ε(δ) of online PNSGD (Sordello–Bu–Dong §6, eq. (11), Thms 6–7): the inversion of the
//! certified δ_n(i) of a per-step noise array ([`online_log_delta_at`]) and of the online
//! schedules' upper bounds ([`OnlineSchedule::quantity`]).
//!
//! The returned ε is the smallest double with δ_up(ε) ≤ δ, by the schedules' shared exact
//! search ([`least_epsilon`]: exponential steps over the bit patterns from ε = 1, then
//! bisection; ≤ ~2·64 evaluations of δ). Certified by construction: δ_up at the returned ε is
//! ≤ the target. The exact δ_n(i) is non-increasing in ε (each factor θ_{e^ε}(r) or the Laplace
//! factor falls with ε, for A_i and for 1 − B_t alike), so the search returns the exact
//! inverse of the computed bound, within its rounding (≈ 1e-12 relative in δ).
//!
//! Domain. The Laplace schedule's bound (Thm 6) is defined only where every B_t > 0 from the
//! record i on: i^α + C1·C2 > C1·e^{ε/2}, a condition that fails for every ε above
//! ε_max = 2·ln((i^α + C1·C2)/C1). The search is confined to the ε where the bound is defined
//! (the first undefined double is found by the same search on the domain test, which is
//! monotone in ε). A target δ that no ε of the domain meets (possible when κ = 2ηL/(M·D) > 1:
//! A_i stays positive up to ε_max) gives ε = +∞: the theorem certifies no finite ε there. An
//! index outside the domain for every ε (i^α + C1·C2 ≤ C1) is the forward bound's error naming
//! `index`. The Gaussian schedule and the per-step noise arrays are defined for every ε and
//! their δ tends to 0, so every δ ∈ (0, 1) has a finite ε (0 when δ(0) ≤ δ).

use super::suffix::online_log_delta_at;
use super::{OnlineQuantity, OnlineSchedule};
use crate::error::{PabiError, Result};
use crate::num::bisect::first_ok;
use crate::num::round::prob_up;
use crate::schedules::inverse::least_epsilon;
use crate::schedules::{Noise, Problem};

fn check_delta(delta: f64) -> Result<()> {
    if !(delta > 0.0 && delta < 1.0) {
        return Err(PabiError::domain("delta", "in (0, 1)", delta));
    }
    Ok(())
}

/// ε(δ) at record `index` of a run with the per-step noise array `noise` (σ_t or v_t): the
/// smallest double ε with δ_n(index) ≤ `delta` (δ_n from [`online_log_delta_at`], rounded up).
/// `p` carries the setup ([`Problem::for_search`]); its ε is replaced at each evaluation.
pub fn online_epsilon_at(
    kind: Noise,
    p: &Problem,
    noise: &[f64],
    index: f64,
    delta: f64,
) -> Result<f64> {
    check_delta(delta)?;
    let eval = |eps: f64| -> Result<f64> {
        let q = Problem { eps, ..*p };
        Ok(prob_up(online_log_delta_at(kind, &q, noise, index)?))
    };
    eval(0.0)?; // validates the noise and the index before the search
    least_epsilon(&eval, delta, f64::INFINITY)
}

/// ε(δ) of an online schedule (`kind`, constants C1, C2, decay α) for one of its upper bounds
/// `q` (δ_n(i), the limit δ_∞(i) or its certified bound, or the corrected eq. (13)/(15)) at
/// record `i` after `n` steps: the smallest double ε of the bound's domain with q(ε) ≤ `delta`,
/// +∞ when none (see the module doc). `p` carries the setup ([`Problem::for_search`]); its ε
/// is replaced.
#[allow(clippy::too_many_arguments)]
pub fn online_schedule_epsilon(
    kind: Noise,
    p: &Problem,
    c1: f64,
    c2: f64,
    decay: f64,
    q: OnlineQuantity,
    n: f64,
    i: f64,
    delta: f64,
) -> Result<f64> {
    check_delta(delta)?;
    if matches!(
        q,
        OnlineQuantity::StarLower | OnlineQuantity::StarUpper { as_published: true }
    ) {
        return Err(PabiError::domain(
            "quantity",
            "an upper bound of delta ('delta', 'limit', 'limit_bound' or the corrected 'star_upper')",
            f64::NAN,
        ));
    }
    let at = |eps: f64| OnlineSchedule::new(kind, Problem { eps, ..*p }, c1, c2, decay);
    // the first ε where the bound is undefined (Laplace: i^α + C1·C2 ≤ C1·e^{ε/2})
    let undefined = |eps: f64| at(eps).and_then(|s| s.check_index("index", i)).is_err();
    at(0.0)?.check_index("index", i)?; // an index outside the domain for every ε
    let undefined_from = if kind == Noise::Laplace {
        first_ok(&undefined, 1.0)
    } else {
        f64::INFINITY
    };
    let eval = |eps: f64| at(eps)?.quantity(q, n, i, false);
    eval(0.0)?; // validates n against the index before the search
    least_epsilon(&eval, delta, undefined_from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problem(max_grad_norm: f64) -> Problem {
        Problem::new(0.0, max_grad_norm, 0.01, 1.0, None, 0.0).unwrap()
    }

    fn delta_at(kind: Noise, p: &Problem, eps: f64, n: f64, i: f64) -> f64 {
        OnlineSchedule::new(kind, Problem { eps, ..*p }, 100.0, 100.0, 1.5)
            .unwrap()
            .quantity(OnlineQuantity::Delta, n, i, false)
            .unwrap()
    }

    #[test]
    fn schedule_inverse_is_the_smallest_double() {
        for kind in [Noise::Laplace, Noise::Gaussian] {
            let p = problem(10.0);
            let e = online_schedule_epsilon(
                kind,
                &p,
                100.0,
                100.0,
                1.5,
                OnlineQuantity::Delta,
                130.0,
                100.0,
                1e-5,
            )
            .unwrap();
            assert!(e > 0.0 && e.is_finite());
            assert!(delta_at(kind, &p, e, 130.0, 100.0) <= 1e-5);
            assert!(delta_at(kind, &p, e.next_down(), 130.0, 100.0) > 1e-5);
        }
    }

    /// κ_L = 2ηL/(M·D) = 20 > 1 and n = i: δ = A_i stays ≈ 1 up to the end of the Laplace
    /// domain ε_max = 2 ln((i^α + C1·C2)/C1) ≈ 9.4, so no ε of the domain meets δ: +∞.
    #[test]
    fn laplace_domain_gives_infinity() {
        let p = problem(1000.0);
        let e = online_schedule_epsilon(
            Noise::Laplace,
            &p,
            100.0,
            100.0,
            1.5,
            OnlineQuantity::Delta,
            100.0,
            100.0,
            0.5,
        );
        assert_eq!(e.unwrap(), f64::INFINITY);
        // the lower bound is no upper bound of δ: not invertible
        let r = online_schedule_epsilon(
            Noise::Laplace,
            &p,
            100.0,
            100.0,
            1.5,
            OnlineQuantity::StarLower,
            1.0,
            100.0,
            0.5,
        );
        assert!(matches!(
            r,
            Err(PabiError::Domain {
                param: "quantity",
                ..
            })
        ));
    }

    #[test]
    fn per_step_noise_inverse() {
        let p = Problem::new(0.0, 1.0, 0.1, 1.0, None, 0.0).unwrap();
        let noise = [2.0; 30];
        let e = online_epsilon_at(Noise::Gaussian, &p, &noise, 10.0, 1e-5).unwrap();
        let d = |eps: f64| {
            prob_up(
                online_log_delta_at(Noise::Gaussian, &Problem { eps, ..p }, &noise, 10.0).unwrap(),
            )
        };
        assert!(d(e) <= 1e-5 && d(e.next_down()) > 1e-5);
        assert!((e - 4.017301239908116).abs() < 1e-11);
        assert!(online_epsilon_at(Noise::Gaussian, &p, &noise, 31.0, 1e-5).is_err());
        assert!(online_epsilon_at(Noise::Gaussian, &p, &noise, 10.0, 1.0).is_err());
    }
}
