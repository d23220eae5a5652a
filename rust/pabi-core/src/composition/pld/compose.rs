//! FFT composition of PLDs ([`compose`]).
//!
//! The spectra of all parts are raised to their multiplicities and multiplied (frequency-domain
//! powering), one inverse real FFT of length N (an even 2^a·3^b·5^c·7^d) gives the composed pmf
//! on a window [K_lo, K_lo + N) of grid indices chosen by Chernoff bounds from the exact
//! log-MGF of the discretised parts: the mass outside the window (which aliases into it) is at most
//! `tail_hi + tail_lo`, added to the upper value (upper tail; the lower tail too when the window
//! starts at a positive loss) and subtracted from the lower one.
//!
//! The round-off of the whole pipeline is bounded in the module doc of `fft.rs`.

use super::bracket::composed_inf;
use super::fft::{
    combine_segments, dft_segments, direct_dft_coeff_of, fft_error_coeff, fft_plans, next_smooth,
    TwiddleTable, DFT_LANES,
};
use super::{buffers, check_h, Composition, Pld, MAX_GRID, MAX_INDEX, MAX_TIMES, MAX_WINDOW};
use crate::error::{PabiError, Result};
use crate::num::round::U;
use crate::num::up;
use realfft::num_complex::Complex;

/// Tail tolerance used to choose the window (Chernoff bound on the mass outside it).
pub const DEFAULT_TAIL: f64 = 1e-15;

/// An integer-valued float as a grid index clamped to [lo, hi] (`nan` for NaN): the conversion
/// happens only inside the range, so it neither saturates nor wraps.
fn clamp_index(x: f64, lo: i128, hi: i128, nan: i128) -> i128 {
    if x.is_nan() {
        nan
    } else if x <= lo as f64 {
        lo
    } else if x >= hi as f64 {
        hi
    } else {
        x as i128
    }
}

/// The composed window chosen by [`compose`] before any allocation.
pub(in crate::composition) struct Window {
    k_lo: i128,
    k_top: i128,
    sup_lo: i128,
    sup_hi: i128,
    /// (λ, composed log-MGF at +λ) and (λ, at −λ)
    lgrid_hi: Vec<(f64, f64)>,
    lgrid_lo: Vec<(f64, f64)>,
}

impl Window {
    /// Number of grid points of the window (≥ 1; may exceed `usize` range in principle).
    pub(in crate::composition) fn width(&self) -> i128 {
        self.k_top - self.k_lo + 1
    }
}

