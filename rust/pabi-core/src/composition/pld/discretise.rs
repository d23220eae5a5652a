//! Discretisation of a mechanism's privacy loss onto the grid ℓ_k = k·h, pessimistically
//! ("connect the dots": each cell's mass split between its two ends preserving E[e^{−L}], the
//! tails moved up; see the module doc of `pld` and `docs/derivations/composition.md`):
//! [`Pld::subsampled_gaussian`] (cell integrals of the Gaussian by Gauss–Legendre or normal
//! tails), [`Pld::eps_delta`] (the four-point PLD of f_{ε0,δ0}, Dong–Roth–Su Prop. 2.5) and
//! [`Pld::from_atoms`]. The replace-one pair is in `replace_one.rs`.

use super::{check_h, grid_error, grid_span, Neighbour, Pld, MAX_GRID};
use crate::composition::kov::check_eps_delta;
use crate::error::{PabiError, Result};
use crate::tail::gaussian_tail;
use crate::vmath;

const GL8_X: [f64; 4] = [
    0.183_434_642_495_649_8,
    0.525_532_409_916_329,
    0.796_666_477_413_626_7,
    0.960_289_856_497_536_3,
];
const GL8_W: [f64; 4] = [
    0.362_683_783_378_362,
    0.313_706_645_877_887_3,
    0.222_381_034_453_374_5,
    0.101_228_536_290_376_3,
];

/// P(u < Z < v), Z ~ N(0,1), u ≤ v, via tails (no cancellation in the tails).
fn norm_mass(u: f64, v: f64) -> f64 {
    if u >= 0.0 {
        gaussian_tail(u) - gaussian_tail(v)
    } else if v <= 0.0 {
        gaussian_tail(-v) - gaussian_tail(-u)
    } else {
        1.0 - gaussian_tail(-u) - gaussian_tail(v)
    }
    .max(0.0)
}

pub(super) const INV_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// The nodes of composite 8-point Gauss–Legendre on the cell [xl, xl + w] cut into `pieces`
/// equal pieces: `f(weight, x, d, dr)` at each node in a fixed order (piece by piece, the
/// nodes of [`gl8_piece`] within a piece). Returns the half piece width, the factor of the
/// weighted sums. The cells of the replace-one pair (`replace_one.rs`) use it; those of the
/// subsampled Gaussian (here) take [`gl8_piece`]'s nodes a piece at a time, in vector lanes.
#[inline(always)]
pub(super) fn gl8_nodes(
    xl: f64,
    w: f64,
    pieces: usize,
    mut f: impl FnMut(f64, f64, f64, f64),
) -> f64 {
    let pw = w / pieces as f64;
    for pc in 0..pieces {
        let [wt, x, d, dr] = gl8_piece(xl, pw, pc, pieces);
        for l in 0..8 {
            f(wt[l], x[l], d[l], dr[l]);
        }
    }
    0.5 * pw
}

/// The eight nodes of piece `pc` (of `pieces`, each `pw` wide) of the cell starting at `xl`,
/// in a fixed order (the four node pairs ±u of [`GL8_X`]): their weights `GL8_W[i]`, the nodes
/// x = xl + d and their offsets d = x − xl and dr = xr − x from both ends of the cell. The
/// offsets are formed from the piece index and the node's position, each within a few ulp of
/// itself: x − xl and xr − x formed from the rounded node x would err by ulp(x), relative
/// ≫ [`SPLIT_MARGIN`] in a narrow cell.
#[inline(always)]
pub(super) fn gl8_piece(xl: f64, pw: f64, pc: usize, pieces: usize) -> [[f64; 8]; 4] {
    let mut n = [[0.0; 8]; 4];
    for i in 0..4 {
        for (k, sg) in [-1.0, 1.0].into_iter().enumerate() {
            let l = 2 * i + k;
            let u = 0.5 * sg * GL8_X[i];
            let d = (pc as f64 + 0.5 + u) * pw; // x − xl
            let dr = ((pieces - pc) as f64 - 0.5 - u) * pw; // xr − x
            (n[0][l], n[1][l], n[2][l], n[3][l]) = (GL8_W[i], xl + d, d, dr);
        }
    }
    n
}

