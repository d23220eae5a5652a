//! The one array driver of pabi-core: equal-length slices, K inputs → one or several outputs,
//! the first bad index, cooperative interrupts, and a chunked parallel map on the shared pool
//! whose results do not depend on the thread count.
//!
//! # The pool
//!
//! One private rayon pool per process ([`pool`], sized by [`set_num_threads`] /
//! `PABI_NUM_THREADS`, at most [`MAX_THREADS`]), built only when a call takes a parallel path
//! ([`Pool::install`]) and rebuilt after `fork()` (`PerProcess`, also the crate's caches'
//! lock: a child never takes a lock the parent's threads may have held). Arrays shorter than
//! the caller's threshold (usually [`PAR_MIN`]) run on the calling thread in one piece.
//! [`on_workers`] runs one task on each of several workers (that claim work from a counter:
//! [`scan_rev`] and the PLD cache's shared builds).
//!
//! # The drivers
//!
//! * [`reduce_chunks`] — the core: M equally long output slices, cut into chunks of `chunk`
//!   elements; each chunk runs `k(start, [out chunks; M])` after an [`interrupt::check`], in
//!   parallel on the pool when `n >= par_min` (else one call `k(0, outs)` on the calling
//!   thread, without the check). The per-chunk results are combined in index order and the
//!   error of the **smallest** failing chunk is returned (every chunk runs to its end or its own
//!   error; no chunk's outcome depends on another's), so the values and the error do not
//!   depend on the number of threads. [`for_chunks`] is the same for `()` results.
//! * [`blocks`] — the block variant for SIMD block kernels (`k(&[inputs chunk], out chunk)`,
//!   what [`crate::batch`] does for θ): the inputs are sliced to the chunk for the kernel.
//! * [`map_elementwise`] — a scalar function `f([x; N]) -> Result<[y; K]>` over N equally long
//!   inputs into K outputs: [`interrupt::check`] before each element, an error located with
//!   [`PabiError::at`] at its element (the first bad index overall, by the rule above).
//!   [`map_into`] (one output) and [`map_rows`] (K outputs in one row-major `(K, n)` vector)
//!   are its two common shapes; [`check_lengths`] runs first, with the caller's shape error.
//! * [`scan_rev`] — a suffix scan over chunks with a carry from the later chunks: each chunk's
//!   own work, the carry, then the chunk's finish, the chunks claimed from the last in one
//!   parallel pass (a chunk waits only for the carry of the chunk after it), the carries
//!   formed in the same order on every path.
//!
//! Chunking never changes a value: every driver here is elementwise (element i's value depends
//! only on the inputs at i), so the chunk size only sets the granularity of the parallel work
//! and of the interrupt checks. Each caller keeps its chunk size and threshold (below).
//!
//! # Who uses it
//!
//! Every elementwise array function of the crate: the engine's block kernels (`batch::run1`,
//! `run2`, `run2_checked`: [`blocks`], chunk 8192 from [`PAR_MIN`]), the PNSGD bounds and their
//! lock-step inversions (`pnsgd::drive`/`drive_solve`/`factors`: [`for_chunks`]), the schedules
//! (`schedules::schedule_delta`: [`for_chunks`]; `schedules::map_args`, the elementwise map of
//! the bindings: [`map_into`], chunk 4096), the RDP element-wise maps of the binding
//! ([`map_rows`], chunk 2048), the sampled-Gaussian tables ([`blocks`]) and the cells of the
//! DP-SGD PLD discretisation (`composition/pld/discretise.rs`: [`for_chunks`], blocks of 1024
//! cells) and the online suffix scan (`schedules/online/suffix.rs`: [`scan_rev`], chunks of
//! 8192 steps). Each keeps its chunk size and threshold; the values do not depend on them.
//!
//! The remaining pool users are not elementwise maps and stay as they are (they call [`pool`]
//! and [`num_threads`] directly): the chunked integral sum of `schedules/online/` (its own
//! `CH`), the per-step terms of the Hölder composition in `rdp/per_instance.rs`
//! (`with_min_len(64)`, each row's sensitivities checked in the same pass; its per-step orders
//! through [`map_range`]; its divergences at fractional orders, one per distinct sensitivity of
//! a row, through [`for_chunks`] in chunks of 16 before that pass), the block fold of the per-step PNSGD bound in `pnsgd/steps_blocks.rs` (fixed blocks of 2^16
//! pieces, combined in order), the parallel validation of long arguments in
//! `batch::first_bad` (chunks of 2^16, the first failing chunk wins) and the `rayon::join` of
//! the two neighbouring relations in `composition/dpsgd.rs`.
//!
//! # Output memory
//!
//! [`zero_on_pool`], [`zero_fill`], [`fill_uninit`], [`fill_to`] and [`zeroed_output`]: outputs and
//! recycled buffers are zeroed on the pool where one serial `memset` would be the serial part of
//! a parallel call (the binding's outputs below 32 MiB, whose `calloc` reuses heap blocks; the
//! PLD composition's recycled buffers, `composition/pld/buffers.rs`).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicPtr, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use rayon::prelude::*;