/// Validate `parts` and choose the composed window by Chernoff bounds (cheap: O(Σ len · 32)).
/// All support arithmetic is in i128 with checked operations.
pub(in crate::composition) fn window(parts: &[(&Pld, u64)], tail: f64) -> Result<Window> {
    if parts.is_empty() {
        return Err(PabiError::domain("parts", "at least one PLD", 0.0));
    }
    if !(tail > 0.0 && tail < 1e-3) {
        return Err(PabiError::domain("tail_mass", "in (0, 1e-3)", tail));
    }
    let h = parts[0].0.h;
    check_h(h)?;
    for (i, (p, t)) in parts.iter().enumerate() {
        if p.h != h {
            return Err(
                PabiError::domain("grid_step", "the same grid step for all parts", p.h).at(i),
            );
        }
        if *t < 1 || *t > MAX_TIMES {
            return Err(PabiError::domain("count", "an integer in [1, 2^53]", *t as f64).at(i));
        }
        // a Pld built by this module satisfies these; its fields are public, so check them
        let len = p.pmf.len();
        let top = p.lo as f64 + len as f64;
        if len == 0 || len > MAX_GRID || (p.lo as f64).abs() > MAX_INDEX || top.abs() > MAX_INDEX {
            return Err(PabiError::domain(
                "parts",
                "PLDs of 1..=2^21 grid points with indices within 2^53",
                len as f64,
            )
            .at(i));
        }
        // a NaN or negative mass would make every composed value NaN, which the queries read
        // as 0 (an upper ε of 0 for a σ = 0.01 Gaussian before its split was fixed)
        // (a mass may exceed 1 by the split's margin: only finiteness and sign are checked)
        let bad_mass = |w: f64| !(w >= 0.0 && w.is_finite());
        if let Some(j) = p.pmf.iter().position(|&w| bad_mass(w)) {
            return Err(PabiError::domain(
                "parts",
                "PLDs whose masses are finite and >= 0",
                p.pmf[j],
            )
            .at(i));
        }
        if bad_mass(p.inf) {
            return Err(PabiError::domain(
                "parts",
                "PLDs whose +inf mass is finite and >= 0",
                p.inf,
            )
            .at(i));
        }
    }
    let overflow = || {
        PabiError::domain(
            "count",
            "small enough that the composed support indices fit (use fewer compositions)",
            parts.iter().map(|(_, t)| *t as f64).sum::<f64>(),
        )
    };
    // support bounds: Σ T_i·(first/last index of part i), |each term| ≤ 2^53·2^53
    let mut sup_lo: i128 = 0;
    let mut sup_hi: i128 = 0;
    for (p, t) in parts {
        let first = p.pmf.iter().position(|&w| w > 0.0).unwrap_or(0) as i128;
        let last = p.pmf.iter().rposition(|&w| w > 0.0).unwrap_or(0) as i128;
        let t = *t as i128;
        sup_lo = t
            .checked_mul(p.lo as i128 + first)
            .and_then(|v| sup_lo.checked_add(v))
            .ok_or_else(overflow)?;
        sup_hi = t
            .checked_mul(p.lo as i128 + last)
            .and_then(|v| sup_hi.checked_add(v))
            .ok_or_else(overflow)?;
    }
    // Chernoff window
    let ltol = tail.ln();
    let lambdas: Vec<f64> = (0..16)
        .map(|i| 10f64.powf(-2.0 + 4.0 * i as f64 / 15.0))
        .collect();
    let mut neg: Vec<f64> = lambdas.iter().map(|l| -l).collect();
    neg.extend_from_slice(&lambdas);
    let mut tot = vec![0.0; neg.len()];
    for (p, t) in parts {
        for (a, v) in tot.iter_mut().zip(p.log_mgf(&neg)) {
            *a += *t as f64 * v;
        }
    }
    let nl = lambdas.len();
    let mut s_hi = f64::INFINITY;
    let mut s_lo = f64::NEG_INFINITY;
    let mut lgrid_hi = Vec::with_capacity(lambdas.len());
    let mut lgrid_lo = Vec::with_capacity(lambdas.len());
    for (i, &lam) in lambdas.iter().enumerate() {
        let a = tot[nl + i];
        let b = tot[i];
        lgrid_hi.push((lam, a));
        lgrid_lo.push((lam, b));
        s_hi = s_hi.min((a - ltol) / lam);
        s_lo = s_lo.max((ltol - b) / lam);
    }
    // clamped to the support in floating point, then converted (a NaN bound: the support edge)
    let mut k_top = clamp_index((s_hi / h).ceil(), sup_lo, sup_hi, sup_hi);
    let mut k_lo = clamp_index((s_lo / h).floor(), sup_lo, sup_hi, sup_lo);
    if k_top < k_lo {
        k_top = sup_hi;
        k_lo = sup_lo;
    }
    Ok(Window {
        k_lo,
        k_top,
        sup_lo,
        sup_hi,
        lgrid_hi,
        lgrid_lo,
    })
}

/// Bins per parallel chunk of the powering loop (its threshold is the driver's `PAR_MIN`:
/// below it the loop runs on the calling thread). The loop is elementwise, so the chunking
/// never changes a value.
const BIN_CHUNK: usize = 8192;
/// Bins tested together when the bins to recompute directly are looked for.
const SCAN: usize = 16;
/// Elements per parallel chunk of the composition's elementwise passes over whole buffers
/// (placing a part on the circle, the search for bins to refine, reading the window); below
/// the driver's `PAR_MIN` they run on the calling thread. Each element depends on its index
/// alone, so the chunking never changes a value.
const PASS_CHUNK: usize = 1 << 16;
/// Bins per chunk of the sums over the spectrum that bound the inverse transform's round-off
/// (a fixed size, so their bits do not depend on the thread count).
const ERR_CHUNK: usize = 1 << 14;
/// Directly recomputed bins per parallel task.
const REFINE_CHUNK: usize = 4;
/// Below this many terms in all, the direct DFT bins are computed on the calling thread.
const REFINE_PAR_MIN: usize = 1 << 16;