/// For the cell x ∈ [xl, xr] of N(0,1): (A0, Jlo, Khi) with A0 = ∫φ, Jlo = ∫ expm1(s(x−xl))φ,
/// Khi = ∫ −expm1(s(x−xr))φ (Jlo/Khi = NaN where the endpoint is infinite and unused).
///
/// Where s·(xr − xl) ≤ 1 the integrals are formed by composite 8-point Gauss–Legendre on pieces
/// of width ≤ 0.25/(1 + |x|) (positive integrands, no cancellation; the quadrature error is far
/// below 1e-16 relative on such pieces). Otherwise the cell is wide enough that the closed forms
/// through normal tails, A1 e^{−z} − A0, lose at most a few digits.
#[inline(always)]
fn cell_integrals(xl: f64, xr: f64, s: f64) -> (f64, f64, f64) {
    let w = xr - xl;
    if xl.is_finite() && xr.is_finite() && s * w <= 1.0 {
        let xa = xl.abs().max(xr.abs());
        // here w ≤ 1/s and |x| ≤ s + 9.5 (or w ≤ s + 19 for s < 1): at most a few hundred
        // pieces; the clamp only documents that the conversion is bounded
        let pieces = (w * (1.0 + xa) / 0.25).ceil().clamp(1.0, 1e6) as usize;
        let (mut a0, mut j, mut kk) = (0.0, 0.0, 0.0);
        let pw = w / pieces as f64;
        for pc in 0..pieces {
            // the piece's eight nodes side by side (the branch-free `vmath` kernels, which
            // vectorise in the SIMD clones of `cells_in`), then summed in node order
            let [wt, x, d, dr] = gl8_piece(xl, pw, pc, pieces);
            let (mut g, mut ej, mut ek) = ([0.0; 8], [0.0; 8], [0.0; 8]);
            for l in 0..8 {
                g[l] = vmath::exp(-0.5 * x[l] * x[l]);
                ej[l] = vmath::expm1(s * d[l]);
                ek[l] = vmath::expm1(-(s * dr[l]));
            }
            for l in 0..8 {
                let f = wt[l] * INV_SQRT_2PI * g[l];
                a0 += f;
                j += f * ej[l];
                kk += f * (-ek[l]);
            }
        }
        let hw = 0.5 * pw;
        (a0 * hw, j * hw, kk * hw)
    } else {
        let a0 = norm_mass(xl, xr);
        let a1 = norm_mass(xl - s, xr - s);
        // A1 = e^{z_lo}(A0 + Jlo) = e^{z_hi}(A0 − Khi), z = s x − s²/2
        let jl = if xl.is_finite() {
            (a1 * (s * s / 2.0 - s * xl).exp() - a0).max(0.0)
        } else {
            f64::NAN
        };
        let kh = if xr.is_finite() {
            (a0 - a1 * (s * s / 2.0 - s * xr).exp()).max(0.0)
        } else {
            f64::NAN
        };
        (a0, jl, kh)
    }
}

/// Relative margin by which the upper split weight is increased (covers the rounding of the
/// cell integrals; its cost is a relative change of ~1e-12·h in δ).
pub(super) const SPLIT_MARGIN: f64 = 1e-11;
/// Cells of [`Pld::subsampled_gaussian`] per block of the driver's pool (a cell costs a
/// few dozen transcendental calls; blocks of this size amortise the scheduling and the
/// interrupt check, and a grid of h = 1e-4 has a few dozen of them).
pub(super) const CELL_CHUNK: usize = 1024;
/// Cells whose preimages and exponentials [`SgGrid::cells`] forms together.
const CELL_BLOCK: usize = 32;
/// Standard-normal tail radius beyond which mass is truncated (Q(9.5) ≈ 1.05e-21).
pub(super) const XTAIL: f64 = 9.5;

