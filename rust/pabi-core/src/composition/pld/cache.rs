//! A small cache of single-step Poisson-subsampled Gaussian PLDs ([`Pld::subsampled_gaussian_cached`]):
//! the DP-SGD accountant discretises the same (q, σ, direction, h) again for every number of
//! steps and every δ or ε asked (an accountant tracking ε over training asks once per epoch), and
//! the discretisation is a large part of a query (≈ 12 ms of ≈ 40 ms per direction at h = 1e-4).
//! The PLD is a deterministic function of its four doubles, so a cached copy is the PLD itself:
//! no value depends on the cache.
//!
//! A miss discretises both directions at once: their cells coincide (the add direction's cell
//! −(c+1) is the remove direction's cell c, see `discretise.rs`), so the cell integrals, most of
//! the work, are computed once for both. The DP-SGD accountant asks for the two directions on
//! two threads at the same time: the second caller finds the first one's build in progress
//! ([`PairJob`]) and computes its share of the cells instead of building its direction anew.
//!
//! Also the one least-recently-used list ([`Lru`]) of the module, used by this cache, by the
//! buffer pool of `buffers.rs` and by the FFT plans of `fft.rs`.

use super::discretise::{SgGrid, CELL_CHUNK};
use super::{Neighbour, Pld};
use crate::error::{PabiError, Result};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// A list of entries, least recently used first, holding at most `budget` bytes in all (as
/// counted by `size`): appending an entry drops the oldest ones until the total fits, and an
/// entry larger than a quarter of the budget is never kept. Taking an entry removes it; a user
/// that keeps it appends it again (it is then the most recent).
pub(super) struct Lru<T> {
    items: Vec<T>,
    budget: usize,
    size: fn(&T) -> usize,
}

impl<T> Lru<T> {
    /// An empty list of at most `budget` bytes.
    pub(super) const fn new(budget: usize, size: fn(&T) -> usize) -> Self {
        Lru {
            items: Vec::new(),
            budget,
            size,
        }
    }

    /// The entries, least recently used first.
    pub(super) fn items(&self) -> &[T] {
        &self.items
    }

    /// Remove and return the entry whose index `pick` chooses (nothing when it chooses none).
    pub(super) fn take(&mut self, pick: impl FnOnce(&[T]) -> Option<usize>) -> Option<T> {
        let i = pick(&self.items)?;
        Some(self.items.remove(i))
    }

    /// Whether an entry of `bytes` bytes would be kept: not empty, at most a quarter of the
    /// budget.
    pub(super) fn keeps(&self, bytes: usize) -> bool {
        bytes > 0 && bytes <= self.budget / 4
    }

    /// Append `item` as the most recently used (unless [`Self::keeps`] refuses its size),
    /// then drop the least recently used entries until the total fits.
    pub(super) fn push(&mut self, item: T) {
        if !self.keeps((self.size)(&item)) {
            return;
        }
        self.items.push(item);
        let mut total: usize = self.items.iter().map(self.size).sum();
        while total > self.budget {
            total -= (self.size)(&self.items.remove(0));
        }
    }

    /// Bytes held in all.
    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.items.iter().map(self.size).sum()
    }
}

/// Bytes of masses the cache may hold in all (the oldest entries are dropped first).
const CACHE_BYTES: usize = 16 << 20;

type Key = (u64, u64, bool, u64);

fn bytes(p: &Pld) -> usize {
    p.pmf.len() * std::mem::size_of::<f64>()
}

fn entry_bytes(e: &(Key, Arc<Pld>)) -> usize {
    bytes(&e.1)
}

/// Entries behind `Arc`s: a hit clones the `Arc` under the lock and copies the masses outside
/// it, so parallel queries do not wait on each other's copies.
static CACHE: Mutex<Lru<(Key, Arc<Pld>)>> = Mutex::new(Lru::new(CACHE_BYTES, entry_bytes));