/// `f` at every element of `xs` (in order), on the pool in chunks of `chunk` elements when
/// `work` ≥ [`REFINE_PAR_MIN`]. Each value depends only on its element, so the result does not
/// depend on the thread count.
fn run_chunks<X: Sync, Y: Send>(
    work: usize,
    xs: &[X],
    chunk: usize,
    f: impl Fn(&X) -> Y + Sync,
) -> Vec<Y> {
    match crate::driver::pool() {
        Some(p) if work >= REFINE_PAR_MIN && xs.len() > 1 => p.install(|| {
            use rayon::prelude::*;
            xs.par_iter().with_min_len(chunk).map(&f).collect()
        }),
        _ => xs.iter().map(f).collect(),
    }
}

/// The per-bin step of the frequency-domain powering of one part (module doc of `fft.rs`,
/// steps 2 and 3): ẑ^T in polar form with its error bound E, then the running product
/// Â ← Â·ẑ^T with its bound B.
struct Powering {
    /// the multiplicity T
    tf: f64,
    /// R below which T·R^{T−1}·e is replaced by the constant `prop_neg`
    c_neg: f64,
    prop_neg: f64,
    /// |z̃|² below which the power certainly underflows (T/2·ln|z̃|² < −740 with a margin far
    /// beyond the rounding of the logarithm): the test that skips the logarithm there takes
    /// the same branch as the logarithm would
    r2_tiny: f64,
}

/// Bins of one lane group of [`Powering::run`].
const POW_LANES: usize = 4;

/// |z̃|² and the bound |z̃|·(1 + 4u) ≥ |z̃| of a computed bin.
#[inline(always)]
fn radius(z: Complex<f64>) -> (f64, f64) {
    let r2 = z.norm_sqr();
    (r2, r2.sqrt() * (1.0 + 4.0 * U))
}

/// The running product's step Â ← Â·t̃ with its bound B (module doc of `fft.rs`, step 3), for
/// the bin's power t̃ = `pw` (|t̃| ≤ `pabs`) within `err` of the exact power.
#[inline(always)]
fn accumulate(a: &mut Complex<f64>, accb: &mut f64, pw: Complex<f64>, pabs: f64, err: f64) {
    // exact t = z^T satisfies |t| ≤ min(|pw| + err, 1)
    let tabs = (pabs + err).min(1.0);
    let aabs = a.norm_sqr().sqrt() * (1.0 + 4.0 * U);
    let prod = *a * pw;
    *accb = (3.0 * U * aabs * pabs + aabs * err + *accb * tabs) * (1.0 + 1e-12);
    *a = prod;
}

impl Powering {
    /// The error of taking z̃^T ≈ 0 (for |z̃| ≤ `rt` within `e` of |z|, and the propagation
    /// term `prop` = T·R^{T−1}·e): |z^T| ≤ min(|z̃| + e, 1)^T ≤ R·R^{T−1}.
    #[inline(always)]
    fn zero_err(&self, rt: f64, e: f64, prop: f64) -> f64 {
        let tf = self.tf;
        let zb = (rt + e).min(1.0);
        let bound = if tf <= 1.0 {
            zb
        } else {
            zb * prop / (tf * e.max(f64::MIN_POSITIVE))
        };
        bound * (1.0 + 1e-9)
    }

    #[inline(always)]
    fn bin(&self, a: &mut Complex<f64>, accb: &mut f64, z: Complex<f64>, e: f64) {
        let tf = self.tf;
        let (r2, rt) = radius(z); // rt ≥ |z̃_k|
                                  // max(|z̃|, |z|) ≤ R; |z| ≤ min(|z̃| + e, 1)
        let big = rt.max((rt + e).min(1.0));
        let prop = if tf <= 1.0 {
            e
        } else if big <= self.c_neg {
            self.prop_neg
        } else {
            tf * ((tf - 1.0) * big.ln()).exp() * e
        };
        let lr = if r2 < self.r2_tiny {
            f64::NEG_INFINITY
        } else {
            0.5 * tf * r2.ln()
        };
        let (pw, pabs, err) = if r2 == 0.0 || lr < -740.0 {
            // z̃^T ≈ 0 taken as 0
            (Complex::new(0.0, 0.0), 0.0, self.zero_err(rt, e, prop))
        } else {
            let ang = z.im.atan2(z.re);
            let th = tf * ang;
            let mag = lr.exp();
            let (sn, cs) = th.sin_cos();
            let pw = Complex::new(mag * cs, mag * sn);
            // relative error of the polar power vs z̃^T: magnitude (ln of r2 with 3u
            // relative error, times T/2, exp) and phase (atan2 within 2u relative, ×T,
            // sin_cos)
            let rho =
                (1.5 * tf * U * 1.01 + 2.0 * U * lr.abs() + 4.0 * U * th.abs() + 12.0 * U) * 1.01;
            (
                pw,
                mag * (1.0 + 4.0 * U),
                (rho * mag + prop) * (1.0 + 1e-12),
            )
        };
        accumulate(a, accb, pw, pabs, err);
    }