/// Loss of the remove direction of the subsampled Gaussian at x (in units of σ, s = 1/σ):
/// ln(1 − q + q e^{z}) = ln(1 + q(e^z − 1)), z = s x − s²/2; `l1q` = ln(1 − q).
///
/// While q·e^z ≤ e^700 the argument q(e^z − 1) is formed directly (for z > 700 as
/// e^{ln q + z} − q): the form z + ln q + ln(1 + e^{ln(1−q) − ln q − z}) cancels where
/// q e^z ≈ 1 (q = 1e-100, z ≈ 230: an absolute error ~1e-14 on a loss ~1e-86, which gave the
/// range the wrong sign and left a cell off the grid). Only the grid's extent depends on it.
pub(super) fn sg_lrem(q: f64, s: f64, l1q: f64, x: f64) -> f64 {
    let z = s * x - s * s / 2.0;
    if q == 1.0 {
        z
    } else if z < 0.0 {
        (q * z.exp_m1()).ln_1p() // ln(1 + q(e^z − 1))
    } else {
        let lq = q.ln();
        if z + lq < 700.0 {
            let t = if z <= 700.0 {
                q * z.exp_m1()
            } else {
                (lq + z).exp() - q
            };
            t.ln_1p()
        } else {
            z + lq + ((l1q - lq - z).exp()).ln_1p()
        }
    }
}

/// The loss range [lmin, lmax] covered by the grid of [`Pld::subsampled_gaussian`] (the loss
/// at the truncation points x = −9.5 and x = 1/σ + 9.5); non-finite when 1/σ overflows.
pub(in crate::composition) fn sg_loss_range(q: f64, sigma: f64, dir: Neighbour) -> (f64, f64) {
    let s = 1.0 / sigma;
    let l1q = (-q).ln_1p();
    let (xmin, xmax) = (-XTAIL, s + XTAIL);
    match dir {
        Neighbour::Remove => (sg_lrem(q, s, l1q, xmin), sg_lrem(q, s, l1q, xmax)),
        Neighbour::Add => (-sg_lrem(q, s, l1q, xmax), -sg_lrem(q, s, l1q, xmin)),
    }
}

/// The arguments of a single-step subsampled-Gaussian pair (this one and the replace-one pair of
/// `replace_one.rs`): q in (0, 1], σ > 0 finite, the grid step h, checked before any work.
pub(super) fn check_mixture_args(q: f64, sigma: f64, h: f64) -> Result<()> {
    if !(q > 0.0 && q <= 1.0) {
        return Err(PabiError::domain("sample_rate", "in (0, 1]", q));
    }
    if !(sigma > 0.0 && sigma.is_finite()) {
        return Err(PabiError::domain(
            "noise_multiplier",
            "> 0 and finite",
            sigma,
        ));
    }
    check_h(h)
}

/// The grid of [`Pld::subsampled_gaussian`] and its cells, shared by the two directions.
///
/// The add direction's loss at x is minus the remove direction's (P and Q swap), so the
/// remove direction's cell c (losses [c·h, (c+1)·h]) covers the same x-interval as the add
/// direction's cell −(c+1) (losses [−(c+1)·h, −c·h]), with the same doubles as endpoints: the
/// add direction's preimage of grid point j is xinv(−(j·h)) and the remove direction's of −j is
/// xinv((−j)·h), the same argument (negation is exact; xinv(±0) agree). The cell integrals,
/// most of the work, therefore serve both directions bit for bit ([`SgGrid::cells`] with both
/// directions is what the single-step cache builds on a miss). The grids mirror each other
/// exactly (⌊−x⌋ = −⌈x⌉): the add direction's is [−khi, −klo].
pub(super) struct SgGrid {
    q: f64,
    sigma: f64,
    h: f64,
    /// 1/σ, ln(1 − q) (−∞ for q = 1), ln q, e^h − 1, 1 − e^{−h}
    s: f64,
    l1q: f64,
    lnq: f64,
    eh: f64,
    emh: f64,
    /// the remove direction's grid [klo, khi]
    klo: i64,
    khi: i64,
}