use crate::error::{PabiError, Result};
use crate::interrupt;

/// Arrays shorter than this are processed on the calling thread (the threshold of most
/// callers; each driver takes its own `par_min`).
pub const PAR_MIN: usize = 1 << 15;

// ---------------------------------------------------------------------------------------------
// Thread pool (moved from `batch`, which re-exports it)

/// The largest accepted number of worker threads. The kernels are CPU-bound, so more workers
/// than hardware threads only add scheduling overhead; the cap is a fixed number (rather than
/// a multiple of the CPU count) so that a script valid on one machine is valid on every other,
/// and it keeps the one-off cost of building the pool bounded (each worker is an OS thread
/// with a 2 MiB stack reservation: 1024 workers reserve 2 GiB of address space and take a few
/// tens of milliseconds to spawn). Unbounded, `set_num_threads(2**63)` never returned.
pub const MAX_THREADS: usize = 1024;

/// A mutex-guarded value of which every process has its own: after a `fork()` the child's
/// first [`PerProcess::lock`] sees another pid and starts from a fresh `init()`, **without
/// taking the parent's lock** (a thread of the parent may have held it at the fork; that thread
/// does not exist in the child, so the lock would never be released), and whatever the parent
/// held (a pool's workers, builds other threads were computing) is leaked, never dropped or
/// joined. The pid is checked before locking, on every call (one `getpid`).
pub(crate) struct PerProcess<T> {
    /// The current process's (pid, value), a leaked box (null: not used yet); replaced, never
    /// freed, when the pid differs.
    cur: AtomicPtr<(u32, Mutex<T>)>,
    init: fn() -> T,
    _value: PhantomData<Mutex<T>>,
}

impl<T> PerProcess<T> {
    /// Not used yet: `init()` on first use in each process.
    pub(crate) const fn new(init: fn() -> T) -> Self {
        PerProcess {
            cur: AtomicPtr::new(std::ptr::null_mut()),
            init,
            _value: PhantomData,
        }
    }

    /// This process's value, locked (a poisoned lock is taken over: the values kept this way
    /// are caches and registries that every writer leaves consistent).
    pub(crate) fn lock(&self) -> MutexGuard<'_, T> {
        self.lock_as(std::process::id())
    }

    /// [`Self::lock`] as process `pid` (the tests' fork).
    fn lock_as(&self, pid: u32) -> MutexGuard<'_, T> {
        let mut p = self.cur.load(Ordering::Acquire);
        // SAFETY: a non-null pointer is a box leaked below, never freed
        if p.is_null() || unsafe { (*p).0 } != pid {
            let fresh = Box::into_raw(Box::new((pid, Mutex::new((self.init)()))));
            p = match self
                .cur
                .compare_exchange(p, fresh, Ordering::AcqRel, Ordering::Acquire)
            {
                Ok(_) => fresh,
                Err(other) => {
                    // another thread of this process installed its value first
                    // SAFETY: `fresh` was never shared
                    drop(unsafe { Box::from_raw(fresh) });
                    other
                }
            };
        }
        // SAFETY: as above
        let m = unsafe { &(*p).1 };
        m.lock().unwrap_or_else(|e| e.into_inner())
    }
}

struct PoolState {
    threads: usize,
    pool: Arc<rayon::ThreadPool>,
}

/// The pool, per process: after a `fork()` the parent's worker threads do not exist in the
/// child, so the child builds its own and the parent's is leaked rather than joined.
static POOL: PerProcess<Option<PoolState>> = PerProcess::new(|| None);
/// The thread count set by [`set_num_threads`] (0: not set, use [`default_threads`]).
static REQUESTED: AtomicUsize = AtomicUsize::new(0);

