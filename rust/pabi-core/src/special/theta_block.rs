//! θ's block kernels (the array path): the formulas of the parent module over BLOCK lanes at a
//! time, organised so that the latency-bound polynomial pass runs over BLOCK independent lanes
//! (several SIMD registers in flight) and the rarer forms (the erfcx pair of the far complement
//! lanes, ln θ's complement form) are evaluated only on the lanes that need them (gathered,
//! then scattered back). Bitwise equal to the scalar functions per lane.

use super::*;

/// Lanes per block.
pub const BLOCK: usize = 32;
/// Lanes per polynomial pass where the CPU has no AVX-512 ([`poly_wide`]), for the complements'
/// kernels: the pass keeps 2·W/lanes-per-register accumulators in registers. With AVX2 (4 lanes,
/// 16 registers) W = 16 holds 8 accumulators (W = BLOCK spilled two or three of them every step,
/// ~10 % of θ's time); AVX-512 (8 lanes, 32 registers) takes W = BLOCK (8 independent chains,
/// enough to hide the FMA latency). The per-lane arithmetic is the same for every W: the values
/// do not depend on it.
const POLY_W_NARROW: usize = 16;
/// [`POLY_W_NARROW`] for θ and ln θ. At W = 16 the 8 accumulators, the 8 loop-invariant argument
/// vectors and the coefficient need 17 registers: the compiler kept the arguments and stored two
/// accumulators to the stack at every step, so two chains paid a store-to-load round trip per
/// step. W = 8 fits (4 chains); measured on one thread (AVX2, 2026-11-28): θ 14.4 → 14.0 and
/// ln θ 20.7 → 19.7 ns/point, but the complements were slower (1 − θ 19.5 → 21.7), so they keep 16.
const POLY_W_THETA: usize = 8;

/// Whether the polynomial pass runs over the whole block (AVX-512, and targets other than
/// x86-64, whose vector registers are as many as AVX-512's) rather than [`POLY_W_NARROW`]
/// lanes at a time. A cached run-time check (one load per block): the block kernels are
/// inlined into every multiversioned caller, which cannot name its own target here, and the
/// AVX-512 version is the one selected where the CPU has AVX-512.
#[inline(always)]
fn poly_wide() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        true
    }
}
/// Lanes evaluated together in the gathered complement stage (a multiple divides BLOCK).
const GROUP: usize = 8;

/// Structure-of-arrays storage of [`Pre`] for one block (so every stage loop vectorizes).
struct PreBlock {
    a: [f64; BLOCK],
    b: [f64; BLOCK],
    ha_hi: [f64; BLOCK],
    ha_lo: [f64; BLOCK],
    ac: [f64; BLOCK],
    bc: [f64; BLOCK],
    inv: [f64; BLOCK],
    sa: [f64; BLOCK],
    sb: [f64; BLOCK],
    hd: [f64; BLOCK],
    r: [f64; BLOCK],
    fixed: [f64; BLOCK],
}

impl PreBlock {
    /// Zeroed storage (every lane is overwritten by [`PreBlock::set`] before it is read).
    #[inline(always)]
    fn zeroed() -> PreBlock {
        let z = [0.0_f64; BLOCK];
        PreBlock {
            a: z,
            b: z,
            ha_hi: z,
            ha_lo: z,
            ac: z,
            bc: z,
            inv: z,
            sa: z,
            sb: z,
            hd: z,
            r: z,
            fixed: z,
        }
    }

    #[inline(always)]
    fn set(&mut self, j: usize, p: Pre) {
        self.a[j] = p.a;
        self.b[j] = p.b;
        self.ha_hi[j] = p.ha_hi;
        self.ha_lo[j] = p.ha_lo;
        self.ac[j] = p.ac;
        self.bc[j] = p.bc;
        self.inv[j] = p.inv;
        self.sa[j] = p.sa;
        self.sb[j] = p.sb;
        self.hd[j] = p.hd;
        self.r[j] = p.r;
        self.fixed[j] = p.fixed;
    }

    #[inline(always)]
    fn get(&self, j: usize) -> Pre {
        Pre {
            a: self.a[j],
            b: self.b[j],
            ha_hi: self.ha_hi[j],
            ha_lo: self.ha_lo[j],
            ac: self.ac[j],
            bc: self.bc[j],
            inv: self.inv[j],
            sa: self.sa[j],
            sb: self.sb[j],
            hd: self.hd[j],
            r: self.r[j],
            fixed: self.fixed[j],
        }
    }
}