/// One cell's direction-free part: its clamped x-interval, whether both ends are interior
/// preimages, the cell integrals, and e^{z} at both ends where the interior split may use them.
struct Cell {
    xl: f64,
    xr: f64,
    a0: f64,
    jl: f64,
    kh: f64,
    /// e^{zl}, e^{zr} when both ends are interior and jl, kh are finite (else `None`: the
    /// general split)
    ez: Option<(f64, f64)>,
}

impl SgGrid {
    /// The arguments checked and the grid sized (no allocation) for direction `dir` (its
    /// errors named as for that direction; the grid is the same for both).
    pub(super) fn new(q: f64, sigma: f64, dir: Neighbour, h: f64) -> Result<SgGrid> {
        check_mixture_args(q, sigma, h)?;
        // grid size decided before any allocation (no integer conversion of unchecked floats)
        let (lmin, lmax) = sg_loss_range(q, sigma, dir);
        let (klo, khi) = grid_span(lmin, lmax, h, MAX_GRID)
            .ok_or_else(|| grid_error(lmin, lmax, h, MAX_GRID, "noise_multiplier", sigma))?;
        let (klo, khi) = match dir {
            Neighbour::Remove => (klo, khi),
            Neighbour::Add => (-khi, -klo),
        };
        Ok(SgGrid {
            q,
            sigma,
            h,
            s: 1.0 / sigma,
            l1q: (-q).ln_1p(),
            lnq: q.ln(),
            eh: h.exp_m1(),
            emh: -(-h).exp_m1(),
            klo,
            khi,
        })
    }

    /// Number of cells (grid points − 1; ≤ [`MAX_GRID`]).
    pub(super) fn cells_len(&self) -> usize {
        (self.khi - self.klo) as usize
    }

    /// Inverse of the remove-direction loss: x with lrem(x) = ℓ (−∞ when ℓ ≤ ln(1−q)).
    #[inline(always)]
    fn xinv(&self, l: f64) -> f64 {
        let (q, s) = (self.q, self.s);
        if q == 1.0 {
            return (l + s * s / 2.0) / s;
        }
        self.xinv_mixture(l)
    }

    /// [`Self::xinv`] for q < 1, branch-free (every form computed, the right one selected) so
    /// that a loop of it vectorises; the same value in a loop as alone.
    ///
    /// e^z = (e^ℓ − 1 + q)/q; beyond ℓ = 700 (where e^ℓ overflows at 709.8, which sent every
    /// loss above it to x = +∞, the mass there to one cell at ℓ ≈ 709 and the upper ε of a
    /// σ = 0.01 mixture to 709 instead of ≈ 5425) as z = ℓ + ln(1 − (1−q)e^{−ℓ}) − ln q.
    /// (`vmath::expm1` clamps its argument below at −40, which only ℓ ≤ ln(1 − q) reaches:
    /// 1 − q ≥ 2^-53 > e^{−40} for every double q < 1.)
    #[inline(always)]
    fn xinv_mixture(&self, l: f64) -> f64 {
        let (q, s) = (self.q, self.s);
        let e = vmath::expm1(l.min(700.0));
        let z_neg = vmath::ln(e + q) - self.lnq;
        let z_mid = vmath::log1p(e / q);
        let z_hi = l + vmath::log1p(-(1.0 - q) * vmath::exp(-l)) - self.lnq;
        let z = if l < 0.0 {
            z_neg
        } else if l <= 700.0 {
            z_mid
        } else {
            z_hi
        };
        let x = (z + s * s / 2.0) / s;
        if l <= self.l1q {
            f64::NEG_INFINITY
        } else {
            x
        }
    }