    /// [`Self::bin`] at the bins `start..start + accb.len()` of one chunk: with `acc`,
    /// Â_k ← Â_k·ẑ_k^T, else (the first part) ẑ_k ← 1·ẑ_k^T in place. The bound of bin k is
    /// its entry of `refined` (ascending) or `eb`.
    ///
    /// Most bins of a long composition are far from the peaks of |z|: their power underflows
    /// and their propagation term is the constant `prop_neg`. A group of [`POW_LANES`] such
    /// bins (none refined; T > 1, |z̃|² < `r2_tiny`, R ≤ `c_neg`) takes the branch-free
    /// lane-wise form of those branches of [`Self::bin`] (the same operations, so the same
    /// values bit for bit, in vector registers); any other bin goes through [`Self::bin`].
    fn run(
        &self,
        start: usize,
        accb: &mut [f64],
        spec: &mut [Complex<f64>],
        acc: Option<&mut [Complex<f64>]>,
        refined: &[(usize, f64)],
        eb: f64,
    ) {
        power_run(self, start, accb, spec, acc, refined, eb)
    }
}

simd! {
    /// The body of [`Powering::run`], compiled for the widest vector unit the CPU has (chosen
    /// at run time; Rust never contracts a·b + c into a fused multiply-add, so every target
    /// performs the same IEEE operations: the values do not depend on the target).
    fn power_run(
        pw: &Powering,
        start: usize,
        accb: &mut [f64],
        spec: &mut [Complex<f64>],
        mut acc: Option<&mut [Complex<f64>]>,
        refined: &[(usize, f64)],
        eb: f64,
    ) {
        let n = accb.len();
        let lo = refined.partition_point(|r| r.0 < start);
        let hi = refined.partition_point(|r| r.0 < start + n);
        let mut rf = refined[lo..hi].iter().map(|&(k, e)| (k - start, e)).peekable();
        let one = Complex::new(1.0, 0.0);
        let mut i = 0;
        while i < n {
            let next_ref = rf.peek().map_or(usize::MAX, |r| r.0);
            if pw.tf > 1.0 && i + POW_LANES <= n && next_ref >= i + POW_LANES {
                let z: [Complex<f64>; POW_LANES] = std::array::from_fn(|l| spec[i + l]);
                let r = z.map(radius);
                // (`&`, not `&&`: every lane tested, no branch per lane)
                let mut far = true;
                for &(r2, rt) in &r {
                    far &= (r2 < pw.r2_tiny) & (rt.max((rt + eb).min(1.0)) <= pw.c_neg);
                }
                if far {
                    let mut a: [Complex<f64>; POW_LANES] = match acc.as_deref() {
                        Some(acc) => std::array::from_fn(|l| acc[i + l]),
                        None => [one; POW_LANES],
                    };
                    let b = &mut accb[i..i + POW_LANES];
                    for l in 0..POW_LANES {
                        let err = pw.zero_err(r[l].1, eb, pw.prop_neg);
                        accumulate(&mut a[l], &mut b[l], Complex::new(0.0, 0.0), 0.0, err);
                    }
                    let dst = match acc.as_deref_mut() {
                        Some(acc) => &mut acc[i..i + POW_LANES],
                        None => &mut spec[i..i + POW_LANES],
                    };
                    dst.copy_from_slice(&a);
                    i += POW_LANES;
                    continue;
                }
            }
            let e = if next_ref == i {
                rf.next().map_or(eb, |r| r.1)
            } else {
                eb
            };
            match acc.as_deref_mut() {
                Some(acc) => pw.bin(&mut acc[i], &mut accb[i], spec[i], e),
                None => {
                    let mut a = one;
                    pw.bin(&mut a, &mut accb[i], spec[i], e);
                    spec[i] = a;
                }
            }
            i += 1;
        }
    }
}

/// The error for a composed window wider than [`MAX_WINDOW`] (named `h`: a coarser grid
/// shrinks it in proportion).
fn window_error(width: i128, h: f64) -> PabiError {
    PabiError::domain(
        "grid_step",
        format!(
            "large enough that the composed window fits its cap of 2^22 points (this grid_step \
             needs {width}; use a coarser grid_step or fewer compositions)"
        ),
        h,
    )
}