/// The finishing formula of a block kernel, as a type: static dispatch through an
/// `#[inline(always)]` method. (Passing the `fin_*` functions as `impl Fn` values goes through
/// the compiler's `Fn::call` shim, which is not always inlined; the shim is compiled without the
/// caller's target features, so the large log finishers ran per lane with software FMAs,
/// ~12× slower.)
trait Finish {
    /// The member's scalar function (bitwise the same value per lane): a short partial block
    /// takes it lane by lane ([`SCALAR_LANES`]).
    const SCALAR: fn(f64, f64) -> f64;
    /// The finishing formula of one lane (`v` = the divided difference, `y` = the complement
    /// factor).
    fn fin(p: &Pre, v: f64, y: f64) -> f64;
    /// The same over a block (bitwise equal per lane).
    #[inline(always)]
    fn fin_block(p: &PreBlock, v: &[f64; BLOCK], y: &[f64; BLOCK], out: &mut [f64; BLOCK]) {
        for j in 0..BLOCK {
            out[j] = Self::fin(&p.get(j), v[j], y[j]);
        }
    }
}

macro_rules! finish {
    ($ty:ident, $f:ident, $scalar:ident) => {
        struct $ty;
        impl Finish for $ty {
            const SCALAR: fn(f64, f64) -> f64 = $scalar;
            #[inline(always)]
            fn fin(p: &Pre, v: f64, y: f64) -> f64 {
                $f(p, num(v), y)
            }
        }
    };
}
finish!(FinTheta, fin_theta, theta);
finish!(FinThetaComplement, fin_theta_complement, theta_complement);
finish!(
    FinLogThetaComplement,
    fin_log_theta_complement,
    log_theta_complement
);

struct FinLogTheta;
impl Finish for FinLogTheta {
    const SCALAR: fn(f64, f64) -> f64 = log_theta;
    #[inline(always)]
    fn fin(p: &Pre, v: f64, y: f64) -> f64 {
        fin_log_theta(p, num(v), y)
    }
    #[inline(always)]
    fn fin_block(p: &PreBlock, v: &[f64; BLOCK], y: &[f64; BLOCK], out: &mut [f64; BLOCK]) {
        fin_log_theta_block(p, v, y, out);
    }
}

/// Which member of the θ family a block kernel computes, as [`pre`] reads it: |a| clamped at
/// `clamp_a` (40 for the values, [`LOG_A_MAX`] for the logarithms), and the lanes with
/// a < `comp_below` reading the complement factor (−1 for θ and ln θ, 0 for the complements).
#[derive(Clone, Copy)]
struct Form {
    clamp_a: f64,
    comp_below: f64,
}

const THETA: Form = Form {
    clamp_a: 40.0,
    comp_below: -1.0,
};
const LOG_THETA: Form = Form {
    clamp_a: LOG_A_MAX,
    comp_below: -1.0,
};
const COMPLEMENT: Form = Form {
    clamp_a: 40.0,
    comp_below: 0.0,
};
const LOG_COMPLEMENT: Form = Form {
    clamp_a: LOG_A_MAX,
    comp_below: 0.0,
};

/// One block of `form` with the polynomial pass width of the CPU and the form.
#[inline(always)]
fn block_eval<F: Finish>(p: &mut PreBlock, eps: &[f64], r: &[f64], out: &mut [f64], form: Form) {
    if out.len() <= SCALAR_LANES {
        for ((o, &e), &x) in out.iter_mut().zip(eps).zip(r) {
            *o = F::SCALAR(e, x);
        }
        return;
    }
    if poly_wide() {
        block_eval_w::<F, BLOCK>(p, eps, r, out, form);
    } else if form.comp_below < 0.0 {
        // θ and ln θ (a constant after inlining: one branch is compiled)
        block_eval_w::<F, POLY_W_THETA>(p, eps, r, out, form);
    } else {
        block_eval_w::<F, POLY_W_NARROW>(p, eps, r, out, form);
    }
}

