//! The Poisson-subsampled Gaussian under replace-one neighbours, discretised pessimistically:
//! [`Pld::replace_one_gaussian`] builds the PLD of the pair P = (1−q)N(0,σ²) + qN(1,σ²),
//! Q = (1−q)N(0,σ²) + qN(−1,σ²) (sensitivity 1 = the clipping norm; as dp-accounting's
//! `AdjacencyType.REPLACE`). Derivation: `docs/derivations/neighbouring.md`.
//!
//! In units of σ (s = 1/σ, rounded up: a larger shift only loosens the bound), with
//! z = s x − s²/2, the loss L(x) = ln((1−q) + q e^{z}) − ln((1−q) + q e^{−z−s²}) is increasing and
//! odd (P(−x) = Q(x)), unbounded both ways; its inverse solves a quadratic in v = q e^{z}
//! ([`ro_xinv_dn`], rounded down so that each cell's true end losses are at or below its grid
//! points). Each cell [xl, xr] is split between its grid points so that E[e^{−L}] is kept,
//! with the ratio R = Q/P written as differences of positive terms ([`gap`]: no cancellation).

use super::{grid_error, grid_span, Pld, MAX_GRID};
use crate::error::Result;
use crate::num::log_add_exp;
use crate::num::round::{div_up, rel_err};
use crate::special::tail::gaussian_tail;
use std::f64::consts::LN_2;

use super::discretise::{check_mixture_args, gl8_nodes, INV_SQRT_2PI, SPLIT_MARGIN, XTAIL};

/// The constants of the pair for (q, σ).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Ro {
    /// s = 1/σ rounded up
    pub s: f64,
    q: f64,
    /// 1 − q (exact for q ≥ 1/2 by Sterbenz; else rounded, the split only sees ln(1−q))
    a0: f64,
    lnq: f64,
    ln_a0: f64,
    /// ln K = 2 ln q − s² (K = q² e^{−s²}, the product of the roots' magnitudes per e^ℓ)
    lnk: f64,
}

impl Ro {
    pub(crate) fn new(q: f64, sigma: f64) -> Ro {
        let s = div_up(1.0, sigma);
        let lnq = q.ln();
        Ro {
            s,
            q,
            a0: 1.0 - q,
            lnq,
            ln_a0: (-q).ln_1p(),
            lnk: 2.0 * lnq - s * s,
        }
    }

    /// The loss L(x) (to a few ulp of its terms; used for the grid's extent and in tests).
    pub(crate) fn loss(&self, x: f64) -> f64 {
        let s = self.s;
        let z = s * x - 0.5 * s * s;
        let zm = -s * x - 0.5 * s * s;
        if self.q < 1.0 && z.abs().max(zm.abs()) < 1.0 {
            // small z: ln(1 + q expm1(z)) has no cancellation
            (self.q * z.exp_m1()).ln_1p() - (self.q * zm.exp_m1()).ln_1p()
        } else {
            log_add_exp(self.ln_a0, self.lnq + z) - log_add_exp(self.ln_a0, self.lnq + zm)
        }
    }

    /// (α, ρ, β, P) at x: α = (1−q)φ(x)/P(x), ρ = qφ(x − s)/P(x), β = qφ(x + s)/P(x) (so
    /// α + ρ = 1 and R = Q/P = α + β) and the density P(x) = (1−q)φ(x) + qφ(x − s).
    #[inline]
    fn ratios(&self, x: f64) -> (f64, f64, f64, f64) {
        let s = self.s;
        let z = s * x - 0.5 * s * s;
        let t = self.lnq + z;
        let (alpha, rho, beta) = if t <= 0.0 {
            let et = t.exp();
            let den = self.a0 + et;
            (self.a0 / den, et / den, (self.lnq - z - s * s).exp() / den)
        } else {
            let emt = (-t).exp();
            let den = self.a0 * emt + 1.0;
            (
                self.a0 * emt / den,
                1.0 / den,
                (-2.0 * z - s * s).exp() / den,
            )
        };
        let d = x - s;
        let p = INV_SQRT_2PI * (self.a0 * (-0.5 * x * x).exp() + self.q * (-0.5 * d * d).exp());
        (alpha, rho, beta, p)
    }
}

