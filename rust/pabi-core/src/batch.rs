//! The engine's array functions: validation (first bad index), run-time SIMD dispatch, and the
//! chunked parallel map of [`crate::driver`].
//!
//! Every public function here takes equally long input slices and an output slice, validates
//! the inputs (reporting the first offending flat index), then maps the elementwise kernel
//! over the arrays. The kernels are compiled several times by `multiversion` (AVX-512,
//! AVX2+FMA, NEON, portable) and the best clone for the running CPU is picked at run time.
//! Arrays of at least [`PAR_MIN`] elements are split into chunks over the private rayon pool of
//! [`crate::driver`] (size set with [`set_num_threads`]; rebuilt after `fork()`).
//!
//! The pool is only built when a call actually takes a parallel path ([`Pool::install`]): a
//! scalar or small call never spawns threads, whatever the thread count. Between chunks the
//! driver checks [`crate::interrupt`], so a long call stops within one chunk once a stop is
//! requested. With one thread the large-array path still runs chunk by chunk (on the pool's
//! single worker), so it stays interruptible; the values do not depend on the thread count
//! (every chunk is computed by the same kernel).

use crate::driver::{at, blocks};
/// The thread pool and its settings live in [`crate::driver`]; re-exported here (the binding
/// and the bounds' modules use these paths).
pub use crate::driver::{
    num_threads, pool, pool_built, set_num_threads, Pool, MAX_THREADS, PAR_MIN,
};
use crate::error::{PabiError, Result};
use crate::{lambertw, tail, theta};

/// Elements per parallel task.
const CHUNK: usize = 1 << 13;

// ---------------------------------------------------------------------------------------------
// Validation

/// Index of the first element failing `ok`, scanning in vectorizable blocks; arrays of at
/// least [`CHECK_PAR_MIN`] elements are scanned in parallel, in chunks of [`CHECK_CHUNK`]
/// (the first failing chunk wins, so the index does not depend on the thread count). A serial
/// scan of a 1e7-element argument (80 MB) took ~8 ms, a tenth of a 16-thread call.
pub fn first_bad(xs: &[f64], ok: impl Fn(f64) -> bool + Sync) -> Option<usize> {
    if xs.len() >= CHECK_PAR_MIN {
        if let Some(p) = pool() {
            return p.install(|| {
                use rayon::prelude::*;
                xs.par_chunks(CHECK_CHUNK)
                    .enumerate()
                    .find_map_first(|(k, c)| first_bad_serial(c, &ok).map(|j| k * CHECK_CHUNK + j))
            });
        }
    }
    first_bad_serial(xs, ok)
}

/// Arguments at least this long are validated in parallel ([`first_bad`]).
const CHECK_PAR_MIN: usize = 1 << 20;
/// Elements per parallel validation task.
const CHECK_CHUNK: usize = 1 << 16;

fn first_bad_serial(xs: &[f64], ok: impl Fn(f64) -> bool) -> Option<usize> {
    for (k, block) in xs.chunks(1024).enumerate() {
        if !block.iter().fold(true, |acc, &x| acc & ok(x)) {
            let j = block.iter().position(|&x| !ok(x)).unwrap_or(0);
            return Some(k * 1024 + j);
        }
    }
    None
}

/// Check one array argument against its domain.
pub fn check(
    xs: &[f64],
    param: &'static str,
    allowed: &'static str,
    ok: impl Fn(f64) -> bool + Sync,
) -> Result<()> {
    match first_bad(xs, ok) {
        Some(i) => Err(PabiError::domain(param, allowed, xs[i]).at(i)),
        None => Ok(()),
    }
}