/// [`block_eval`] with the polynomial pass W lanes at a time.
#[inline(always)]
fn block_eval_w<F: Finish, const W: usize>(
    p: &mut PreBlock,
    eps: &[f64],
    r: &[f64],
    out: &mut [f64],
    form: Form,
) {
    let n = out.len().min(eps.len()).min(r.len()).min(BLOCK);
    if n == BLOCK {
        // Fixed-size views: with the lengths known at compile time every stage loop vectorizes
        // over all BLOCK lanes (with slices, bounds checks left a scalar epilogue of 8 lanes).
        if let (Ok(e), Ok(x), Ok(o)) = (
            <&[f64; BLOCK]>::try_from(&eps[..BLOCK]),
            <&[f64; BLOCK]>::try_from(&r[..BLOCK]),
            <&mut [f64; BLOCK]>::try_from(&mut out[..BLOCK]),
        ) {
            block_full::<F, W>(p, e, x, o, form);
        }
    } else {
        // Partial block: padded with harmless lanes (ε = r = 1).
        let mut e = [1.0_f64; BLOCK];
        let mut x = [1.0_f64; BLOCK];
        e[..n].copy_from_slice(&eps[..n]);
        x[..n].copy_from_slice(&r[..n]);
        let mut o = [0.0_f64; BLOCK];
        block_full::<F, W>(p, &e, &x, &mut o, form);
        out[..n].copy_from_slice(&o[..n]);
    }
}

#[inline(always)]
fn block_full<F: Finish, const W: usize>(
    p: &mut PreBlock,
    eps: &[f64; BLOCK],
    r: &[f64; BLOCK],
    out: &mut [f64; BLOCK],
    form: Form,
) {
    let Form {
        clamp_a,
        comp_below,
    } = form;
    for j in 0..BLOCK {
        p.set(j, pre(eps[j], r[j], clamp_a, comp_below));
    }
    // Polynomial pass, k outer so that W lanes (several registers) run in parallel. In the
    // complements' kernels (`comp_below` = 0, a constant after inlining) a lane with a < −1
    // takes the complement form from `erfcx_pos` ([`comp_near`] is false there) and reads
    // neither u nor v, so a group of W such lanes (large r) skips the pass. (Not a < 0: ln(1 − θ)
    // takes the divided-difference θ for a ∈ [−1, 0) where θ ≤ ½. θ and ln θ do not test:
    // measured, the test cost more there than the rare skips saved.)
    let (mut u, mut v) = ([0.0_f64; BLOCK], [0.0_f64; BLOCK]);
    for h in 0..BLOCK / W {
        let s = h * W;
        if comp_below >= 0.0 && p.a[s..s + W].iter().all(|&a| a < -1.0) {
            continue;
        }
        poly_pass::<W>(
            &p.sa[s..s + W],
            &p.sb[s..s + W],
            &mut u[s..s + W],
            &mut v[s..s + W],
        );
    }
    // Complement factor: from the polynomial pass near the origin; the rare lanes with
    // −a > POLY_COMP_MAX (r ≳ 16) take erfcx_pos, found from a bit mask and gathered in groups
    // of GROUP lanes (one AVX-512 register; padded lanes get harmless arguments, so each group
    // is one straight-line vector evaluation).
    let mut y = [1.0_f64; BLOCK];
    let mut far = 0_u64;
    for j in 0..BLOCK {
        let near = comp_near(p.a[j], p.b[j], comp_below);
        y[j] = if near {
            comp_y_near(p.hd[j], v[j], u[j])
        } else {
            1.0
        };
        far |= ((!near & (p.a[j] < comp_below)) as u64) << j;
    }
    if far != 0 {
        let mut ga = [[-2.0_f64; GROUP]; BLOCK / GROUP];
        let mut gb = [[1.0_f64; GROUP]; BLOCK / GROUP];
        let mut cnt = 0;
        let mut m = far;
        while m != 0 {
            let j = m.trailing_zeros() as usize % BLOCK;
            ga[cnt / GROUP % (BLOCK / GROUP)][cnt % GROUP] = p.a[j];
            gb[cnt / GROUP % (BLOCK / GROUP)][cnt % GROUP] = p.b[j];
            cnt += 1;
            m &= m - 1;
        }
        let mut gy = [[1.0_f64; GROUP]; BLOCK / GROUP];
        let groups = cnt.div_ceil(GROUP);
        for ((gy, ga), gb) in gy.iter_mut().zip(&ga).zip(&gb).take(groups) {
            for t in 0..GROUP {
                gy[t] = comp_y_far(ga[t], gb[t]);
            }
        }
        let mut t = 0;
        let mut m = far;
        while m != 0 {
            let j = m.trailing_zeros() as usize % BLOCK;
            y[j] = gy[t / GROUP % (BLOCK / GROUP)][t % GROUP];
            t += 1;
            m &= m - 1;
        }
    }
    F::fin_block(p, &v, &y, out);
}