fn lock() -> std::sync::MutexGuard<'static, Lru<(Key, Arc<Pld>)>> {
    CACHE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The cell splits of one chunk of cells, [remove wa, remove wb, add wa, add wb].
type Splits = Result<[Vec<f64>; 4]>;

/// A discretisation of both directions in progress. Every caller asking for either direction
/// meanwhile claims chunks of cells from `next` and computes them; once none is left it waits
/// only for the chunks others have claimed, each of which is straight-line arithmetic on the
/// claiming thread (no lock, no pool task, no wait inside), so every wait ends.
struct PairJob {
    grid: SgGrid,
    next: AtomicUsize,
    slots: Vec<OnceLock<Splits>>,
}

/// Sets its slot to an error if it is dropped unset (a panic while computing the chunk), so
/// that no caller waits for it forever.
struct SetOnUnwind<'a>(&'a OnceLock<Splits>);

impl Drop for SetOnUnwind<'_> {
    fn drop(&mut self) {
        // (a set slot, the normal case, builds no error)
        if self.0.get().is_none() {
            let _ = self
                .0
                .set(Err(PabiError::internal("a discretisation chunk failed")));
        }
    }
}

impl PairJob {
    fn new(grid: SgGrid) -> PairJob {
        let chunks = grid.cells_len().div_ceil(CELL_CHUNK);
        PairJob {
            grid,
            next: AtomicUsize::new(0),
            slots: (0..chunks).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Claim and compute chunks until none is left (an interrupt check before each).
    fn work(&self) {
        let n = self.grid.cells_len();
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(slot) = self.slots.get(i) else {
                return;
            };
            let _unset = SetOnUnwind(slot);
            let start = i * CELL_CHUNK;
            let len = CELL_CHUNK.min(n - start);
            let r = crate::interrupt::check().map(|()| {
                let mut out: [Vec<f64>; 4] = std::array::from_fn(|_| vec![0.0; len]);
                let [a, b, c, d] = &mut out;
                self.grid.cells(start, len, [true, true], [a, b, c, d]);
                out
            });
            let _ = slot.set(r);
        }
    }

    /// Direction `dir`'s PLD once every chunk is done (the first chunk's error if any).
    fn result(&self, dir: Neighbour) -> Result<Pld> {
        let off = if dir == Neighbour::Remove { 0 } else { 2 };
        let n = self.grid.cells_len();
        let (mut wa, mut wb) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for slot in &self.slots {
            let mut spins = 0u32;
            let chunk = loop {
                if let Some(r) = slot.get() {
                    break r;
                }
                // claimed by another thread and being computed (at most about a millisecond)
                spins += 1;
                if spins < 64 {
                    std::hint::spin_loop();
                } else {
                    std::thread::yield_now();
                }
            };
            let out = chunk.as_ref().map_err(Clone::clone)?;
            wa.extend_from_slice(&out[off]);
            wb.extend_from_slice(&out[off + 1]);
        }
        Ok(self.grid.assemble(dir, &wa, &wb))
    }
}

type PairKey = (u64, u64, u64);

/// The pair builds in progress.
static JOBS: Mutex<Vec<(PairKey, Arc<PairJob>)>> = Mutex::new(Vec::new());

fn jobs() -> std::sync::MutexGuard<'static, Vec<(PairKey, Arc<PairJob>)>> {
    JOBS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Removes a pair build from [`JOBS`] when its creator is done (or fails).
struct Unregister(PairKey);

impl Drop for Unregister {
    fn drop(&mut self) {
        jobs().retain(|(k, _)| *k != self.0);
    }
}

/// The cached PLD under `key` (most recently used from now on), if any.
fn hit(key: Key) -> Option<Arc<Pld>> {
    let mut c = lock();
    c.take(|es| es.iter().position(|(k, _)| *k == key))
        .map(|hit| {
            let out = Arc::clone(&hit.1);
            c.push(hit);
            out
        })
}

/// Keep `p` under `key` (unless present or too large; copied outside the lock).
fn keep(key: Key, p: &Pld) {
    if lock().keeps(bytes(p)) {
        let entry = (key, Arc::new(p.clone()));
        let mut c = lock();
        if !c.items().iter().any(|(k, _)| *k == key) {
            c.push(entry);
        }
    }
}

fn key_of(q: f64, sigma: f64, dir: Neighbour, h: f64) -> Key {
    (
        q.to_bits(),
        sigma.to_bits(),
        dir == Neighbour::Add,
        h.to_bits(),
    )
}

impl Pld {
    /// [`Pld::subsampled_gaussian`] through the cache: a hit returns a copy of the PLD built
    /// earlier from the same four doubles (bit for bit); a miss builds both directions (the
    /// same values as two [`Pld::subsampled_gaussian`] calls, sharing the cell integrals),
    /// keeps copies that fit the cache's budget and returns the one asked. A caller asking
    /// while the pair is being built computes a share of its cells. Errors are returned as
    /// built, never cached.
    pub fn subsampled_gaussian_cached(q: f64, sigma: f64, dir: Neighbour, h: f64) -> Result<Pld> {
        Ok(cached_pair(q, sigma, dir, h, false)?.0)
    }