/// `PABI_NUM_THREADS`, else the available parallelism, at most [`MAX_THREADS`]; read once per
/// process (the lookup reads cgroup files and costs ~10 µs, which dominated small calls when
/// done on every call).
fn default_threads() -> usize {
    static DEFAULT: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *DEFAULT.get_or_init(read_default_threads)
}

fn read_default_threads() -> usize {
    std::env::var("PABI_NUM_THREADS")
        .ok()
        .and_then(|s| s.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
        .unwrap_or_else(|| {
            std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
        })
        .min(MAX_THREADS)
}

/// Number of worker threads used for large arrays.
pub fn num_threads() -> usize {
    match REQUESTED.load(Ordering::Relaxed) {
        0 => default_threads(),
        n => n,
    }
}

/// Set the number of worker threads, 1..=[`MAX_THREADS`] (1 disables parallelism). Takes
/// effect on the next call that uses the pool.
pub fn set_num_threads(n: usize) -> Result<()> {
    if !(1..=MAX_THREADS).contains(&n) {
        return Err(PabiError::domain(
            "threads",
            "an integer >= 1 and <= 1024",
            n as f64,
        ));
    }
    REQUESTED.store(n, Ordering::Relaxed);
    Ok(())
}

/// A handle on the worker pool of the current thread count. Getting one is cheap (no thread is
/// spawned); the pool itself is built (or looked up) by [`Pool::install`], which the callers
/// only reach on their parallel paths.
#[derive(Clone, Copy, Debug)]
pub struct Pool {
    threads: usize,
}

impl Pool {
    /// Run `op` inside the pool (its parallel iterators use the pool's workers), building the
    /// pool on first use. Should the OS refuse to spawn the workers, `op` runs on the calling
    /// thread instead (rayon then uses its global pool).
    pub fn install<OP, R>(&self, op: OP) -> R
    where
        OP: FnOnce() -> R + Send,
        R: Send,
    {
        match shared_pool(self.threads) {
            Some(p) => p.install(op),
            None => op(),
        }
    }
}

/// The pool handle for the current thread count (always `Some`; an `Option` so that the
/// callers' `match pool() { Some(p) if long => p.install(..), _ => serial }` reads naturally).
/// One thread gives a one-worker pool: the large-array paths then still run chunk by chunk,
/// checking for interrupts between chunks.
pub fn pool() -> Option<Pool> {
    Some(Pool {
        threads: num_threads(),
    })
}

/// The process's pool of `threads` workers, built on first use (rebuilt when the count
/// changes; a fresh one after a `fork()`, see [`POOL`]).
fn shared_pool(threads: usize) -> Option<Arc<rayon::ThreadPool>> {
    let mut guard = POOL.lock();
    if let Some(st) = guard.as_ref() {
        if st.threads == threads {
            return Some(st.pool.clone());
        }
    }
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .thread_name(|i| format!("pabi-{i}"))
        .build()
        .ok()?;
    let arc = Arc::new(built);
    *guard = Some(PoolState {
        threads,
        pool: arc.clone(),
    });
    Some(arc)
}

/// Whether the pool of the current process has been built (for tests: small calls must not
/// build it).
pub fn pool_built() -> bool {
    POOL.lock().is_some()
}

/// Run `worker` as `workers` tasks on the shared pool, e.g. workers that claim items from a
/// shared counter until none is left (one task, or no pool: once on this thread).
pub fn on_workers(workers: usize, worker: impl Fn() + Sync) {
    match pool() {
        Some(p) if workers > 1 => p.install(|| (0..workers).into_par_iter().for_each(|_| worker())),
        _ => worker(),
    }
}

/// Outputs of at least this many bytes come zeroed from `calloc` without any write: glibc serves
/// them from fresh `mmap` pages (its dynamic mmap threshold never exceeds 32 MiB on 64-bit).
const CALLOC_FRESH_BYTES: usize = 32 << 20;

/// Whether an output of `len` values is best zeroed on the pool ([`zero_fill`]) rather than
/// taken zeroed from `calloc`.
///
/// `calloc` zeroes a block it reuses from the heap with one serial `memset` on the calling
/// thread, and glibc reuses freed blocks for every size up to its dynamic mmap threshold (which
/// grows to 32 MiB once such a block has been freed): a 4e6-value output was zeroed serially
/// before each call of a parallel kernel, ~2.5 ms of a 6 ms `theta` on 16 threads (2026-11-28).
/// Outputs of at least [`PAR_MIN`] values and below 32 MiB (`CALLOC_FRESH_BYTES`) are therefore
/// allocated uninitialised and zeroed on the pool (their pages are then also first touched by
/// the workers that later write them); shorter ones, longer ones (fresh pages, zero already)
/// and every output with one thread come from `calloc`.
pub fn zero_on_pool(len: usize) -> bool {
    len >= PAR_MIN && len < CALLOC_FRESH_BYTES / std::mem::size_of::<f64>() && num_threads() > 1
}

/// Write 0.0 to every element of `out`, on the pool in chunks of 2^16 values.
pub fn zero_fill(out: &mut [std::mem::MaybeUninit<f64>]) {
    fill_uninit(out, 0.0)
}

/// Write `value` to every element of `out`: on the pool in chunks of 2^16 elements from
/// [`PAR_MIN`] elements on (a serial `memset` of a few megabytes is ~0.5 ms, a sizeable serial
/// part of a 16-thread composition), else on the calling thread.
pub fn fill_uninit<T: Copy + Send + Sync>(out: &mut [std::mem::MaybeUninit<T>], value: T) {
    let put = |c: &mut [std::mem::MaybeUninit<T>]| c.fill(std::mem::MaybeUninit::new(value));
    match pool() {
        Some(p) if out.len() >= PAR_MIN && num_threads() > 1 => {
            p.install(|| out.par_chunks_mut(1 << 16).for_each(put))
        }
        _ => put(out),
    }
}

/// A vector of `len` zeros for an output array ([`zero_on_pool`] says how it is zeroed), or
/// `None` when it cannot be allocated.
pub fn zeroed_output(len: usize) -> Option<Vec<f64>> {
    if len == 0 {
        return Some(Vec::new());
    }
    if !zero_on_pool(len) {
        let layout = std::alloc::Layout::array::<f64>(len).ok()?;
        // SAFETY: `layout` has a non-zero size (len > 0); the pointer is checked for null; the
        // block is `len` zeroed (hence valid) f64 values allocated by the global allocator with
        // the layout of `[f64; len]`, which is what `Vec::from_raw_parts` requires.
        return unsafe {
            let ptr = std::alloc::alloc_zeroed(layout).cast::<f64>();
            (!ptr.is_null()).then(|| Vec::from_raw_parts(ptr, len, len))
        };
    }
    let mut v: Vec<f64> = Vec::new();
    v.try_reserve_exact(len).ok()?;
    fill_to(&mut v, len, 0.0);
    Some(v)
}

/// `v` truncated to `len` elements, or extended to it with `value` ([`fill_uninit`]: on the pool
/// for a long extension). A missing capacity is reserved as `Vec::resize` would (callers that
/// must not abort reserve it fallibly first).
pub fn fill_to<T: Copy + Send + Sync>(v: &mut Vec<T>, len: usize, value: T) {
    let have = v.len();
    if len <= have {
        v.truncate(len);
        return;
    }
    v.reserve_exact(len - have);
    fill_uninit(&mut v.spare_capacity_mut()[..len - have], value);
    // SAFETY: the elements [have, len) were written above; the capacity is at least len
    unsafe { v.set_len(len) };
}

// ---------------------------------------------------------------------------------------------
// Lengths

/// Check that every argument has length `n` or 1 (a length-1 argument is broadcast: the same
/// value at every element, a stride-0 view, never materialised); the first one that has
/// neither gives `shape(its length, n)`.
#[inline]
pub fn check_lengths(
    args: &[&[f64]],
    n: usize,
    shape: impl Fn(usize, usize) -> PabiError,
) -> Result<()> {
    match args.iter().find(|a| a.len() != n && a.len() != 1) {
        Some(a) => Err(shape(a.len(), n)),
        None => Ok(()),
    }
}

/// The broadcast length of arguments of lengths 1 or n: 0 if any is empty, else the longest
/// (1 when every argument is a single value). The lengths are checked by [`check_lengths`].
#[inline]
pub fn broadcast_len(lens: impl IntoIterator<Item = usize>) -> usize {
    let mut n = 1;
    for m in lens {
        if m == 0 {
            return 0;
        }
        n = n.max(m);
    }
    n
}

/// Element `i` of a broadcast argument (length 1: its one value at every element).
#[inline(always)]
pub fn at(a: &[f64], i: usize) -> f64 {
    if a.len() == 1 {
        a[0]
    } else {
        a[i]
    }
}

/// `f` of every item, in their order: in parallel on the shared pool when there are several
/// (each item a whole task, e.g. one composition or one calibration), else on this thread.
/// For many independent whole computations (the many-target calibrations and compositions);
/// element-wise kernels use the chunked drivers below.
pub fn each<T: Send, R: Send>(items: Vec<T>, f: impl Fn(T) -> R + Sync + Send) -> Vec<R> {
    match pool() {
        Some(pool) if items.len() > 1 => pool.install(|| items.into_par_iter().map(f).collect()),
        _ => items.into_iter().map(f).collect(),
    }
}

/// `f(0), f(1), ..., f(n − 1)`, in order: in parallel on the shared pool when `parallel` (the
/// caller's size rule) and there is a pool, else on this thread. For per-index work whose
/// results are combined in index order afterwards (chunk sums, per-step tables), so the
/// result is the same for every thread count.
pub fn map_range<R: Send>(n: u64, parallel: bool, f: impl Fn(u64) -> R + Sync + Send) -> Vec<R> {
    match pool() {
        Some(pool) if parallel && n > 1 => pool.install(|| (0..n).into_par_iter().map(f).collect()),
        _ => (0..n).map(f).collect(),
    }
}

/// The outer result of [`each`] over tasks that check for a stop request: `Interrupted` if
/// any task was stopped, else every task's own result.
pub fn unless_interrupted<R>(out: Vec<Result<R>>) -> Result<Vec<Result<R>>> {
    if out.iter().any(|r| matches!(r, Err(PabiError::Interrupted))) {
        return Err(PabiError::Interrupted);
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Chunked drivers

/// Run `k(start, chunks)` over M equally long output slices cut into chunks of `chunk`
/// elements (see the module docs): serial in one call below `par_min` (and for empty
/// outputs), else in parallel on the pool with an interrupt check before each chunk; the
/// chunks' results combined in chunk order by `combine`, or the error of the first failing
/// chunk. `chunk` 0 is treated as 1. The serial path allocates nothing.
pub fn reduce_chunks<R: Send, const M: usize>(
    outs: [&mut [f64]; M],
    par_min: usize,
    chunk: usize,
    k: impl Fn(usize, [&mut [f64]; M]) -> Result<R> + Sync,
    combine: impl Fn(R, R) -> R,
) -> Result<R> {
    let n = outs.first().map_or(0, |o| o.len());
    let chunk = chunk.max(1);
    match pool() {
        Some(p) if n >= par_min && n > 0 => {
            let mut iters = outs.map(|o| o.chunks_mut(chunk));
            let mut parts: Vec<[&mut [f64]; M]> = Vec::with_capacity(n.div_ceil(chunk));
            for _ in 0..n.div_ceil(chunk) {
                parts.push(iters.each_mut().map(|it| it.next().unwrap_or_default()));
            }
            let res: Vec<Result<R>> = p.install(|| {
                parts
                    .into_par_iter()
                    .enumerate()
                    .map(|(c, o)| interrupt::check().and_then(|_| k(c * chunk, o)))
                    .collect()
            });
            let mut it = res.into_iter();
            // n > 0: at least one chunk
            let mut acc = it.next().unwrap_or(Err(PabiError::Interrupted))?;
            for r in it {
                acc = combine(acc, r?);
            }
            Ok(acc)
        }
        _ => k(0, outs),
    }
}

/// [`reduce_chunks`] for kernels without a per-chunk result.
pub fn for_chunks<const M: usize>(
    outs: [&mut [f64]; M],
    par_min: usize,
    chunk: usize,
    k: impl Fn(usize, [&mut [f64]; M]) -> Result<()> + Sync,
) -> Result<()> {
    reduce_chunks(outs, par_min, chunk, k, |(), ()| ())
}

/// The block variant for SIMD block kernels: `k([input chunks; N], out chunk)` over the
/// matching chunks of N inputs (each as long as `out` or of length 1, checked by the caller)
/// and `out`; the kernel's per-chunk values combined in chunk order. Serial in one call below
/// `par_min`. A length-1 input is handed to every chunk as is (a broadcast value, never
/// expanded here): the kernel reads it as the value of every element of its chunk.
pub fn blocks<R: Send, const N: usize>(
    ins: [&[f64]; N],
    out: &mut [f64],
    par_min: usize,
    chunk: usize,
    k: impl Fn([&[f64]; N], &mut [f64]) -> R + Sync,
    combine: impl Fn(R, R) -> R,
) -> Result<R> {
    reduce_chunks(
        [out],
        par_min,
        chunk,
        |start, [o]| {
            let end = start + o.len();
            Ok(k(
                ins.map(|a| if a.len() == 1 { a } else { &a[start..end] }),
                o,
            ))
        },
        combine,
    )
}

/// `outs[q][i] = f([args[0][i], ..])[q]` for every element i (the outputs as long as
/// `outs[0]`, the arguments that long or of length 1 (broadcast, [`at`]), checked with
/// [`check_lengths`] and `shape` first); an interrupt check before each element; the first
/// failing element's error, located at its index.
pub fn map_elementwise<const N: usize, const K: usize>(
    args: [&[f64]; N],
    outs: [&mut [f64]; K],
    par_min: usize,
    chunk: usize,
    shape: impl Fn(usize, usize) -> PabiError,
    f: impl Fn([f64; N]) -> Result<[f64; K]> + Sync,
) -> Result<()> {
    let n = outs.first().map_or(0, |o| o.len());
    check_lengths(&args, n, &shape)?;
    if let Some(o) = outs.iter().find(|o| o.len() != n) {
        return Err(shape(o.len(), n));
    }
    for_chunks(outs, par_min, chunk, |start, o| {
        for j in 0..o.first().map_or(0, |x| x.len()) {
            interrupt::check()?;
            let i = start + j;
            let y = f(args.map(|a| at(a, i))).map_err(|e| e.at(i))?;
            for (q, v) in y.into_iter().enumerate() {
                o[q][j] = v;
            }
        }
        Ok(())
    })
}

/// [`map_elementwise`] with one output.
pub fn map_into<const N: usize>(
    args: [&[f64]; N],
    out: &mut [f64],
    par_min: usize,
    chunk: usize,
    shape: impl Fn(usize, usize) -> PabiError,
    f: impl Fn([f64; N]) -> Result<f64> + Sync,
) -> Result<()> {
    map_elementwise(args, [out], par_min, chunk, shape, |x| f(x).map(|y| [y]))
}

/// [`map_elementwise`] into a new row-major `(K, n)` vector (n = the inputs' broadcast length
/// [`broadcast_len`], every input checked against it before the vector is allocated).
pub fn map_rows<const N: usize, const K: usize>(
    args: [&[f64]; N],
    par_min: usize,
    chunk: usize,
    shape: impl Fn(usize, usize) -> PabiError,
    f: impl Fn([f64; N]) -> Result<[f64; K]> + Sync,
) -> Result<Vec<f64>> {
    let n = broadcast_len(args.iter().map(|a| a.len()));
    check_lengths(&args, n, &shape)?;
    let mut out = vec![0.0; K * n];
    let mut rows = out.chunks_mut(n.max(1));
    let outs: [&mut [f64]; K] = std::array::from_fn(|_| rows.next().unwrap_or_default());
    map_elementwise(args, outs, par_min, chunk, shape, f)?;
    Ok(out)
}

// ---------------------------------------------------------------------------------------------
// Scan from the last chunk to the first

/// The value of `cell` once another thread has set it: spin briefly, then yield. Only for a
/// cell that a running thread is certain to set soon (a claimed chunk of work, each set even
/// when its work panics), never for one that may stay empty.
pub(crate) fn spin_get<T>(cell: &std::sync::OnceLock<T>) -> &T {
    let mut spins = 0u32;
    loop {
        if let Some(v) = cell.get() {
            return v;
        }
        spins += 1;
        if spins < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// A scan over `out` cut into chunks of `chunk` elements, taken from the last chunk to the first
/// with a carry (a suffix scan): for each chunk c, `first(start, out chunk, buf)` (the chunk's
/// own work, e.g. the expensive per-element terms; `buf` is a per-worker scratch from
/// `scratch`) returns its summary s_c; the carry before the chunk is `link(carry after it, s_c)`
/// (`init` after the last chunk); then `second(out chunk, buf, carry after the chunk)` finishes
/// it. The carries are formed by the same calls in the same order (chunk by chunk from the
/// last) on every path, so the result does not depend on the thread count.
///
/// With several `workers` on the pool, one pass: each worker
/// claims the next chunk in descending order, runs `first` on it, waits for the carry after it
/// (published by the worker that claimed the chunk after it, which claimed it earlier and is
/// running), publishes the carry before it, and runs `second` while the chunk and its scratch
/// are still in cache. A two-pass scan in groups of chunks with a barrier between the passes
/// (what the online suffix scan did) reread every chunk from memory and left workers idle at
/// each barrier: 1.24× from 1 to 2 threads on 1e7 steps.
///
/// An interrupt is checked before each chunk (a stopped scan skips the remaining chunks'
/// work and returns `Interrupted`).
///
/// `first`, `link` and `second` must not use the pool (a worker waiting for a carry must not
/// pick up another task, which could wait for a chunk buried under it). A panic in `first` or
/// `link` publishes "skipped" for its chunk, so the workers waiting on it stop and the panic
/// reaches the caller instead of leaving them spinning.
///
/// `workers` tasks claim chunks (1: serially on this thread; the caller's size rule picks
/// [`num_threads`] or 1). Any number is safe whatever the pool's size: a chunk only waits for
/// the chunk after it, claimed earlier by a task that is running (tasks that share a worker
/// run one after the other, and a task only stops when every chunk is claimed).
#[allow(clippy::too_many_arguments)]
pub fn scan_rev<C, S, B>(
    out: &mut [f64],
    chunk: usize,
    workers: usize,
    init: C,
    scratch: impl Fn() -> B + Sync,
    first: impl Fn(usize, &mut [f64], &mut B) -> S + Sync,
    link: impl Fn(C, S) -> C + Sync,
    second: impl Fn(&mut [f64], &mut B, C) + Sync,
) -> Result<()>
where
    C: Copy + Send + Sync,
{
    use std::sync::OnceLock;
    let chunk = chunk.max(1);
    let chunks = out.len().div_ceil(chunk);
    if workers <= 1 || chunks <= 1 {
        let mut buf = scratch();
        let mut carry = init;
        for (c, o) in out.chunks_mut(chunk).enumerate().rev() {
            interrupt::check()?;
            let s = first(c * chunk, o, &mut buf);
            let after = carry;
            carry = link(carry, s);
            second(o, &mut buf, after);
        }
        return Ok(());
    }
    // carries[c]: the carry after chunk c (None: a chunk at or after c was skipped by a stop)
    let carries: Vec<OnceLock<Option<C>>> = (0..=chunks).map(|_| OnceLock::new()).collect();
    let _ = carries[chunks].set(Some(init));
    let slots: Vec<Mutex<&mut [f64]>> = out.chunks_mut(chunk).map(Mutex::new).collect();
    let next = AtomicUsize::new(0);
    let wait = |c: usize| -> Option<C> { *spin_get(&carries[c]) };
    let worker = || {
        let mut buf = scratch();
        loop {
            let t = next.fetch_add(1, Ordering::Relaxed);
            if t >= chunks {
                return;
            }
            let c = chunks - 1 - t;
            // (publishes "skipped" if `first` or `link` unwinds; a no-op after the set below)
            let _unwind = SkipOnUnwind(&carries[c]);
            let mut o = slots[c].lock().unwrap_or_else(|e| e.into_inner());
            let s = (!interrupt::requested()).then(|| first(c * chunk, &mut o, &mut buf));
            let after = wait(c + 1);
            let before = match (after, s) {
                (Some(a), Some(s)) => Some(link(a, s)),
                _ => None,
            };
            let _ = carries[c].set(before);
            if let (Some(a), Some(_)) = (after, before) {
                second(&mut o, &mut buf, a);
            }
        }
    };
    on_workers(workers.min(chunks), worker);
    interrupt::check()?;
    match carries[0].get() {
        Some(Some(_)) => Ok(()),
        _ => Err(PabiError::Interrupted),
    }
}

/// Sets a scan chunk's carry to "skipped" when dropped, unless it was set: a claimed chunk
/// whose work unwinds still releases the workers waiting on it.
struct SkipOnUnwind<'a, C>(&'a std::sync::OnceLock<Option<C>>);

impl<C> Drop for SkipOnUnwind<'_, C> {
    fn drop(&mut self) {
        let _ = self.0.set(None);
    }
}

#[cfg(test)]
#[path = "driver_tests.rs"]
mod tests;