/// The divided-difference recurrence of [`poly_dd`] over W lanes (`v` = DD, `u` = P(y)),
/// k outer: 2·W independent FMA chains. Fixed-size copies of the arguments, so that the
/// lane loop has no bounds checks and the accumulators stay in registers.
#[inline(always)]
fn poly_pass<const W: usize>(sa: &[f64], sb: &[f64], u: &mut [f64], v: &mut [f64]) {
    let (mut x, mut y) = ([0.0_f64; W], [0.0_f64; W]);
    x.copy_from_slice(&sa[..W]);
    y.copy_from_slice(&sb[..W]);
    let m = THETA_POLY.len();
    let (mut uu, mut vv) = ([THETA_POLY[m - 1]; W], [0.0_f64; W]);
    let mut k = m - 1;
    while k > 0 {
        k -= 1;
        let ck = THETA_POLY[k];
        for j in 0..W {
            vv[j] = vv[j].mul_add(x[j], uu[j]);
            uu[j] = uu[j].mul_add(y[j], ck);
        }
    }
    u[..W].copy_from_slice(&uu);
    v[..W].copy_from_slice(&vv);
}

/// The block kernels with their storage, reused across the blocks of one call: a storage zeroed
/// per block (3 KB) cost a `memset` per 32 lanes, ~5 % of θ's kernel. Every loop over blocks
/// holds one `ThetaBlocks` and calls its methods (every lane of the storage is written before it
/// is read, so the values do not depend on what it held).
pub struct ThetaBlocks {
    p: PreBlock,
}

impl Default for ThetaBlocks {
    #[inline(always)]
    fn default() -> Self {
        ThetaBlocks {
            p: PreBlock::zeroed(),
        }
    }
}

/// Lanes up to which [`block_eval`] evaluates a partial block lane by lane by the member's scalar
/// function ([`Finish::SCALAR`], bitwise the same values) instead of padding it to [`BLOCK`] lanes: a scalar call (one lane) paid the
/// whole block, ~0.8 µs of θ's 1.1 µs binding call. The scalar functions cost two to three
/// block lanes each, so a few lanes are cheaper alone.
const SCALAR_LANES: usize = 4;

impl ThetaBlocks {
    /// θ over a block of at most [`BLOCK`] lanes (bitwise equal to [`theta`] per lane).
    #[inline(always)]
    pub fn theta(&mut self, eps: &[f64], r: &[f64], out: &mut [f64]) {
        block_eval::<FinTheta>(&mut self.p, eps, r, out, THETA);
    }

    /// ln θ over a block (bitwise equal to [`log_theta`] per lane).
    #[inline(always)]
    pub fn log_theta(&mut self, eps: &[f64], r: &[f64], out: &mut [f64]) {
        block_eval::<FinLogTheta>(&mut self.p, eps, r, out, LOG_THETA);
    }

    /// 1 − θ over a block (bitwise equal to [`theta_complement`] per lane).
    #[inline(always)]
    pub fn theta_complement(&mut self, eps: &[f64], r: &[f64], out: &mut [f64]) {
        block_eval::<FinThetaComplement>(&mut self.p, eps, r, out, COMPLEMENT);
    }

    /// ln(1 − θ) over a block (bitwise equal to [`log_theta_complement`] per lane).
    #[inline(always)]
    pub fn log_theta_complement(&mut self, eps: &[f64], r: &[f64], out: &mut [f64]) {
        block_eval::<FinLogThetaComplement>(&mut self.p, eps, r, out, LOG_COMPLEMENT);
    }
}

/// a = ε/r − r/2 (rounded) from which [`theta_many`] skips a lane: there the exact a is ≥ 39,
/// e^{−a²/2} ≤ 2^-1097 and θ's kernel returns exactly TINY (the scaled product e^{−a²/2}·x,
/// x ≤ 2, truncates to 0 in `unscale`); checked lane by lane against the scalar θ in
/// `theta_tests.rs`.
const SKIP_A: f64 = 39.5;