    /// Both directions (remove, add) through the cache, from one build of the pair when either
    /// is missing (a pair too large for the cache is built once, not once per direction).
    pub(crate) fn subsampled_gaussian_pair_cached(
        q: f64,
        sigma: f64,
        h: f64,
    ) -> Result<(Pld, Pld)> {
        let (p, o) = cached_pair(q, sigma, Neighbour::Remove, h, true)?;
        Ok((
            p,
            o.ok_or_else(|| PabiError::internal("the pair build lost a direction"))?,
        ))
    }
}

/// Direction `dir` (and with `both` the other one too) through the cache: see
/// [`Pld::subsampled_gaussian_cached`].
fn cached_pair(
    q: f64,
    sigma: f64,
    dir: Neighbour,
    h: f64,
    both: bool,
) -> Result<(Pld, Option<Pld>)> {
    let other = match dir {
        Neighbour::Remove => Neighbour::Add,
        Neighbour::Add => Neighbour::Remove,
    };
    let (key, okey) = (key_of(q, sigma, dir, h), key_of(q, sigma, other, h));
    let hits = || -> Option<(Pld, Option<Pld>)> {
        let p = hit(key)?;
        let o = if both {
            Some((*hit(okey)?).clone())
        } else {
            None
        };
        Some(((*p).clone(), o))
    };
    if let Some(r) = hits() {
        return Ok(r);
    }
    let pkey: PairKey = (q.to_bits(), sigma.to_bits(), h.to_bits());
    let (job, mine) = {
        let mut js = jobs();
        match js.iter().find(|(k, _)| *k == pkey) {
            Some((_, j)) => (Arc::clone(j), false),
            None => {
                // (the creator keeps the PLDs before it unregisters: look again)
                if let Some(r) = hits() {
                    drop(js);
                    return Ok(r);
                }
                let j = Arc::new(PairJob::new(SgGrid::new(q, sigma, dir, h)?));
                js.push((pkey, Arc::clone(&j)));
                (j, true)
            }
        }
    };
    let results = |job: &PairJob| -> Result<(Pld, Option<Pld>)> {
        let o = if both { Some(job.result(other)?) } else { None };
        Ok((job.result(dir)?, o))
    };
    if !mine {
        job.work();
        return results(&job);
    }
    let _unregister = Unregister(pkey);
    // every worker of the pool may take a share (the other direction's caller takes its
    // share through its own call)
    match crate::driver::pool() {
        Some(pool) if job.slots.len() > 1 => pool.install(|| {
            use rayon::prelude::*;
            (0..crate::driver::num_threads())
                .into_par_iter()
                .for_each(|_| job.work())
        }),
        _ => job.work(),
    }
    let p = job.result(dir)?;
    keep(key, &p);
    let o = job.result(other)?;
    keep(okey, &o);
    Ok((p, both.then_some(o)))
}
