//! The suffix sums behind a composition's queries ([`Composition`](super::Composition)'s
//! s0, s1), in fixed chunks: summarised on the pool when the composition is made, each chunk's
//! values formed the first time a query reads one of them.

use std::sync::OnceLock;

use crate::error::Result;

/// Window points per chunk of the suffix sums ([`Suffix`]).
const SUFFIX_BLOCK: usize = 1 << 14;

/// Chunks one ε(δ) query forms when each is formed as it is first read: its five bisections
/// (upper end twice, estimate, lower end twice) share most of them; about 15 at 44 chunks
/// (T = 1e5, one-thread time of the queries 0.63 ms against 3.3 ms for all 44).
const SEARCH_CHUNKS: usize = 15;

/// The suffix sums of a window's masses `pmf` (W points): s0[i] = Σ_{j≥i} pmf_j and
/// s1[i] = Σ_{j≥i} e^{−h(j−i)} pmf_j (`emh` = e^{−h} rounded), s0[W] = s1[W] = 0. In chunks of
/// [`SUFFIX_BLOCK`] points (fixed, so no value depends on the thread count):
///
/// 1. per chunk, on the pool ([`Suffix::new`]): its mass and its weighted sum
///    L = Σ_t emh^t·pmf_{start+t} by the serial recursion L ← pmf_i + emh·L from the chunk's
///    top (four chunks side by side), emh^len by squaring, and its mass summed from its first
///    point up (an independent chain in the same loop); the window's mass is the sum of the
///    last in chunk order;
/// 2. serially over the chunks from the top, the values after each chunk: s0 += mass,
///    s1 ← L + emh^len·s1;
/// 3. per chunk, when a query first reads one of its values ([`Suffix::at`]; all of them on
///    the pool by [`Suffix::fill`]): the serial recursions started from those values (Kahan's
///    compensated sum for s0, s1 ← pmf_i + emh·s1) down to the chunk's first point.
///
/// A query reads the sums at a few points (a bisection over the window touches about
/// log₂(chunks) + 1 chunks), so step 3 runs on a few chunks instead of the whole window: it was
/// the serial, memory-writing part, ~20 % of a composition of 2.8·10^5 points. The values do
/// not depend on when or in which order the chunks are formed: each is the same function of
/// `pmf` and of the values of steps 1–2.
///
/// A window of one chunk gets exactly the operations of one serial pass. All terms are
/// non-negative, so each value's relative rounding error is bounded by the roundings along any
/// term's path: 2u + δ per step of a recursion (δ ≤ u/2: emh's own error, once per power of
/// e^{−h}), and per chunk crossed, instead of the chunk's 2u·len of steps, (2⌈log₂ len⌉ + 2)u
/// for emh^len by squaring, the product and the sum: within the (3W + 10)u that
/// `Composition::query_err` adds (the count of the one serial recursion).
#[derive(Debug, Clone)]
pub(super) struct Suffix {
    emh: f64,
    width: usize,
    /// (s0, s1) just above chunk c (at its top point + 1) at index c + 1, for c < chunks;
    /// `after[chunks]` = (0, 0)
    after: Vec<(f64, f64)>,
    /// chunk c's s0 and s1 at each of its points, interleaved, once formed (buffers of the
    /// composition's pool, `buffers.rs`, given back when the sums are dropped)
    formed: Vec<OnceLock<Vec<f64>>>,
    /// set once [`Suffix::fill`] has formed every chunk
    filled: OnceLock<()>,
}

impl Drop for Suffix {
    fn drop(&mut self) {
        for f in self.formed.iter_mut() {
            if let Some(v) = f.take() {
                super::buffers::give(v);
            }
        }
    }
}

