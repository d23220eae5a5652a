//! The suffix sums behind a composition's queries ([`Composition`](super::Composition)'s
//! `s0`, `s1`), in fixed chunks on the pool.

use crate::error::Result;

/// Window points per chunk of the suffix sums ([`suffix_sums`]).
const SUFFIX_BLOCK: usize = 1 << 14;

/// The suffix sums of the window's masses `pmf` (W points): s0[i] = Σ_{j≥i} pmf_j and
/// s1[i] = Σ_{j≥i} e^{−h(j−i)} pmf_j (`emh` = e^{−h} rounded), s0[W] = s1[W] = 0; returns the
/// window's mass Σ pmf_j. In chunks of [`SUFFIX_BLOCK`] points (fixed, so no value depends on
/// the thread count):
///
/// 1. per chunk but the first, on the pool: its mass and its weighted sum
///    L = Σ_t emh^t·pmf_{start+t} by the serial recursion L ← pmf_i + emh·L from the chunk's
///    top (four chunks side by side), and emh^len by squaring;
/// 2. serially over the chunks from the top, the values after each chunk: s0 += mass,
///    s1 ← L + emh^len·s1;
/// 3. per chunk, on the pool: the serial recursions started from those values (Kahan's
///    compensated sum for s0, s1 ← pmf_i + emh·s1) down to the chunk's first point, and the
///    chunk's mass summed from its first point up (an independent chain in the shadow of the
///    recursions); the window's mass is the sum of those in chunk order.
///
/// A window of one chunk gets exactly the operations of one serial pass. All terms are
/// non-negative, so each value's relative rounding error is bounded by the roundings along any
/// term's path: 2u + δ per step of a recursion (δ ≤ u/2: emh's own error, once per power of
/// e^{−h}), and per chunk crossed, instead of the chunk's 2u·len of steps, (2⌈log₂ len⌉ + 2)u
/// for emh^len by squaring, the product and the sum: within the (3W + 10)u that
/// `Composition::query_err` adds (the count of the one serial recursion).
pub(super) fn suffix_sums(pmf: &[f64], s0: &mut [f64], s1: &mut [f64], emh: f64) -> Result<f64> {
    let width = pmf.len();
    s0[width] = 0.0;
    s1[width] = 0.0;
    let chunks = width.div_ceil(SUFFIX_BLOCK);
    // (the size rule of `reduce_chunks` below)
    let par = width >= crate::driver::PAR_MIN;
    // emh^k by squaring
    let pw = |k: usize| {
        let (mut r, mut b, mut k) = (1.0f64, emh, k);
        while k > 0 {
            if k & 1 == 1 {
                r *= b;
            }
            b *= b;
            k >>= 1;
        }
        r
    };
    // pass 1: (mass, L, emh^len) of chunks 1, 2, … (chunk 0's is never used), four chunks per
    // task: their recursions interleaved (the same operations per chunk as alone, the four
    // chains side by side in vector lanes), a shorter chunk padded with zeros at its top
    // (0 + emh·0 = 0: the same values)
    const LANES: usize = 4;
    let groups = chunks.saturating_sub(1).div_ceil(LANES);
    let summary: Vec<(f64, f64, f64)> = crate::driver::map_range(groups as u64, par, |g| {
        let ids: [usize; LANES] = std::array::from_fn(|l| 1 + g as usize * LANES + l);
        let mut pad: Vec<f64> = Vec::new();
        let lens: [usize; LANES] = ids.map(|c| {
            if c < chunks {
                ((c + 1) * SUFFIX_BLOCK).min(width) - c * SUFFIX_BLOCK
            } else {
                0
            }
        });
        let full = |c: usize| &pmf[c * SUFFIX_BLOCK..(c + 1) * SUFFIX_BLOCK];
        if lens.iter().any(|&len| len < SUFFIX_BLOCK) {
            pad = vec![0.0; SUFFIX_BLOCK];
            if let Some(l) = (0..LANES).find(|&l| lens[l] > 0 && lens[l] < SUFFIX_BLOCK) {
                let c = ids[l];
                pad[..lens[l]].copy_from_slice(&pmf[c * SUFFIX_BLOCK..c * SUFFIX_BLOCK + lens[l]]);
            }
        }
        let w: [&[f64]; LANES] = std::array::from_fn(|l| {
            if lens[l] == SUFFIX_BLOCK {
                full(ids[l])
            } else {
                &pad[..]
            }
        });
        let (mut a, mut m) = ([0.0f64; LANES], [0.0f64; LANES]);
        for t in (0..SUFFIX_BLOCK).rev() {
            for l in 0..LANES {
                let x = w[l][t];
                a[l] = x + emh * a[l];
                m[l] += x;
            }
        }
        (0..LANES)
            .filter(|&l| lens[l] > 0)
            .map(|l| (m[l], a[l], pw(lens[l])))
            .collect::<Vec<_>>()
    })
    .concat();
    crate::interrupt::check()?;
    // pass 2: the values after each chunk, from the top
    let mut after = vec![(0.0f64, 0.0f64); chunks + 1];
    for c in (1..chunks).rev() {
        let (mass, l, p) = summary[c - 1];
        let (a0, a1) = after[c + 1];
        after[c] = (a0 + mass, l + p * a1);
    }
    // pass 3: the recursions inside each chunk, and its mass from the bottom up
    let run = |c: usize, o0: &mut [f64], o1: &mut [f64]| -> f64 {
        let w = &pmf[c * SUFFIX_BLOCK..c * SUFFIX_BLOCK + o0.len()];
        let (mut n0, mut n1) = after[c + 1];
        let (mut k, mut mass) = (0.0, 0.0);
        let rows = w.iter().zip(o0.iter_mut()).zip(o1.iter_mut()).rev().zip(w);
        for (((&x, v0), v1), &up) in rows {
            // Kahan on s0
            let y = x - k;
            let t = n0 + y;
            k = (t - n0) - y;
            n0 = t;
            *v0 = t;
            n1 = x + emh * n1;
            *v1 = n1;
            mass += up;
        }
        mass
    };
    // chunk by chunk (the driver's chunks are the suffix chunks: serially one call over the
    // whole window, which walks them in order), the masses added in chunk order
    crate::driver::reduce_chunks(
        [&mut s0[..width], &mut s1[..width]],
        crate::driver::PAR_MIN,
        SUFFIX_BLOCK,
        |start, [o0, o1]| {
            let mut mass = 0.0;
            for (i, (a, b)) in o0
                .chunks_mut(SUFFIX_BLOCK)
                .zip(o1.chunks_mut(SUFFIX_BLOCK))
                .enumerate()
            {
                crate::interrupt::check()?;
                mass += run(start / SUFFIX_BLOCK + i, a, b);
            }
            Ok(mass)
        },
        |acc, m| acc + m,
    )
}