    /// The preimage of the remove direction's grid point c (x at loss c·h).
    #[inline(always)]
    fn g(&self, c: i64) -> f64 {
        self.xinv(c as f64 * self.h)
    }

    /// The direction-free part of the cell between preimages `gl` < `gr` (`None`: empty).
    #[inline(always)]
    fn cell(&self, gl: f64, gr: f64, ez: (f64, f64)) -> Option<Cell> {
        let s = self.s;
        let (xmin, xmax) = (-XTAIL, s + XTAIL);
        let (xl, xr) = (gl.max(xmin), gr.min(xmax));
        if xr.partial_cmp(&xl) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        // is the cell's loss range exactly the grid cell (both ends interior preimages)?
        let exact = gl >= xmin && gr <= xmax;
        let (a0, jl, kh) = cell_integrals(xl, xr, s);
        // e^{z} overflows beyond z ≈ 709 (σ ≲ 0.03) while the cell integral underflows to 0:
        // the product was 0·∞ = NaN, which composed to an upper ε of 0; such a cell takes the
        // general split
        // (for such a cell xl = gl and xr = gr: `ez` holds [`Self::ez`] at both)
        let ez = (exact && jl.is_finite() && kh.is_finite()).then_some(ez);
        Some(Cell {
            xl,
            xr,
            a0,
            jl,
            kh,
            ez,
        })
    }

    /// e^{−ℓ} at the grid point `k` of loss ℓ = k·h (the expression every split uses, so a
    /// value carried from the neighbouring cell is the same double).
    #[inline(always)]
    fn emloss(&self, k: i64) -> f64 {
        vmath::exp(-(k as f64 * self.h))
    }

    /// e^{z} at x, z = x/σ − 1/(2σ²) (the interior split's factor at a cell end).
    #[inline(always)]
    fn ez(&self, x: f64) -> f64 {
        let s = self.s;
        vmath::exp(s * x - s * s / 2.0)
    }

    /// Cell k of direction `dir` (wa to grid point k, wb to k + 1; both 0 for an empty cell),
    /// from its direction-free part; `ems` = (e^{−a}, e^{−b}) at its ends a = k·h, b = (k+1)·h
    /// ([`Self::emloss`] of k and k + 1) where the caller has them, else they are formed here
    /// when needed.
    #[inline(always)]
    fn split(
        &self,
        dir: Neighbour,
        k: i64,
        cell: &Option<Cell>,
        ems: Option<(f64, f64)>,
    ) -> (f64, f64) {
        let Some(c) = cell else {
            return (0.0, 0.0);
        };
        let (q, s) = (self.q, self.s);
        let ems = || ems.unwrap_or_else(|| (self.emloss(k), self.emloss(k + 1)));
        let (eh, emh) = (self.eh, self.emh);
        // the split of a cell with both ends interior preimages; `None` where a product is
        // not finite
        let interior = c.ez.and_then(|(ezl, ezr)| {
            let (wa, wb) = match dir {
                Neighbour::Remove => (q * ezr * c.kh / eh, q * ezl * c.jl / emh),
                Neighbour::Add => {
                    // e^{a} = 1/(1−q+q e^{zr}), e^{b} = 1/(1−q+q e^{zl})
                    let (ea, eb) = ems();
                    (
                        q * ezl * c.jl * eb.recip() / eh,
                        q * ezr * c.kh * ea.recip() / emh,
                    )
                }
            };
            (wa.is_finite() && wb.is_finite()).then_some((wa, wb))
        });
        let (mut wa, mut wb);
        if let Some((x, y)) = interior {
            (wa, wb) = (x, y);
        } else {
            // boundary cell: general split from the cell's P and Q masses
            let a1 = norm_mass(c.xl - s, c.xr - s);
            let (p, qm) = match dir {
                Neighbour::Remove => ((1.0 - q) * c.a0 + q * a1, c.a0),
                Neighbour::Add => (c.a0, (1.0 - q) * c.a0 + q * a1),
            };
            if p <= 0.0 {
                return (0.0, 0.0);
            }
            let (ea, eb_) = ems();
            let den = p * (ea - eb_);
            // where e^{−a} overflows (loss < −709) or the denominator leaves the normal
            // range (losses beyond ≈ 700: 0/0, ∞ − ∞, a quotient of subnormals, or
            // −qm/0 = −∞, which the clamp turned into all mass down) the whole mass goes
            // to the upper point, which is pessimistic
            let t = if ea.is_finite() && den >= f64::MIN_POSITIVE {
                ((p * ea - qm) / den).clamp(0.0, 1.0)
            } else {
                1.0
            };
            wb = p * t;
            wa = p - wb;
        }
        let dw = wb * SPLIT_MARGIN;
        wb += dw;
        wa = (wa - dw).max(0.0);
        (wa, wb)
    }