impl Suffix {
    /// Steps 1 and 2 for the window `pmf` (on the pool for long windows); returns the sums and
    /// the window's mass Σ pmf_j.
    pub(super) fn new(pmf: &[f64], emh: f64) -> Result<(Suffix, f64)> {
        let width = pmf.len();
        let chunks = width.div_ceil(SUFFIX_BLOCK);
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
        // step 1: (top-down mass, L, emh^len, bottom-up mass) of every chunk, four chunks per
        // task: their recursions interleaved (the same operations per chunk as alone, the four
        // chains side by side in vector lanes), a shorter chunk padded with zeros at its top
        // (0 + emh·0 = 0 and m + 0 = m: the same values)
        const LANES: usize = 4;
        let groups = chunks.div_ceil(LANES);
        let summary: Vec<(f64, f64, f64, f64)> =
            crate::driver::map_range(groups as u64, par, |g| {
                let ids: [usize; LANES] = std::array::from_fn(|l| g as usize * LANES + l);
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
                        pad[..lens[l]]
                            .copy_from_slice(&pmf[c * SUFFIX_BLOCK..c * SUFFIX_BLOCK + lens[l]]);
                    }
                }
                let w: [&[f64]; LANES] = std::array::from_fn(|l| {
                    if lens[l] == SUFFIX_BLOCK {
                        full(ids[l])
                    } else {
                        &pad[..]
                    }
                });
                let (mut a, mut m, mut up) = ([0.0f64; LANES], [0.0f64; LANES], [0.0f64; LANES]);
                for t in (0..SUFFIX_BLOCK).rev() {
                    for l in 0..LANES {
                        let x = w[l][t];
                        a[l] = x + emh * a[l];
                        m[l] += x;
                        up[l] += w[l][SUFFIX_BLOCK - 1 - t];
                    }
                }
                (0..LANES)
                    .filter(|&l| lens[l] > 0)
                    .map(|l| (m[l], a[l], pw(lens[l]), up[l]))
                    .collect::<Vec<_>>()
            })
            .concat();
        crate::interrupt::check()?;
        // step 2: the values after each chunk, from the top (chunk 0's summary is not needed)
        let mut after = vec![(0.0f64, 0.0f64); chunks + 1];
        for c in (1..chunks).rev() {
            let (mass, l, p, _) = summary[c];
            let (a0, a1) = after[c + 1];
            after[c] = (a0 + mass, l + p * a1);
        }
        // the window's mass: the chunks' upward sums in chunk order
        let mass = summary.iter().fold(0.0, |acc, s| acc + s.3);
        let formed = (0..chunks).map(|_| OnceLock::new()).collect();
        Ok((
            Suffix {
                emh,
                width,
                after,
                formed,
                filled: OnceLock::new(),
            },
            mass,
        ))
    }

    /// Step 3 for chunk c: the recursions from the values above it down to its first point.
    fn form(&self, pmf: &[f64], c: usize) -> Vec<f64> {
        let lo = c * SUFFIX_BLOCK;
        let w = &pmf[lo..(lo + SUFFIX_BLOCK).min(self.width)];
        let (mut n0, mut n1) = self.after[c + 1];
        let mut k = 0.0;
        let mut out = super::buffers::any::<f64>(2 * w.len());
        for (&x, v) in w.iter().zip(out.chunks_exact_mut(2)).rev() {
            // Kahan on s0
            let y = x - k;
            let t = n0 + y;
            k = (t - n0) - y;
            n0 = t;
            n1 = x + self.emh * n1;
            v[0] = t;
            v[1] = n1;
        }
        out
    }

    /// (s0, s1) at window point `k` ≤ W of the window `pmf` these sums were made from.
    #[inline]
    pub(super) fn at(&self, pmf: &[f64], k: usize) -> (f64, f64) {
        if k >= self.width {
            return (0.0, 0.0);
        }
        let c = k / SUFFIX_BLOCK;
        let v = self.formed[c].get_or_init(|| self.form(pmf, c));
        let i = 2 * (k - c * SUFFIX_BLOCK);
        (v[i], v[i + 1])
    }

    /// Every chunk formed, on the pool for long windows (before many queries; once).
    pub(super) fn fill(&self, pmf: &[f64]) {
        self.filled.get_or_init(|| {
            let par = self.width >= crate::driver::PAR_MIN;
            crate::driver::map_range(self.formed.len() as u64, par, |c| {
                let c = c as usize;
                self.formed[c].get_or_init(|| self.form(pmf, c));
            });
        });
    }

    /// Before a search of ε (a few bisections over the window): every chunk formed on the pool
    /// when that takes at most half as many rounds of chunks as the search would form one by one
    /// on the calling thread (about [`SEARCH_CHUNKS`]), i.e. from about 8 threads on for a
    /// window of 44 chunks. 16-core device, 2026-11-28: the serial searches took 0.8 ms of a
    /// 10 ms DP-SGD ε at T = 1e5 on 16 threads. The values are the same either way.
    pub(super) fn prepare_search(&self, pmf: &[f64]) {
        let chunks = self.formed.len();
        let threads = crate::driver::num_threads();
        if threads > 1 && 2 * chunks.div_ceil(threads) <= SEARCH_CHUNKS.min(chunks) {
            self.fill(pmf);
        }
    }
}