/// The checks [`compose_in`] makes of the window `win` of `parts` before any work (its width
/// and its indices): the grid step on success.
pub(super) fn check_window(parts: &[(&Pld, u64)], win: &Window) -> Result<f64> {
    let Some(&(first, _)) = parts.first() else {
        return Err(PabiError::Shape {
            message: "a composition needs at least one part".into(),
        });
    };
    let h = first.h;
    let wid = win.width();
    if wid > MAX_WINDOW as i128 {
        return Err(window_error(wid, h));
    }
    if (win.k_lo as f64).abs() > MAX_INDEX || (win.k_top as f64).abs() > MAX_INDEX {
        return Err(PabiError::domain(
            "count",
            "small enough that the composed window's grid indices stay within 2^53 \
             (use fewer compositions or a coarser grid_step)",
            parts.iter().map(|(_, t)| *t as f64).sum::<f64>(),
        ));
    }
    Ok(h)
}

/// Compose `parts` = [(PLD, multiplicity)] (all on the same grid step) by FFT.
///
/// Sizes are decided before any allocation: the window (≤ [`MAX_WINDOW`] points, else a
/// `DomainError` on `h`), the FFT length n = next 2^a3^b5^c7^d ≥ max(window, 2·longest part,
/// 1024) ≤ 2^22, and window indices within ±2^53.
pub fn compose(parts: &[(&Pld, u64)], tail: f64) -> Result<Composition> {
    compose_in(parts, window(parts, tail)?)
}