/// R(x1) − R(x2) ≥ 0 for x1 ≤ x2 at distance d = x2 − x1 ≥ 0, from the ratios at x1 and x2:
/// (1 − e^{−sd})(α1ρ2 + β1α2) + β1ρ2(1 − e^{−2sd}), every term ≥ 0 (the expansion of
/// Q(x1)P(x2) − Q(x2)P(x1) over P(x1)P(x2); `docs/derivations/neighbouring.md`).
#[inline]
fn gap(s: f64, d: f64, r1: (f64, f64, f64), r2: (f64, f64, f64)) -> f64 {
    let e1 = -(-s * d).exp_m1();
    let e2 = e1 * (2.0 - e1); // 1 − e^{−2sd} = (1 − e^{−sd})(1 + e^{−sd})
    e1 * (r1.0 * r2.1 + r1.2 * r2.0) + r1.2 * r2.1 * e2
}

/// The inverse of the loss, rounded down: an x with L(x) ≤ ℓ, within a few hundred ulp of
/// the exact L^{-1}(ℓ). With E = e^ℓ, A = (1−q)|E − 1|, B = 2√(E K): v = q e^{z} is
/// (A + √(A² + B²))/2 for ℓ ≥ 0 and 2EK/(A + √(A² + B²)) for ℓ < 0 (the positive root of
/// v² + (1−q)(1 − E)v − EK = 0 in the form without cancellation), all in logarithms; then
/// x = (ln v − ln q + s²/2)/s. Each of its ~15 operations errs by ≤ 2 ulp of the largest
/// magnitude in the chain (`scale`), so the radius 64ε·scale/s + 4ε|x| covers the error with
/// a wide margin and the returned x is below the exact inverse.
pub(crate) fn ro_xinv_dn(c: &Ro, l: f64) -> f64 {
    let s = c.s;
    let lnb = LN_2 + 0.5 * (l + c.lnk);
    let lna = if l >= 0.0 {
        c.ln_a0 + l + (-(-l).exp_m1()).ln()
    } else {
        c.ln_a0 + (-l.exp_m1()).ln()
    };
    let m = lna.max(lnb);
    let (ra, rb) = ((lna - m).exp(), (lnb - m).exp());
    let lsum = m + (ra + (ra * ra + rb * rb).sqrt()).ln();
    let lnv = if l >= 0.0 {
        lsum - LN_2
    } else {
        LN_2 + l + c.lnk - lsum
    };
    let x = (lnv - c.lnq + 0.5 * s * s) / s;
    let scale = 4.0 + l.abs() + c.lnk.abs() + m.abs() + lnv.abs() + c.lnq.abs() + s * s;
    x - (rel_err(64.0) * scale / s + rel_err(4.0) * x.abs())
}

/// The loss range [L(−9.5), L(1/σ + 9.5)] covered by the grid of [`Pld::replace_one_gaussian`]
/// (non-finite when 1/σ overflows).
pub(in crate::composition) fn ro_loss_range(q: f64, sigma: f64) -> (f64, f64) {
    let c = Ro::new(q, sigma);
    (c.loss(-XTAIL), c.loss(c.s + XTAIL))
}

/// (wa, wb) of the cell [xl, xr]: its P-mass split between the losses L(xl) and L(xr) keeping
/// E[e^{−L}] (wb = ∫P·(R(xl) − R) / (R(xl) − R(xr)), wa likewise), by composite 8-point
/// Gauss–Legendre on pieces of width ≤ 0.25/(1 + |x| + 2s) (positive integrands; the nodes
/// are placed by their offsets from each end, which carry no cancellation). `all_up`: the
/// whole mass to the upper point (the clamped first cell, whose left end is not a grid loss).
fn cell(c: &Ro, xl: f64, xr: f64, all_up: bool) -> (f64, f64) {
    let s = c.s;
    let w = xr - xl; // relative error ≤ u
    let xa = xl.abs().max(xr.abs());
    // bounded: w ≤ 19 + s and xa ≤ 9.5 + s with s ≤ ~1e3 for a grid that fits the caps
    let pieces = (w * (1.0 + xa + 2.0 * s) / 0.25).ceil().clamp(1.0, 1e7) as usize;
    let (rl, rr) = (c.ratios(xl), c.ratios(xr));
    let (rl3, rr3) = ((rl.0, rl.1, rl.2), (rr.0, rr.1, rr.2));
    let (mut p, mut jb, mut ja) = (0.0, 0.0, 0.0);
    let hw = gl8_nodes(xl, w, pieces, |wt, x, d, dr| {
        let r = c.ratios(x);
        let f = wt * r.3;
        p += f;
        if !all_up {
            let r3 = (r.0, r.1, r.2);
            jb += f * gap(s, d, rl3, r3);
            ja += f * gap(s, dr, r3, rr3);
        }
    });
    let p = p * hw;
    let den = gap(s, w, rl3, rr3);
    if all_up || !(den > 0.0 && den.is_finite()) {
        return (0.0, p);
    }
    let wb = jb * hw / den;
    let wa = ja * hw / den;
    if !(wa.is_finite() && wb.is_finite()) {
        return (0.0, p);
    }
    (wa, wb)
}