/// Fewest skipped lanes for which [`theta_many`] moves a block's other lanes to the pending
/// block: the move (the copy in, the scatter back) costs about as much as four or five lanes of
/// the kernel. With one skipped lane in a block (θ(0.5, r) over r ~ 10^U[−2, 1], 3 % of lanes
/// skip) the move made the array 12 % slower.
const SKIP_MIN: usize = 6;

/// Whether a lane is in the domain of the θ family: ε ≥ 0, r ≥ 0 (not NaN), not both infinite
/// (branch-free, vectorizes).
#[inline(always)]
pub fn in_domain(eps: f64, r: f64) -> bool {
    (eps >= 0.0) & (r >= 0.0) & !(eps == f64::INFINITY && r == f64::INFINITY)
}

/// Whether [`theta_many`] may return TINY for the lane without running the kernel: ε finite,
/// r ≥ the smallest normal double (no special lane: r = 0 and ε = ∞ have fixed values; r = ∞
/// fails the last test, and is invalid beside ε = ∞) and ε ≥ r·(SKIP_A + r/2), i.e.
/// a ≥ [`SKIP_A`] up to two roundings (no division). NaN lanes are not skipped.
#[inline(always)]
fn skips(eps: f64, r: f64) -> bool {
    (eps < f64::INFINITY) & (r >= f64::MIN_POSITIVE) & (eps >= r * (SKIP_A + 0.5 * r))
}

/// θ over equal-length slices (bitwise equal to [`theta`] per lane, like [`ThetaBlocks::theta`]).
/// Lanes where θ underflows far below the smallest normal double (a ≥ 39: a third of the lanes
/// of `benches/bench_theta.py`'s workload) get TINY without the kernel. A block with fewer than
/// [`SKIP_MIN`] such lanes is evaluated in place; the others' running lanes are appended to a
/// pending block, evaluated when it is full (and once at the end, padded) and scattered back.
///
/// Returns whether every lane is in θ's domain ([`in_domain`]), tested in the same pass as the
/// skip (the array kernel's fused validation; the values of invalid lanes are discarded).
#[inline(always)]
pub fn theta_many(eps: &[f64], r: &[f64], out: &mut [f64]) -> bool {
    let n = out.len().min(eps.len()).min(r.len());
    let (eps, r, out) = (&eps[..n], &r[..n], &mut out[..n]);
    // pending lanes: fewer than BLOCK between blocks, each block appends up to BLOCK more
    let (mut pe, mut pr) = ([1.0_f64; 2 * BLOCK], [1.0_f64; 2 * BLOCK]);
    let mut pi = [0_usize; 2 * BLOCK];
    let mut pv = [0.0_f64; BLOCK];
    // one PreBlock for every block of the call (zeroing one per block cost a 3 KB memset each)
    let mut pb = ThetaBlocks::default();
    let mut np = 0_usize;
    let mut ok = true;
    for s in (0..n).step_by(BLOCK) {
        let t = (s + BLOCK).min(n);
        let (e, x) = (&eps[s..t], &r[s..t]);
        let mut skip = [false; BLOCK];
        let mut skipped = 0_usize;
        for ((k, &e), &x) in skip.iter_mut().zip(e).zip(x) {
            *k = skips(e, x);
            skipped += *k as usize;
            ok &= in_domain(e, x);
        }
        if skipped < SKIP_MIN {
            // in place: the kernel gives the skipped lanes' TINY itself
            pb.theta(e, x, &mut out[s..t]);
            continue;
        }
        out[s..t].fill(TINY);
        // branch-free append: every lane is written at the next free slot, which advances
        // past the lanes that run the kernel
        for (j, ((&e, &x), &k)) in e.iter().zip(x).zip(&skip).enumerate() {
            let q = np % (2 * BLOCK);
            (pe[q], pr[q], pi[q]) = (e, x, s + j);
            np += (!k) as usize;
        }
        if np >= BLOCK {
            pb.theta(&pe[..BLOCK], &pr[..BLOCK], &mut pv);
            for (&i, &v) in pi[..BLOCK].iter().zip(&pv) {
                out[i] = v;
            }
            np -= BLOCK;
            pe.copy_within(BLOCK..2 * BLOCK, 0);
            pr.copy_within(BLOCK..2 * BLOCK, 0);
            pi.copy_within(BLOCK..2 * BLOCK, 0);
        }
    }
    if np > 0 {
        pb.theta(&pe[..np], &pr[..np], &mut pv[..np]);
        for (&i, &v) in pi[..np].iter().zip(&pv[..np]) {
            out[i] = v;
        }
    }
    ok
}