    /// The splits of the cells `start..start + len` (cell c = klo + index of the remove
    /// direction, cell −(c+1) of the add direction) into `out` = [remove wa, remove wb, add wa,
    /// add wb] (each `len` long, or empty for a direction not in `dirs` = [remove, add]).
    /// Every cell depends on its index alone, so the chunking changes no bit.
    pub(super) fn cells(&self, start: usize, len: usize, dirs: [bool; 2], out: [&mut [f64]; 4]) {
        cells_in(self, start, len, dirs, out);
    }
}

simd! {
    /// The body of [`SgGrid::cells`], compiled for each SIMD target (the quadrature's `vmath`
    /// kernels vectorise over a piece's eight nodes, the preimages and exponentials over a
    /// block of cells; every value is the same on every target).
    fn cells_in(grid: &SgGrid, start: usize, len: usize, dirs: [bool; 2], out: [&mut [f64]; 4]) {
        let [ra, rb, aa, ab] = out;
        let c0 = grid.klo + start as i64;
        // a cell's right-hand preimage is the next cell's left-hand one, and so are e^{z} there
        // (the same doubles from the same expressions, so carrying them changes no bit)
        let mut gl = grid.g(c0);
        let mut ezl = grid.ez(gl);
        // the add direction's cell −(c+1) has its upper end −c·h at the lower end of cell −c,
        // the previous one: e^{−ℓ} there is carried (one exponential per cell instead of two)
        let mut em_top = if dirs[1] { grid.emloss(-c0) } else { 0.0 };
        // blocks of cells: their preimages and exponentials first (loops of branch-free
        // kernels, vectorised in the SIMD clones), then the cells one by one
        let (mut gr, mut ez, mut em) = ([0.0; CELL_BLOCK], [0.0; CELL_BLOCK], [0.0; CELL_BLOCK]);
        let mut b = 0;
        while b < len {
            let n = CELL_BLOCK.min(len - b);
            let cb = c0 + b as i64;
            if grid.q == 1.0 {
                for (i, g) in gr[..n].iter_mut().enumerate() {
                    *g = grid.g(cb + i as i64 + 1);
                }
            } else {
                for (i, g) in gr[..n].iter_mut().enumerate() {
                    *g = grid.xinv_mixture((cb + i as i64 + 1) as f64 * grid.h);
                }
            }
            for (e, &g) in ez[..n].iter_mut().zip(&gr[..n]) {
                *e = grid.ez(g);
            }
            if dirs[1] {
                for (i, e) in em[..n].iter_mut().enumerate() {
                    *e = grid.emloss(-(cb + i as i64 + 1));
                }
            }
            for i in 0..n {
                let (j, c) = (b + i, cb + i as i64);
                let cell = grid.cell(gl, gr[i], (ezl, ez[i]));
                if dirs[0] {
                    (ra[j], rb[j]) = grid.split(Neighbour::Remove, c, &cell, None);
                }
                if dirs[1] {
                    let ems = Some((em[i], em_top));
                    (aa[j], ab[j]) = grid.split(Neighbour::Add, -(c + 1), &cell, ems);
                    em_top = em[i];
                }
                (gl, ezl) = (gr[i], ez[i]);
            }
            b += n;
        }
    }
}