impl Pld {
    /// The Poisson-subsampled Gaussian mechanism under **replace-one** neighbours
    /// (sensitivity 1 = the clipping norm, noise std `sigma`, sampling probability `q`; q = 1
    /// is N(1, σ²) vs N(−1, σ²)): the PLD of P = (1−q)N(0,σ²) + qN(1,σ²) against
    /// Q = (1−q)N(0,σ²) + qN(−1,σ²). The pair is symmetric (x ↦ −x swaps P and Q), so this one
    /// PLD covers both orders of the neighbouring datasets.
    ///
    /// Pessimistic like [`Pld::subsampled_gaussian`]: the loss over x ∈ [−9.5σ, 1 + 9.5σ] is
    /// split cell by cell between grid points (each cell's true end losses at or below its
    /// grid points), the mass beyond moved to +∞ (above) or up into the first cell (below),
    /// and a relative margin moves part of every lower weight to the upper point.
    pub fn replace_one_gaussian(q: f64, sigma: f64, h: f64) -> Result<Pld> {
        check_mixture_args(q, sigma, h)?;
        let (lmin, lmax) = ro_loss_range(q, sigma);
        let (klo, khi) = grid_span(lmin, lmax, h, MAX_GRID)
            .ok_or_else(|| grid_error(lmin, lmax, h, MAX_GRID, "noise_multiplier", sigma))?;
        let m = (khi - klo + 1) as usize; // <= MAX_GRID
        let c = Ro::new(q, sigma);
        let s = c.s;
        // the split's relative margin: SPLIT_MARGIN (quadrature and the cell integrals) plus
        // the rounding of z = s x − s²/2 and ln q + z inside the ratios (≤ 2 ulp of each of
        // |ln q|, s|x| ≤ s(s + 9.5) and s², amplified by ≤ 4 through the ratios and the gaps,
        // with a factor 8 to spare)
        let margin = SPLIT_MARGIN + rel_err(64.0) * (4.0 + c.lnq.abs() + s * (s + XTAIL) + s * s);
        let (xmin, xmax) = (-XTAIL, s + XTAIL);
        let below = c.a0 * gaussian_tail(XTAIL) + q * gaussian_tail(s + XTAIL);
        let above = c.a0 * gaussian_tail(s + XTAIL) + q * gaussian_tail(XTAIL);
        let mut pmf = vec![0.0; m];
        let mut inf = above;
        let x0 = ro_xinv_dn(&c, klo as f64 * h);
        // a first cell clamped at xmin has a left end above its grid loss: all its mass up
        let mut clamped = x0 < xmin;
        let mut xl = x0.max(xmin);
        let mut first_upper = None;
        for k in klo..khi {
            crate::interrupt::check()?;
            let xr = ro_xinv_dn(&c, (k + 1) as f64 * h).min(xmax).max(xl);
            if xr > xl {
                let (wa, wb) = cell(&c, xl, xr, clamped);
                let dw = wb * margin;
                pmf[(k - klo) as usize] += (wa - dw).max(0.0);
                pmf[(k + 1 - klo) as usize] += wb + dw;
                first_upper.get_or_insert((k + 1 - klo) as usize);
                clamped = false;
            }
            xl = xr;
        }
        // the mass below xmin has loss < L(xmin) < L(xr of the first cell) ≤ its upper point
        match first_upper {
            Some(i) => pmf[i] += below,
            None => inf += below,
        }
        Ok(Pld {
            h,
            lo: klo,
            pmf,
            inf,
            bad: below + above,
            inf_exact: 0.0,
        }
        .close_mass())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gap_matches_direct_difference() {
        for (q, sigma) in [(0.01, 1.0), (0.3, 0.7), (1.0, 2.0), (1e-5, 5.0)] {
            let c = Ro::new(q, sigma);
            for (x1, x2) in [(-3.0, -1.0), (0.0, 2.5), (-1.0, 4.0), (1.0, 1.5)] {
                let (r1, r2) = (c.ratios(x1), c.ratios(x2));
                let direct = (r1.0 + r1.2) - (r2.0 + r2.2);
                let g = gap(c.s, x2 - x1, (r1.0, r1.1, r1.2), (r2.0, r2.1, r2.2));
                // the direct difference cancels: its error is a few ulp of R1 + R2
                let scale = r1.0 + r1.2 + r2.0 + r2.2;
                assert!(
                    (g - direct).abs() <= 1e-15 * scale + 1e-13 * direct.abs(),
                    "{q} {sigma} {x1} {x2}: {g} {direct}"
                );
            }
        }
    }

    #[test]
    fn inverse_is_below_and_close() {
        for (q, sigma) in [
            (0.01, 1.0),
            (0.3, 0.7),
            (1.0, 2.0),
            (1e-5, 5.0),
            (1e-100, 0.5),
        ] {
            let c = Ro::new(q, sigma);
            let (lmin, lmax) = (c.loss(-XTAIL), c.loss(c.s + XTAIL));
            for i in 0..=200 {
                let l = lmin + (lmax - lmin) * i as f64 / 200.0;
                let x = ro_xinv_dn(&c, l);
                let lx = c.loss(x);
                let tol = 1e-14 * (1.0 + l.abs());
                assert!(lx <= l + tol, "{q} {sigma} {l}: {lx}");
                assert!(lx >= l - 1e-9 * (1.0 + l.abs()), "{q} {sigma} {l}: {lx}");
            }
        }
    }

    #[test]
    fn mass_and_mean_kept() {
        // total mass 1 and E[e^{−L}] ≤ 1 (= Q's mass, less the pessimistic moves)
        for (q, sigma) in [(0.01, 1.0), (0.2, 0.8), (1.0, 1.5)] {
            let p = Pld::replace_one_gaussian(q, sigma, 1e-3).unwrap();
            let tot: f64 = p.pmf.iter().sum::<f64>() + p.inf;
            assert!((tot - 1.0).abs() < 1e-12, "{tot}");
            let e: f64 = (0..p.pmf.len())
                .map(|i| p.pmf[i] * (-p.loss(i)).exp())
                .sum();
            assert!(e <= 1.0 + 1e-12 && e > 1.0 - 1e-6, "{e}");
        }
    }

    #[test]
    fn q_one_is_the_gaussian_of_twice_the_shift() {
        // N(1, σ²) vs N(−1, σ²) = N(2, σ²) vs N(0, σ²): same δ(ε) as the remove pair at σ/2
        let a = Pld::replace_one_gaussian(1.0, 2.0, 1e-3).unwrap();
        let b = Pld::subsampled_gaussian(1.0, 1.0, super::super::Neighbour::Remove, 1e-3).unwrap();
        let ca = super::super::compose(&[(&a, 3)], super::super::DEFAULT_TAIL).unwrap();
        let cb = super::super::compose(&[(&b, 3)], super::super::DEFAULT_TAIL).unwrap();
        let (da, db) = (ca.delta(1.0).2, cb.delta(1.0).2);
        assert!((da - db).abs() < 1e-6 * db, "{da} {db}");
    }

    #[test]
    fn domains() {
        use crate::composition::param_of;
        assert_eq!(
            param_of(Pld::replace_one_gaussian(0.0, 1.0, 1e-3)),
            "sample_rate"
        );
        assert_eq!(
            param_of(Pld::replace_one_gaussian(1.5, 1.0, 1e-3)),
            "sample_rate"
        );
        assert_eq!(
            param_of(Pld::replace_one_gaussian(0.1, 0.0, 1e-3)),
            "noise_multiplier"
        );
        assert_eq!(
            param_of(Pld::replace_one_gaussian(0.1, f64::NAN, 1e-3)),
            "noise_multiplier"
        );
        assert_eq!(
            param_of(Pld::replace_one_gaussian(0.1, 1.0, 0.2)),
            "grid_step"
        );
        assert_eq!(
            param_of(Pld::replace_one_gaussian(1.0, 1e-4, 0.1)),
            "noise_multiplier"
        );
    }
}