/// Check the input lengths against the output length `n`: each input has length `n` or 1 (a
/// broadcast value: the same at every element, read in place, never expanded to `n`).
pub fn check_len(n: usize, others: &[(&'static str, usize)]) -> Result<()> {
    for &(name, m) in others {
        if m != n && m != 1 {
            return Err(PabiError::Shape {
                message: format!(
                    "{name} has length {m}, expected {n} or 1 (arrays must have equal lengths or be broadcast)"
                ),
            });
        }
    }
    Ok(())
}

const EPS_ALLOWED: &str = ">= 0 and not NaN";
const R_ALLOWED: &str = ">= 0 and not NaN";

/// The public name of the mean shift r of the θ family (the glossary's `shift`).
const SHIFT: &str = "shift";

fn check_eps_r(eps: &[f64], r: &[f64], out: &[f64]) -> Result<()> {
    check_len(out.len(), &[("eps", eps.len()), (SHIFT, r.len())])?;
    check(eps, "eps", EPS_ALLOWED, |x| x >= 0.0)?;
    check(r, SHIFT, R_ALLOWED, |x| x >= 0.0)?;
    let n = out.len();
    if let Some(i) = (0..n).find(|&i| at(eps, i) == f64::INFINITY && at(r, i) == f64::INFINITY) {
        return Err(PabiError::domain(
            SHIFT,
            "finite where eps is infinite (theta(inf, inf) is undefined)",
            at(r, i),
        )
        .at(i));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// SIMD-dispatched slice kernels

macro_rules! simd_map1 {
    ($name:ident, $f:path) => {
        simd! {
            fn $name(x: &[f64], out: &mut [f64]) {
                for (o, &a) in out.iter_mut().zip(x) {
                    *o = $f(a);
                }
            }
        }
    };
}

macro_rules! simd_map2 {
    ($name:ident, $f:path) => {
        simd! {
            fn $name(x: &[f64], y: &[f64], out: &mut [f64]) {
                let n = out.len();
                if n == 0 {
                    return;
                }
                match (x.len() == n, y.len() == n) {
                    (true, true) => {
                        for ((o, &a), &b) in out.iter_mut().zip(x).zip(y) {
                            *o = $f(a, b);
                        }
                    }
                    (false, true) => {
                        let a = x[0];
                        for (o, &b) in out.iter_mut().zip(y) {
                            *o = $f(a, b);
                        }
                    }
                    (true, false) => {
                        let b = y[0];
                        for (o, &a) in out.iter_mut().zip(x) {
                            *o = $f(a, b);
                        }
                    }
                    (false, false) => out.fill($f(x[0], y[0])),
                }
            }
        }
    };
}

simd_map1!(k_gaussian_tail, tail::gaussian_tail);
simd_map1!(k_log_gaussian_tail, tail::log_gaussian_tail);
/// ε ≥ 0, r ≥ 0 (not NaN) and not both infinite, for every lane (branch-free, vectorizes).
#[inline(always)]
fn eps_r_valid(eps: &[f64], r: &[f64]) -> bool {
    eps.iter()
        .zip(r)
        .fold(true, |acc, (&e, &x)| acc & theta::in_domain(e, x))
}

/// Run `$body` (a `bool` expression on `$a`, `$b`, `$o`) over `$out` in chunks of `$lanes`,
/// `$a`/`$b` the matching chunks of `$x`/`$y`, or, for a length-1 input (a broadcast value),
/// chunks of one stack copy of it (no copy as long as the array); the verdicts and-ed.
macro_rules! broadcast_chunks {
    ($x:ident, $y:ident, $out:ident, $lanes:expr, |$a:ident, $b:ident, $o:ident| $body:expr) => {{
        let n = $out.len();
        let first = |v: &[f64]| v.first().copied().unwrap_or(0.0);
        let (xb, yb) = ([first($x); $lanes], [first($y); $lanes]);
        let mut ok = true;
        for (k, $o) in $out.chunks_mut($lanes).enumerate() {
            let (s, m) = (k * $lanes, $o.len());
            let $a = if $x.len() == n {
                &$x[s..s + m]
            } else {
                &xb[..m]
            };
            let $b = if $y.len() == n {
                &$y[s..s + m]
            } else {
                &yb[..m]
            };
            ok &= $body;
        }
        ok
    }};
}

/// θ-family block kernels with the domain check fused into the same pass (the block is in L1
/// when it is checked): returns whether every lane was valid. The kernels are plain arithmetic
/// on any input (no panic, no out-of-bounds access), so invalid lanes only produce values that
/// the caller discards.
macro_rules! simd_block2 {
    ($name:ident, $m:ident) => {
        simd! {
            fn $name(x: &[f64], y: &[f64], out: &mut [f64]) -> bool {
                let mut tb = theta::ThetaBlocks::default();
                broadcast_chunks!(x, y, out, theta::BLOCK, |a, b, o| {
                    let ok = eps_r_valid(a, b);
                    tb.$m(a, b, o);
                    ok
                })
            }
        }
    };
}

/// Lanes per stack copy of a broadcast (length-1) argument in [`k_theta`]. Measured (one
/// thread, θ(ε, r) for a scalar ε and 2e6 radii r ~ 10^U[−2, 1], against the block-by-block path
/// it replaced): ε = 5 (a third of the lanes skip) 17.1 → 13.6 ns/point, θ(ε array, r = 0.1)
/// 17.1 → 9.6, ε = 0.5 (3 % skip) 17.1 → 17.9 (the skip test, paid where it rarely skips). 256
/// lanes (one pending flush per 256) was slower in all three.
const BROADCAST_LANES: usize = 32 * theta::BLOCK;

simd! {
    /// θ by [`theta::theta_many`] (its underflow skip, with the domain check): over the whole
    /// chunk where both inputs are full arrays, else [`BROADCAST_LANES`] lanes at a time.
    fn k_theta(x: &[f64], y: &[f64], out: &mut [f64]) -> bool {
        if x.len() == out.len() && y.len() == out.len() {
            return theta::theta_many(x, y, out);
        }
        broadcast_chunks!(x, y, out, BROADCAST_LANES, |a, b, o| theta::theta_many(a, b, o))
    }
}
simd_block2!(k_log_theta, log_theta);
simd_block2!(k_theta_complement, theta_complement);
simd_block2!(k_log_theta_complement, log_theta_complement);
simd_map2!(k_laplace_theta, theta::laplace_theta);
simd_map2!(k_laplace_theta_complement, theta::laplace_theta_complement);

fn k_lambertw(x: &[f64], out: &mut [f64]) {
    for (o, &a) in out.iter_mut().zip(x) {
        *o = lambertw::lambertw0(a);
    }
}

fn k_wright_omega(x: &[f64], out: &mut [f64]) {
    for (o, &a) in out.iter_mut().zip(x) {
        *o = lambertw::wright_omega(a);
    }
}

/// Run `k` over `out` (and the matching chunks of `x`); large arrays chunk by chunk over the
/// pool, checking for an interrupt before each chunk ([`crate::driver::blocks`]).
pub fn run1(x: &[f64], out: &mut [f64], k: fn(&[f64], &mut [f64])) -> Result<()> {
    blocks([x], out, PAR_MIN, CHUNK, |[a], o| k(a, o), |(), ()| ())
}

/// [`run1`] with two inputs.
pub fn run2(
    x: &[f64],
    y: &[f64],
    out: &mut [f64],
    k: fn(&[f64], &[f64], &mut [f64]),
) -> Result<()> {
    run2_with(x, y, out, k, |(), ()| (), PAR_MIN, CHUNK)
}

/// Arrays from this length are split over the pool by [`run2_heavy`] (its chunk length too):
/// 256 elements of a kernel costing ~1–2 µs each (an inversion: a search of ~20 evaluations)
/// are ~0.4 ms of work, far above the cost of a parallel dispatch, while [`PAR_MIN`] = 32768
/// (sized for the ~10 ns engine kernels) kept a 20,000-point `gdp_epsilon` on one thread.
pub const HEAVY_PAR_MIN: usize = 256;

/// [`run2`] for kernels whose elements cost a microsecond or more (the GDP inversions): the
/// same driver with [`HEAVY_PAR_MIN`] as threshold and chunk length (a multiple of
/// [`theta::BLOCK`], so a block kernel sees whole blocks). Values do not depend on it.
pub fn run2_heavy(
    x: &[f64],
    y: &[f64],
    out: &mut [f64],
    k: fn(&[f64], &[f64], &mut [f64]),
) -> Result<()> {
    const _: () = assert!(HEAVY_PAR_MIN % theta::BLOCK == 0);
    run2_with(x, y, out, k, |(), ()| (), HEAVY_PAR_MIN, HEAVY_PAR_MIN)
}

/// Like [`run2`] for kernels that also validate their lanes: true iff every chunk was valid.
fn run2_checked(
    x: &[f64],
    y: &[f64],
    out: &mut [f64],
    k: fn(&[f64], &[f64], &mut [f64]) -> bool,
) -> Result<bool> {
    run2_with(x, y, out, k, |a, b| a & b, PAR_MIN, CHUNK)
}

/// [`run2`] for kernels returning a verdict per chunk, the verdicts combined by `all`; arrays
/// from `par_min` elements split over the pool in chunks of `chunk`.
fn run2_with<R: Send>(
    x: &[f64],
    y: &[f64],
    out: &mut [f64],
    k: fn(&[f64], &[f64], &mut [f64]) -> R,
    all: fn(R, R) -> R,
    par_min: usize,
    chunk: usize,
) -> Result<R> {
    blocks([x, y], out, par_min, chunk, |[a, b], o| k(a, b, o), all)
}

// ---------------------------------------------------------------------------------------------
// Public array API

/// Q(t) = P(N(0,1) > t) elementwise. t: any real (±inf allowed), not NaN.
pub fn gaussian_tail(t: &[f64], out: &mut [f64]) -> Result<()> {
    check_len(out.len(), &[("x", t.len())])?;
    check(t, "x", "a real number (not NaN)", |x| !x.is_nan())?;
    run1(t, out, k_gaussian_tail)
}

/// ln Q(t) elementwise.
pub fn log_gaussian_tail(t: &[f64], out: &mut [f64]) -> Result<()> {
    check_len(out.len(), &[("x", t.len())])?;
    check(t, "x", "a real number (not NaN)", |x| !x.is_nan())?;
    run1(t, out, k_log_gaussian_tail)
}

macro_rules! eps_r_fn {
    ($(#[$doc:meta])* $name:ident, $kernel:ident) => {
        $(#[$doc])*
        pub fn $name(eps: &[f64], r: &[f64], out: &mut [f64]) -> Result<()> {
            check_eps_r(eps, r, out)?;
            run2(eps, r, out, $kernel)
        }
    };
}

/// θ-family array functions: validation fused into the (parallel) kernel pass; only when some
/// lane is invalid is the sequential check run again, for the first bad index and the message.
macro_rules! eps_r_checked_fn {
    ($(#[$doc:meta])* $name:ident, $kernel:ident) => {
        $(#[$doc])*
        pub fn $name(eps: &[f64], r: &[f64], out: &mut [f64]) -> Result<()> {
            check_len(out.len(), &[("eps", eps.len()), (SHIFT, r.len())])?;
            if run2_checked(eps, r, out, $kernel)? {
                return Ok(());
            }
            check_eps_r(eps, r, out)?;
            Err(PabiError::internal("a theta kernel flagged an input that passes validation"))
        }
    };
}

eps_r_checked_fn!(
    /// θ_{e^ε}(r) elementwise, rounded up ([`theta::theta`]).
    theta, k_theta
);
eps_r_checked_fn!(
    /// ln θ_{e^ε}(r) elementwise, rounded up ([`theta::log_theta`]).
    log_theta, k_log_theta
);
eps_r_checked_fn!(
    /// 1 − θ_{e^ε}(r) elementwise, rounded down ([`theta::theta_complement`]).
    theta_complement, k_theta_complement
);
eps_r_checked_fn!(
    /// ln(1 − θ_{e^ε}(r)) elementwise, rounded down ([`theta::log_theta_complement`]).
    log_theta_complement, k_log_theta_complement
);
eps_r_fn!(
    /// Laplace hockey-stick divergence max(0, 1 − e^{(ε−r)/2}) elementwise, rounded up.
    laplace_theta, k_laplace_theta
);
eps_r_fn!(
    /// 1 − laplace_theta elementwise, rounded down.
    laplace_theta_complement, k_laplace_theta_complement
);

/// −1/e rounded to the nearest double (slightly below the true −1/e; W0 there is taken as −1,
/// the branch point, as SciPy and Boost do): the smallest accepted x.
pub const MINUS_INV_E: f64 = -0.36787944117144233;

/// Principal-branch Lambert W elementwise, x >= −1/e.
pub fn lambertw(x: &[f64], out: &mut [f64]) -> Result<()> {
    check_len(out.len(), &[("x", x.len())])?;
    check(x, "x", ">= -1/e (-0.36787944117144233) and not NaN", |v| {
        v >= MINUS_INV_E
    })?;
    run1(x, out, k_lambertw)
}

/// Wright omega ω(x) = W0(e^x) elementwise (x any real, not NaN), never forming e^x.
pub fn wright_omega(x: &[f64], out: &mut [f64]) -> Result<()> {
    check_len(out.len(), &[("x", x.len())])?;
    check(x, "x", "a real number (not NaN)", |v| !v.is_nan())?;
    run1(x, out, k_wright_omega)
}

/// The widest SIMD instruction set the dispatched kernels use on this CPU.
pub fn simd_level() -> &'static str {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f")
            && std::is_x86_feature_detected!("avx512vl")
            && std::is_x86_feature_detected!("avx512dq")
            && std::is_x86_feature_detected!("avx2")
            && std::is_x86_feature_detected!("fma")
        {
            return "avx512";
        }
        if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
            return "avx2+fma";
        }
    }
    #[cfg(target_arch = "aarch64")]
    {
        return "neon";
    }
    #[allow(unreachable_code)]
    "portable"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bad_index_is_reported() {
        let mut eps = vec![0.5; 5000];
        let r = vec![1.0; 5000];
        let mut out = vec![0.0; 5000];
        eps[3001] = f64::NAN;
        eps[4000] = -1.0;
        let err = theta(&eps, &r, &mut out).unwrap_err();
        match err {
            PabiError::Domain {
                param,
                index,
                value,
                ..
            } => {
                assert_eq!(param, "eps");
                assert_eq!(index, Some(3001));
                assert!(value.is_nan());
            }
            _ => panic!("wrong error {err:?}"),
        }
        assert_eq!(
            theta(&[0.5], &[-2.0], &mut [0.0]).unwrap_err().to_string(),
            "shift must be >= 0 and not NaN, got -2 at index 0"
        );
        assert!(matches!(
            theta(&[1.0, 2.0], &[1.0, 2.0, 3.0], &mut [0.0, 0.0]),
            Err(PabiError::Shape { .. })
        ));
        // a length-1 input is broadcast in place: the same values as the expanded input
        let (mut a, mut b) = ([0.0; 2], [0.0; 2]);
        theta(&[1.0, 2.0], &[1.0], &mut a).unwrap();
        theta(&[1.0, 2.0], &[1.0, 1.0], &mut b).unwrap();
        assert_eq!(a, b);
        assert!(theta(&[f64::INFINITY], &[f64::INFINITY], &mut [0.0]).is_err());
        assert!(lambertw(&[-0.37], &mut [0.0]).is_err());
        assert!(lambertw(&[MINUS_INV_E], &mut [0.0]).is_ok());
    }

    #[test]
    fn broadcast_inputs_are_read_in_place() {
        // a length-1 input against a long one (parallel chunks, partial last block) gives the
        // values of the expanded input, for the block kernels and the plain map kernels
        let n = PAR_MIN * 2 + 37;
        let r: Vec<f64> = (0..n).map(|i| (i % 211) as f64 * 0.03).collect();
        type F = fn(&[f64], &[f64], &mut [f64]) -> Result<()>;
        let fns: [F; 6] = [
            theta,
            log_theta,
            theta_complement,
            log_theta_complement,
            laplace_theta,
            laplace_theta_complement,
        ];
        for f in fns {
            let (mut one, mut full) = (vec![0.0; n], vec![0.0; n]);
            f(&[0.8], &r, &mut one).unwrap();
            f(&vec![0.8; n], &r, &mut full).unwrap();
            assert_eq!(one, full);
            f(&r, &[1.7], &mut one).unwrap();
            f(&r, &vec![1.7; n], &mut full).unwrap();
            assert_eq!(one, full);
            f(&[0.8], &[1.7], &mut one).unwrap();
            assert!(one.iter().all(|&x| x == one[0]));
            f(&[0.8], &[], &mut []).unwrap();
        }
    }

    #[test]
    fn parallel_and_serial_paths_agree_bitwise() {
        let n = PAR_MIN * 3 + 17;
        let eps: Vec<f64> = (0..n).map(|i| (i % 97) as f64 * 0.1).collect();
        let r: Vec<f64> = (0..n).map(|i| 0.01 + (i % 89) as f64 * 0.05).collect();
        let mut par = vec![0.0; n];
        theta(&eps, &r, &mut par).unwrap();
        let mut ser = vec![0.0; n];
        k_theta(&eps, &r, &mut ser);
        assert_eq!(par, ser);
    }
}