/// θ over a block with the polynomial pass [`POLY_W_THETA`] lanes at a time whatever the
/// CPU (unit tests: both widths bitwise equal to the scalar function).
#[cfg(test)]
pub(super) fn theta_block_narrow(eps: &[f64], r: &[f64], out: &mut [f64]) {
    block_eval_w::<FinTheta, POLY_W_THETA>(&mut PreBlock::zeroed(), eps, r, out, THETA);
}

/// ln θ over a block with the narrow polynomial pass (unit tests).
#[cfg(test)]
pub(super) fn log_theta_block_narrow(eps: &[f64], r: &[f64], out: &mut [f64]) {
    block_eval_w::<FinLogTheta, POLY_W_THETA>(&mut PreBlock::zeroed(), eps, r, out, LOG_THETA);
}

/// θ over a block with the whole-block polynomial pass whatever the CPU (unit tests).
#[cfg(test)]
pub(super) fn theta_block_wide(eps: &[f64], r: &[f64], out: &mut [f64]) {
    block_eval_w::<FinTheta, BLOCK>(&mut PreBlock::zeroed(), eps, r, out, THETA);
}

/// [`fin_log_theta`] over a block (bitwise equal per lane: the same branch
/// [`log_theta_is_neg`] and finish [`log_theta_finish`]). The divided-difference form is
/// evaluated on every lane; the complement form (an exponential and a log1p) only on the
/// lanes that take it, gathered in groups of [`GROUP`] (a few per block on typical inputs:
/// computing both forms on every lane and selecting cost a third of the kernel).
#[inline(always)]
fn fin_log_theta_block(p: &PreBlock, v: &[f64; BLOCK], y: &[f64; BLOCK], out: &mut [f64; BLOCK]) {
    let mut neg = 0_u64;
    // The one-logarithm form on every lane when every lane that reads the divided-difference
    // form has a normal argument (the per-lane choice of `log_theta_pos` computes both forms in
    // vector code); the lanes that read the complement form discard it.
    let mut one = true;
    let mut xs = [0.0_f64; BLOCK];
    for (j, (x, &vj)) in xs.iter_mut().zip(v).enumerate() {
        let q = p.get(j);
        *x = pos_arg(&q, num(vj));
        one &= (*x >= f64::MIN_POSITIVE) | log_theta_is_neg(&q);
    }
    if one {
        for (j, &x) in xs.iter().enumerate() {
            let q = p.get(j);
            out[j] = log_theta_finish(&q, log_theta_pos_one(&q, x));
        }
    } else {
        for j in 0..BLOCK {
            let q = p.get(j);
            out[j] = log_theta_finish(&q, log_theta_pos(&q, num(v[j])));
        }
    }
    // (the mask in a loop of its own: folded into the loop above, the kernel measured 1.6 %
    // slower, 21.4 → 21.8 ns/point)
    for j in 0..BLOCK {
        neg |= (log_theta_is_neg(&p.get(j)) as u64) << j;
    }
    let mut m = neg;
    while m != 0 {
        let (mut gh, mut gl, mut gy) = ([0.0_f64; GROUP], [0.0_f64; GROUP], [0.5_f64; GROUP]);
        let mut idx = [0_usize; GROUP];
        let mut cnt = 0;
        while m != 0 && cnt < GROUP {
            let j = m.trailing_zeros() as usize % BLOCK;
            (gh[cnt], gl[cnt], gy[cnt], idx[cnt]) = (p.ha_hi[j], p.ha_lo[j], y[j], j);
            cnt += 1;
            m &= m - 1;
        }
        let mut gv = [0.0_f64; GROUP];
        for t in 0..GROUP {
            gv[t] = log_theta_neg(gh[t], gl[t], gy[t]);
        }
        for t in 0..cnt {
            let j = idx[t] % BLOCK;
            out[j] = log_theta_finish(&p.get(j), gv[t]);
        }
    }
}