/// [`compose`] on the window `win` that [`window`] chose for these `parts` (the DP-SGD
/// accountant checks the window's width before composing and hands it on, instead of
/// computing the moment-generating functions twice).
pub(in crate::composition) fn compose_in(
    parts: &[(&Pld, u64)],
    win: Window,
) -> Result<Composition> {
    let h = check_window(parts, &win)?;
    let wid = win.width();
    let Window {
        k_lo,
        k_top,
        sup_lo,
        sup_hi,
        lgrid_hi,
        lgrid_lo,
    } = win;
    let width = wid as usize; // ≤ 2^22
    let maxlen = parts.iter().map(|(p, _)| p.pmf.len()).max().unwrap_or(1); // ≤ 2^21
    let n = next_smooth(width.max(2 * maxlen).max(1024));
    if n > MAX_WINDOW {
        // unreachable: next_smooth(m) ≤ m.next_power_of_two() ≤ 2^22 for m ≤ 2^22
        return Err(window_error(n as i128, h));
    }
    // mass beyond the window (tail bounds evaluated at the final window edges)
    let top = k_top as f64 * h;
    let bottom = k_lo as f64 * h;
    let tail_hi = if k_top >= sup_hi {
        0.0
    } else {
        lgrid_hi
            .iter()
            .map(|&(lam, a)| (a - lam * top).exp())
            .fold(1.0, f64::min)
    };
    let tail_lo = if k_lo <= sup_lo {
        0.0
    } else {
        lgrid_lo
            .iter()
            .map(|&(lam, b)| (b + lam * bottom).exp())
            .fold(1.0, f64::min)
    };
    // spectra, with a rigorous per-bin bound B_k ≥ |acc_k − exact_k| (module doc of
    // fft.rs): a forward-FFT bound κ_N·‖x‖₁ per bin, tightened to the direct compensated
    // DFT bound where it matters, propagated through the powering and the products.
    let plans = fft_plans(n);
    let nc = n / 2 + 1;
    let kappa = fft_error_coeff(n);
    // the running product Â: the first part's powers are written into its own spectrum
    // (Â = 1·ẑ^T, the same operations as a product with a stored 1), so no array of ones
    let mut acc: Option<Vec<Complex<f64>>> = None;
    let mut accb = buffers::zeros::<f64>(nc);
    // zeroed per part
    let mut buf = buffers::any::<f64>(n);
    // one scratch for every transform (realfft's `process` would allocate one per call)
    let mut scratch = buffers::any::<Complex<f64>>(plans.scratch_len());
    // (every bin is written by the forward transform)
    let mut spec = buffers::any::<Complex<f64>>(nc);
    let mut infx_keep_log = 0.0;
    let mut bad = 0.0;
    let mut steps = 0.0;
    let tw = TwiddleTable::new(n);
    for (p, t) in parts {
        crate::interrupt::check()?;
        if spec.len() != nc {
            spec = buffers::any::<Complex<f64>>(nc);
        }
        place(&mut buf, p)?;
        // ‖x‖₁ rounded up (all masses ≥ 0; a sub-probability up to round-off)
        let mass = up(crate::num::neumaier_sum(p.pmf.iter().copied()));
        plans.forward(&mut buf, &mut spec, &mut scratch)?;
        crate::interrupt::check()?;
        let tf = *t as f64;
        let eb_fft = kappa * mass;
        // bins whose FFT error would matter after powering: recompute directly
        let first = p.pmf.iter().position(|&w| w > 0.0).unwrap_or(0);
        let last = p.pmf.iter().rposition(|&w| w > 0.0).unwrap_or(0);
        let m_sup = last + 1 - first.min(last);
        let eb_dir = direct_dft_coeff_of(m_sup) * mass;
        // T·R^{T−1}·ε_fft > 1e-18 ⇔ R > r_cut (one exp per part instead of one per bin)
        let r_cut = if tf > 1.0 {
            ((-41.4 - (tf * eb_fft).ln()) / (tf - 1.0)).exp()
        } else {
            0.0
        };
        let refine: Vec<usize> = if tf * eb_fft > 1e-18 && eb_dir < eb_fft {
            // blocks of PASS_CHUNK bins on the pool (their hits concatenated in block order);
            // in a block the test of SCAN bins at a time as a branch-free map (vectorised),
            // then the rare hits pushed in order
            let blocks = nc.div_ceil(PASS_CHUNK);
            let par = nc >= crate::driver::PAR_MIN;
            crate::driver::map_range(blocks as u64, par, |b| {
                let b0 = b as usize * PASS_CHUNK;
                let mut hits = Vec::new();
                for (c, zs) in spec[b0..(b0 + PASS_CHUNK).min(nc)].chunks(SCAN).enumerate() {
                    let mut hit = [false; SCAN];
                    for (h, z) in hit.iter_mut().zip(zs) {
                        let r = z.norm_sqr().sqrt() * (1.0 + 4.0 * U) + eb_fft;
                        *h = r.min(1.0) > r_cut;
                    }
                    if hit.contains(&true) {
                        let at = b0 + c * SCAN;
                        hits.extend((0..zs.len()).filter(|&j| hit[j]).map(|j| at + j));
                    }
                }
                hits
            })
            .concat()
        } else {
            Vec::new()
        };
        // the bins recomputed directly, ascending, with their bound (every other bin: eb_fft)
        let mut refined: Vec<(usize, f64)> = Vec::new();
        if !refine.is_empty() {
            let xs = &p.pmf[first..first + m_sup];
            let j0 = p.lo + first as i64;
            // a sparse part (e.g. the few atoms of an (ε0, δ0) PLD) costs its nonzero terms
            // per bin; the same terms in the same order as the dense loop, so the same value
            let nz = nonzero_terms(xs, j0);
            let sparse = 4 * nz.len() < m_sup;
            let cost = if sparse { 4 * nz.len() } else { m_sup };
            if (refine.len() as f64) * (cost as f64) <= 4e7 {
                // dense: DFT_LANES bins per pass (the last group padded with its last bin)
                // (`refine` holds positions in the spectrum's layout; the DFTs take bins)
                let groups: Vec<[usize; DFT_LANES]> = refine
                    .chunks(DFT_LANES)
                    .map(|g| std::array::from_fn(|l| plans.bin(g[l.min(g.len() - 1)])))
                    .collect();
                let zs: Vec<Complex<f64>> = if sparse {
                    run_chunks(refine.len() * cost, &refine, REFINE_CHUNK, |&p| {
                        tw.direct_dft_sparse(&nz, plans.bin(p))
                    })
                } else {
                    // (group, segment) tasks: a few groups of long sums are many tasks
                    let segs = dft_segments(m_sup);
                    let tasks: Vec<(usize, usize)> = (0..groups.len())
                        .flat_map(|g| (0..segs.len()).map(move |s| (g, s)))
                        .collect();
                    let parts = run_chunks(refine.len() * cost, &tasks, 1, |&(g, s)| {
                        let (a, b) = segs[s];
                        tw.direct_dft_partial(&xs[a..b], j0 + a as i64, groups[g])
                    });
                    parts
                        .chunks(segs.len())
                        .flat_map(combine_segments)
                        .collect()
                };
                for (&k, z) in refine.iter().zip(zs) {
                    spec[k] = z;
                    refined.push((k, eb_dir + 4.0 * U * z.norm_sqr().sqrt() * (1.0 + 4.0 * U)));
                }
            }
        }
        // bins with max(|z̃|,|z|) ≤ c_neg have T·R^{T−1}·e ≤ T·c_neg^{T−1}·e_max ≤ 1e-40:
        // use that constant instead of one ln/exp per bin
        let e_max = eb_fft.max(eb_dir + 4.0 * U * (1.0 + eb_fft));
        let c_neg = if tf > 1.0 {
            ((-92.1 - (tf * e_max).ln()) / (tf - 1.0)).exp().min(1.0)
        } else {
            1.0
        };
        let prop_neg = if tf > 1.0 {
            tf * ((tf - 1.0) * c_neg.ln()).exp() * e_max * (1.0 + 1e-9)
        } else {
            e_max
        };
        let pw = Powering {
            tf,
            c_neg,
            prop_neg,
            r2_tiny: (-1480.0 / tf).exp() * (1.0 - 1e-6),
        };
        // bins [start, start + len) of one chunk (`Powering::run`)
        let kernel = |start: usize,
                      accb: &mut [f64],
                      spec: &mut [Complex<f64>],
                      acc: Option<&mut [Complex<f64>]>| {
            pw.run(start, accb, spec, acc, &refined, eb_fft)
        };
        match crate::driver::pool() {
            Some(pool) if nc >= crate::driver::PAR_MIN => pool.install(|| {
                use rayon::prelude::*;
                // the chunks of `acc` (none for the first part)
                let mut acc_chunks: Vec<Option<&mut [Complex<f64>]>> = match acc.as_mut() {
                    Some(acc) => acc.chunks_mut(BIN_CHUNK).map(Some).collect(),
                    None => (0..nc.div_ceil(BIN_CHUNK)).map(|_| None).collect(),
                };
                accb.par_chunks_mut(BIN_CHUNK)
                    .zip(spec.par_chunks_mut(BIN_CHUNK))
                    .zip(acc_chunks.par_iter_mut())
                    .enumerate()
                    .try_for_each(|(c, ((b, z), a))| {
                        crate::interrupt::check()?;
                        kernel(c * BIN_CHUNK, b, z, a.take());
                        Ok::<(), PabiError>(())
                    })
            })?,
            _ => kernel(0, &mut accb, &mut spec, acc.as_deref_mut()),
        };
        if acc.is_none() {
            acc = Some(std::mem::take(&mut spec));
        }
        infx_keep_log += tf * (-p.inf_exact).ln_1p();
        bad += tf * p.bad;
        steps += tf;
    }
    // the DC and Nyquist bins of a real signal are real (dropping the imaginary round-off only
    // moves them closer to the exact values)
    let mut acc = acc.ok_or_else(|| PabiError::internal("compose: no part"))?;
    acc[0].im = 0.0;
    acc[nc - 1].im = 0.0;
    // inverse: per point ≤ (Σ_k B_k + κ Σ_k |A_k|)/N over the full (Hermitian) spectrum;
    // in ℓ2 (Parseval) ≤ (‖B‖₂ + κ‖A‖₂)/√N
    // (the four sums in fixed chunks of ERR_CHUNK bins, on the pool for long spectra, combined
    // in chunk order: the same bits on every path and thread count; a sum of non-negative
    // terms in chunks errs by at most (ERR_CHUNK + chunks)·u relative, ≤ 1e-11 here, well
    // inside the final factor 1 + 1e-9 of `fft_err`)
    let (accr, accbr) = (&acc, &accb);
    let sums = crate::driver::map_range(
        nc.div_ceil(ERR_CHUNK) as u64,
        nc >= crate::driver::PAR_MIN,
        |c| {
            let lo = c as usize * ERR_CHUNK;
            let hi = (lo + ERR_CHUNK).min(nc);
            let mut s = [0.0f64; 4];
            for (a, &b) in accr[lo..hi].iter().zip(&accbr[lo..hi]) {
                let an = a.norm_sqr().sqrt() * (1.0 + 4.0 * U);
                s[0] += b;
                s[1] += b * b;
                s[2] += an;
                s[3] += an * an;
            }
            s
        },
    );
    let [sb1, sb2, sa1, sa2] = sums.iter().fold([0.0f64; 4], |t, s| {
        [t[0] + s[0], t[1] + s[1], t[2] + s[2], t[3] + s[3]]
    });
    let full = |s: f64| 2.0 * s * (1.0 + 1e-12);
    crate::interrupt::check()?;
    // the inverse writes into `buf` (free after the last forward transform)
    let out = &mut buf;
    plans.inverse(&mut acc, out, &mut scratch)?;
    crate::interrupt::check()?;
    let scale = 1.0 / n as f64;
    // read the window in grid order (exact values are ≥ 0: clipping negatives only helps)
    // (point i of the window is out[(k_lo + i) mod n]: the slice from k_lo mod n to the end,
    // then from 0; width ≤ n; every point written)
    let start = k_lo.rem_euclid(n as i128) as usize;
    // (an elementwise map, in chunks on the pool: the window's mass is summed in the suffix
    // pass below)
    let mut pmf = buffers::any::<f64>(width);
    let out: &[f64] = out;
    // window point i < `wrap` is out[start + i], a later one out[i − wrap]
    let wrap = n - start;
    crate::driver::for_chunks(
        [&mut pmf[..]],
        crate::driver::PAR_MIN,
        PASS_CHUNK,
        |c0, [v]| {
            let a = wrap.clamp(c0, c0 + v.len()) - c0;
            // (two plain loops, not one chained iterator, so that the compiler vectorises
            // them)
            let (head, rest) = v.split_at_mut(a);
            if !head.is_empty() {
                for (v, &x) in head.iter_mut().zip(&out[start + c0..]) {
                    *v = (x * scale).max(0.0);
                }
            }
            if !rest.is_empty() {
                for (v, &x) in rest.iter_mut().zip(&out[c0 + a - wrap..]) {
                    *v = (x * scale).max(0.0);
                }
            }
            Ok(())
        },
    )?;
    // suffix sums, summarised in chunks on the pool (formed where the queries read them)
    let (suffix, wmass) = super::suffix::Suffix::new(&pmf, (-h).exp())?;
    let wf = width as f64;
    let nf = n as f64;
    let l1_route = wf / nf * (full(sb1) + kappa * full(sa1));
    let l2_route = (wf / nf).sqrt() * (full(sb2).sqrt() + kappa * full(sa2).sqrt());
    let fft_err = (l1_route.min(l2_route) + 2.0 * U * wmass) * (1.0 + 1e-9);
    buffers::give(buf);
    buffers::give(accb);
    buffers::give(acc);
    buffers::give(spec);
    buffers::give(scratch);
    Ok(Composition {
        h,
        k_lo: k_lo as i64,
        pmf,
        inf: composed_inf(parts),
        bad,
        inf_exact: -infx_keep_log.exp_m1() * (1.0 - 1e-12),
        tail_hi,
        tail_lo,
        fft_err,
        steps,
        suffix,
    })
}