impl SgGrid {
    /// The PLD of direction `dir` from the splits of [`Self::cells`] (`wa`, `wb` indexed by
    /// the remove direction's cell, as written there).
    pub(super) fn assemble(&self, dir: Neighbour, wa: &[f64], wb: &[f64]) -> Pld {
        let (q, h) = (self.q, self.h);
        let s = self.s;
        let (xmin, xmax) = (-XTAIL, s + XTAIL);
        let (lmin, _) = sg_loss_range(q, self.sigma, dir);
        let cells = self.cells_len();
        // cell k of this direction at index i of `wa`/`wb`
        let (klo, at): (i64, &dyn Fn(usize) -> usize) = match dir {
            Neighbour::Remove => (self.klo, &|k| k),
            Neighbour::Add => (-self.khi, &|k| cells - 1 - k),
        };
        // tails outside [xmin, xmax]
        let (below, above) = match dir {
            // P = (1−q)N(0) + qN(s); x > xmax: loss > lmax → +∞; x < xmin: lowest point
            Neighbour::Remove => (
                (1.0 - q) * gaussian_tail(-xmin) + q * gaussian_tail(s - xmin),
                (1.0 - q) * gaussian_tail(xmax) + q * gaussian_tail(xmax - s),
            ),
            // P = N(0); loss decreasing in x: x < xmin → loss > lmax → +∞
            Neighbour::Add => (gaussian_tail(xmax), gaussian_tail(-xmin)),
        };
        // point i receives wb of cell i − 1 and wa of cell i, added in that order to 0
        // (x + 0 = 0 + x = x for the non-negative weights here)
        let mut pmf = vec![0.0; cells + 1];
        for (i, v) in pmf.iter_mut().enumerate() {
            let lower = if i > 0 { wb[at(i - 1)] } else { 0.0 };
            let upper = if i < cells { wa[at(i)] } else { 0.0 };
            *v = lower + upper;
        }
        // mass below the grid's first cell: its loss is <= lmin, moved up to the grid point >= lmin
        pmf[((lmin / h).ceil() as i64 - klo) as usize] += below;
        Pld {
            h,
            lo: klo,
            pmf,
            inf: above,
            bad: below + above,
            inf_exact: 0.0,
        }
        .close_mass()
    }
}

impl Pld {
    /// The Poisson-subsampled Gaussian mechanism (sensitivity 1, noise std `sigma`, sampling
    /// probability `q`; q = 1 is the plain Gaussian mechanism), one neighbouring direction.
    pub fn subsampled_gaussian(q: f64, sigma: f64, dir: Neighbour, h: f64) -> Result<Pld> {
        let grid = SgGrid::new(q, sigma, dir, h)?;
        let dirs = [dir == Neighbour::Remove, dir == Neighbour::Add];
        let n = grid.cells_len();
        let (mut wa, mut wb) = (vec![0.0; n], vec![0.0; n]);
        // the cells in blocks on the driver's pool (an interrupt check before each block)
        crate::driver::for_chunks(
            [&mut wa, &mut wb],
            2 * CELL_CHUNK,
            CELL_CHUNK,
            |start, [a, b]| {
                let len = a.len();
                let (mut x, mut y) = (vec![], vec![]);
                let out = match dir {
                    Neighbour::Remove => [a, b, &mut x[..], &mut y[..]],
                    Neighbour::Add => [&mut x[..], &mut y[..], a, b],
                };
                grid.cells(start, len, dirs, out);
                Ok(())
            },
        )?;
        Ok(grid.assemble(dir, &wa, &wb))
    }

