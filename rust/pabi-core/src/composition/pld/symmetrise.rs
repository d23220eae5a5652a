//! The symmetrised PLD of a pair: one PLD whose profile is max(E_γ(P‖Q), E_γ(Q‖P)) for every
//! γ ≥ 0 (the symmetrisation of a dominating pair in the sense of Zhu–Dong–Wang 2022, Def. 7; in trade-off terms
//! Dong–Roth–Su's min{f, f⁻¹}**). Derivation: `docs/derivations/neighbouring.md#symmetrised-pair`.
//!
//! # Construction
//! Let ω be the PLD of (P, Q) (the law of L = ln dP/dQ under P) with E_γ(P‖Q) ≥ E_γ(Q‖P) for
//! γ ≥ 1. The symmetrised PLD ω̃ is ω on L > 0, the PLD of the reversed pair (Q, P) on L < 0
//! (the law of ln dQ/dP under Q, which is ω mirrored with mass e^{−ℓ}ω(ℓ) at −ℓ), and the rest
//! r = 1 − P(L > 0) − Q(L > 0) at 0; r ≥ 0 makes ω̃ the PLD of a (symmetric) pair. Only positive
//! losses count for γ ≥ 1, so its profile is E_γ(P‖Q) there; for γ < 1 the identity
//! E_γ(B‖A) = 1 − γ + γE_{1/γ}(A‖B) of the symmetric ω̃ gives 1 − γ + γE_{1/γ}(P‖Q) = E_γ(Q‖P).
//!
//! # Discretised (why the result is an upper bound)
//! The grid has a point at 0, so every connect-the-dots cell of the two discretised PLDs
//! (`discretise.rs`) lies on one side of 0: the positive cells of the discretised ω and the
//! negative cells of the discretised reversed PLD are the discretisations (mean-preserving
//! spreads of e^{−L}, margin moved up, tails moved up) of the two halves of ω̃, with the masses
//! that reach the point 0 from either side. The mass at 0 is set to 1 minus everything else
//! (the +∞ atom included), plus 4ε: the exact PLD so built differs from the exact
//! discretisation of ω̃ only by the margins' upward moves, and any excess of the computed masses
//! over 1 is mass of that 0 point moved up (the composed δ is non-decreasing in every mass and
//! in every loss). Where the two halves already reach 1 (r ≈ 0, e.g. q = 1) the mass at 0 is 0.
//!
//! The lower end of a composition of this PLD is not used by the accountant (it takes its lower
//! end from the two ordered pairs, which real neighbouring datasets attain).

use super::Pld;
use crate::num::round::EPS4;