/// Part `p` on the length-n circle `buf` (n = `buf.len()` ≥ 2·its length): its mass at grid
/// index j at position j mod n, zero elsewhere; in chunks on the pool for long circles. Every
/// position is written once (0 + w where a mass lands, the value of adding it to a zeroed
/// buffer), so no earlier contents and no zero-filling pass are needed.
fn place(buf: &mut [f64], p: &Pld) -> Result<()> {
    let n = buf.len();
    let m = p.pmf.len(); // ≤ n/2
    let s = p.lo.rem_euclid(n as i64) as usize;
    crate::driver::for_chunks([buf], crate::driver::PAR_MIN, PASS_CHUNK, |c0, [b]| {
        b.fill(0.0);
        // the masses occupy the unwrapped positions [off, off + m) for off = s and s − n
        for off in [s as i64, s as i64 - n as i64] {
            let lo = off.max(c0 as i64);
            let hi = (off + m as i64).min((c0 + b.len()) as i64);
            if lo < hi {
                let dst = &mut b[(lo - c0 as i64) as usize..(hi - c0 as i64) as usize];
                let src = &p.pmf[(lo - off) as usize..(hi - off) as usize];
                for (v, &w) in dst.iter_mut().zip(src) {
                    *v = 0.0 + w;
                }
            }
        }
        Ok(())
    })
}

/// The nonzero masses of `xs` with their grid indices (`xs[j]` at index `j0 + j`), in order:
/// the terms of the sparse direct DFT.
pub(super) fn nonzero_terms(xs: &[f64], j0: i64) -> Vec<(i64, f64)> {
    xs.iter()
        .enumerate()
        .filter(|(_, &x)| x != 0.0)
        .map(|(j, &x)| (j0 + j as i64, x))
        .collect()
}