    /// The four-point PLD of an (ε0, δ0)-DP mechanism (its dominating pair; Dong–Roth–Su
    /// Prop. 2.5): +∞ w.p. δ0, ±ε0 w.p. (1−δ0)·p, (1−δ0)(1−p), p = 1/(1+e^{−ε0}). ±ε0 off the
    /// grid are split pessimistically.
    pub fn eps_delta(eps0: f64, delta0: f64, h: f64) -> Result<Pld> {
        check_eps_delta(eps0, delta0)?;
        check_h(h)?;
        // the grid [−ε0/h − 1, ε0/h + 1] of from_atoms, checked here to name ε0 or h
        if grid_span(-eps0, eps0, h, MAX_GRID - 2).is_none() {
            return Err(grid_error(-eps0, eps0, h, MAX_GRID - 2, "eps0", eps0));
        }
        let p = 1.0 / (1.0 + (-eps0).exp());
        Pld::from_atoms(
            h,
            &[eps0, -eps0],
            &[(1.0 - delta0) * p, (1.0 - delta0) * (1.0 - p)],
            delta0,
        )
    }

    /// A PLD from finitely many atoms (losses, masses) and an atom at +∞, each atom split between
    /// its two neighbouring grid points preserving E[e^{−L}] (pessimistic). A loss within 1e-9·h
    /// of a grid point is put on it. The grid spans [min loss − h, max loss + h] and must fit
    /// [`MAX_GRID`] points.
    pub fn from_atoms(h: f64, losses: &[f64], masses: &[f64], inf: f64) -> Result<Pld> {
        check_h(h)?;
        PabiError::same_lengths("losses", losses.len(), "masses", masses.len())?;
        if let Some(i) = losses.iter().position(|l| !l.is_finite()) {
            return Err(PabiError::domain("losses", "finite", losses[i]).at(i));
        }
        if let Some(i) = masses.iter().position(|w| !(0.0..=1.0).contains(w)) {
            return Err(PabiError::domain("masses", "in [0, 1]", masses[i]).at(i));
        }
        if !(0.0..=1.0).contains(&inf) {
            return Err(PabiError::domain("inf", "in [0, 1]", inf));
        }
        let (lmin, lmax) = if losses.is_empty() {
            (0.0, 0.0)
        } else {
            (
                losses.iter().copied().fold(f64::INFINITY, f64::min),
                losses.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            )
        };
        let (a, b) = grid_span(lmin, lmax, h, MAX_GRID - 2)
            .ok_or_else(|| grid_error(lmin, lmax, h, MAX_GRID - 2, "losses", lmax - lmin))?;
        let (lo, hi) = (a - 1, b + 1);
        let mut pmf = vec![0.0; (hi - lo + 1) as usize]; // <= MAX_GRID
        for (&l, &w) in losses.iter().zip(masses) {
            let r = l / h;
            let kr = r.round();
            // on the grid up to round-off: put it on the grid point if that is not below it
            if kr >= r && kr - r <= 1e-9 || r == kr {
                pmf[(kr as i64 - lo) as usize] += w;
                continue;
            }
            let k = r.floor();
            let u = l - k * h; // in (0, h)
            let t = ((-u).exp_m1() / (-h).exp_m1()).clamp(0.0, 1.0) * (1.0 + SPLIT_MARGIN);
            let t = t.min(1.0);
            pmf[(k as i64 - lo) as usize] += w * (1.0 - t);
            pmf[(k as i64 + 1 - lo) as usize] += w * t;
        }
        // the +∞ atom is part of the mechanism, not a truncation
        Ok(Pld {
            h,
            lo,
            pmf,
            inf,
            bad: 0.0,
            inf_exact: inf,
        })
    }
}