impl Pld {
    /// The symmetrised PLD from `pos`, the discretised PLD of (P, Q), and `neg`, that of (Q, P),
    /// on the same grid step (see the module doc): `pos` above 0, `neg` below, the rest at 0.
    pub(crate) fn symmetrised(pos: &Pld, neg: &Pld) -> Pld {
        debug_assert_eq!(pos.h.to_bits(), neg.h.to_bits());
        let mass = |p: &Pld, j: i64| -> f64 {
            let i = j - p.lo;
            if i >= 0 && (i as usize) < p.pmf.len() {
                p.pmf[i as usize]
            } else {
                0.0
            }
        };
        let top = (pos.lo + pos.pmf.len() as i64 - 1).max(0);
        let bottom = neg.lo.min(0);
        // ≤ len(pos) + len(neg) + 1 points
        let pmf: Vec<f64> = (bottom..=top)
            .map(|j| match j {
                0 => 0.0,
                j if j > 0 => mass(pos, j),
                j => mass(neg, j),
            })
            .collect();
        let mut out = Pld {
            h: pos.h,
            lo: bottom,
            pmf,
            inf: pos.inf,
            bad: pos.bad + neg.bad,
            inf_exact: pos.inf_exact,
        };
        // the mass at 0 is what the halves leave, plus the margin of that difference (≤ ~2ε)
        // also where it computes to ≤ 0: a true remainder in (0, 2ε] must not go missing
        let rest = out.missing_mass();
        out.pmf[(-bottom) as usize] = (rest + EPS4).max(0.0);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::Neighbour;
    use super::*;

    /// δ(ε) of one step of a PLD: Σ ω(ℓ)(1 − e^{ε−ℓ})₊ + the +∞ atom.
    fn delta(p: &Pld, eps: f64) -> f64 {
        let s: f64 = (0..p.pmf.len())
            .map(|i| p.pmf[i] * (-(eps - p.loss(i)).exp_m1()).max(0.0))
            .sum();
        s + p.inf
    }

    #[test]
    fn symmetrised_profile_is_the_worse_order_at_every_eps() {
        for &(q, sigma, h) in &[
            (0.01, 0.5, 1e-3),
            (0.2, 2.0, 1e-3),
            (1.0, 1.0, 1e-2),
            (0.5, 5.0, 1e-4),
        ] {
            let rem = Pld::subsampled_gaussian(q, sigma, Neighbour::Remove, h).unwrap();
            let add = Pld::subsampled_gaussian(q, sigma, Neighbour::Add, h).unwrap();
            let sym = Pld::symmetrised(&rem, &add);
            assert!(sym.pmf.iter().all(|&w| w >= 0.0 && w.is_finite()));
            let total: f64 = sym.pmf.iter().sum::<f64>() + sym.inf;
            assert!((total - 1.0).abs() < 1e-12, "{total}");
            // the grid is symmetric about 0 and the mirror condition ω(−ℓ) ≈ e^{−ℓ}ω(ℓ) holds
            let c = (-sym.lo) as usize;
            for j in 1..c.min(sym.pmf.len() - c) {
                let (p, m) = (sym.pmf[c + j], sym.pmf[c - j]);
                let l = j as f64 * h;
                assert!(
                    (m - (-l).exp() * p).abs() <= 1e-6 * p + 1e-13,
                    "{j}: {m} {p}"
                );
            }
            for eps in [-2.0, -0.5, -0.1, 0.0, 0.1, 0.5, 2.0] {
                let (ds, dr, da) = (delta(&sym, eps), delta(&rem, eps), delta(&add, eps));
                if eps >= 0.0 {
                    // only positive losses count: the remove pair's value, which is the larger
                    assert!((ds - dr).abs() <= 1e-12, "{eps}: {ds} {dr}");
                    assert!(dr >= da - 1e-12);
                } else {
                    // the reversed pair's value (E_γ(Q‖P) for γ < 1), to the discretisation error
                    assert!((ds - da).abs() <= 4.0 * h * h + 1e-12, "{eps}: {ds} {da}");
                    assert!(ds >= dr - 4.0 * h * h);
                }
            }
        }
    }

    #[test]
    fn pair_through_the_cache_is_the_two_direct_builds() {
        // h = 1e-5 at σ = 0.5: over 2^19 points per direction, too large for the cache, so the
        // pair is built in one pass and kept nowhere; then a small one that the cache keeps
        for &(q, sigma, h) in &[(0.3, 0.5, 1e-5), (0.05, 1.0, 1e-3)] {
            let (r, a) = Pld::subsampled_gaussian_pair_cached(q, sigma, h).unwrap();
            for (got, dir) in [(&r, Neighbour::Remove), (&a, Neighbour::Add)] {
                let want = Pld::subsampled_gaussian(q, sigma, dir, h).unwrap();
                assert_eq!(got.lo, want.lo);
                assert_eq!(got.inf.to_bits(), want.inf.to_bits());
                assert!(got
                    .pmf
                    .iter()
                    .zip(&want.pmf)
                    .all(|(x, y)| x.to_bits() == y.to_bits()));
                assert_eq!(got.pmf.len(), want.pmf.len());
            }
        }
    }
}
