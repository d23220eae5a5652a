//! A small cache of single-step Poisson-subsampled Gaussian PLDs ([`Pld::subsampled_gaussian_cached`]):
//! the DP-SGD accountant discretises the same (q, σ, direction, h) again for every number of
//! steps and every δ or ε asked (an accountant tracking ε over training asks once per epoch), and
//! the discretisation is a large part of a query (≈ 12 ms of ≈ 40 ms per direction at h = 1e-4).
//! The PLD is a deterministic function of its four doubles, so a cached copy is the PLD itself:
//! no value depends on the cache.
//!
//! A miss discretises only the directions asked. The two directions' cells coincide (the add
//! direction's cell −(c+1) is the remove direction's cell c, see `discretise.rs`), so when both
//! are asked the cell integrals, most of the work, are computed once for both: in one call
//! ([`Pld::subsampled_gaussian_pair_cached`]; the DP-SGD accountant, which always needs both,
//! asks so on a miss: [`Pld::subsampled_gaussian_cached_with_other`]; each direction is then
//! assembled by the thread that asked for it). A caller that arrives
//! while a build of its directions is in progress ([`PairJob`]; e.g. the accountant's other
//! direction on another thread) computes its share of the cells instead of building anew; one
//! asking for a direction that build lacks (only a one-direction caller of
//! [`Pld::subsampled_gaussian_cached`] starts such a build) builds apart.
//!
//! Also the one least-recently-used list ([`Lru`]) of the module, used by this cache, by the
//! buffer pool of `buffers.rs` and by the FFT plans of `fft.rs`.

use super::discretise::{SgGrid, CELL_CHUNK};
use super::{Neighbour, Pld};
use crate::driver::{num_threads, on_workers, PerProcess};
use crate::error::{PabiError, Result};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, MutexGuard, OnceLock};

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
/// it, so parallel queries do not wait on each other's copies. Per process: a child forked
/// while another thread held the lock starts empty instead of waiting for ever.
static CACHE: PerProcess<Lru<(Key, Arc<Pld>)>> =
    PerProcess::new(|| Lru::new(CACHE_BYTES, entry_bytes));

fn lock() -> MutexGuard<'static, Lru<(Key, Arc<Pld>)>> {
    CACHE.lock()
}

/// One chunk's splits, [wa, wb] of each direction (remove, add; empty for a direction the
/// build lacks).
type Splits = Result<[[Vec<f64>; 2]; 2]>;

/// A discretisation of the directions `sides` (remove, add) in progress. A caller asking only
/// for directions it builds joins it (a caller asking for one it lacks builds apart): every
/// caller claims chunks of cells from `next` and computes each for all of `sides` (the cell
/// integrals, most of the work, are shared by both directions), then waits for the chunks
/// others claimed, each computed as straight-line arithmetic on the claiming thread (no lock,
/// no pool task, no wait inside), so every wait ends.
struct PairJob {
    grid: SgGrid,
    sides: [bool; 2],
    next: AtomicUsize,
    /// chunk i's splits, set by the thread that claimed it
    slots: Vec<OnceLock<Splits>>,
    /// the directions (remove, add) some caller of this build has asked for: each caller
    /// assembles and keeps those it asked for; the creator also those nobody asked for
    asked: [AtomicBool; 2],
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

/// The index of direction `dir` in [`PairJob::sides`] and a chunk's splits.
fn side(dir: Neighbour) -> usize {
    match dir {
        Neighbour::Remove => 0,
        Neighbour::Add => 1,
    }
}

impl PairJob {
    /// The build of the directions `sides` (remove, add) on `grid`, nothing computed yet.
    fn new(grid: SgGrid, sides: [bool; 2]) -> PairJob {
        let chunks = grid.cells_len().div_ceil(CELL_CHUNK);
        PairJob {
            grid,
            sides,
            next: AtomicUsize::new(0),
            slots: (0..chunks).map(|_| OnceLock::new()).collect(),
            asked: [AtomicBool::new(false), AtomicBool::new(false)],
        }
    }

    /// Whether the build computes every direction of `dirs`.
    fn builds(&self, dirs: &[Neighbour]) -> bool {
        dirs.iter().all(|&d| self.sides[side(d)])
    }

    /// Compute chunk `i` (claimed by this thread; an interrupt check first).
    fn compute(&self, i: usize) {
        let slot = &self.slots[i];
        let _unset = SetOnUnwind(slot);
        let start = i * CELL_CHUNK;
        let len = CELL_CHUNK.min(self.grid.cells_len() - start);
        let lens = self.sides.map(|on| if on { len } else { 0 });
        let r = crate::interrupt::check().map(|()| {
            let [mut ra, mut rb, mut aa, mut ab] =
                [lens[0], lens[0], lens[1], lens[1]].map(|n| vec![0.0; n]);
            self.grid
                .cells(start, len, self.sides, [&mut ra, &mut rb, &mut aa, &mut ab]);
            [[ra, rb], [aa, ab]]
        });
        let _ = slot.set(r);
    }

    /// Claim and compute chunks until none is left.
    fn work(&self) {
        loop {
            let i = self.next.fetch_add(1, Ordering::Relaxed);
            if i >= self.slots.len() {
                break;
            }
            self.compute(i);
        }
    }

    /// Direction `dir`'s PLD (one the build computes) once every chunk is done (the first
    /// chunk's error if any).
    fn result(&self, dir: Neighbour) -> Result<Pld> {
        self.work();
        let d = side(dir);
        let n = self.grid.cells_len();
        let (mut wa, mut wb) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for slot in &self.slots {
            // (claimed by another thread and being computed: at most about a millisecond)
            let chunk = crate::driver::spin_get(slot);
            let [a, b] = &chunk.as_ref().map_err(Clone::clone)?[d];
            wa.extend_from_slice(a);
            wb.extend_from_slice(b);
        }
        Ok(self.grid.assemble(dir, &wa, &wb))
    }
}

type PairKey = (u64, u64, u64);

/// The pair builds in progress, per process: a child of a `fork()` forgets the parent's
/// builds, whose claimed chunks belong to threads that do not exist in the child (a caller
/// joining one would wait for ever), without taking the parent's lock.
static JOBS: PerProcess<Vec<(PairKey, Arc<PairJob>)>> = PerProcess::new(Vec::new);

fn jobs() -> MutexGuard<'static, Vec<(PairKey, Arc<PairJob>)>> {
    JOBS.lock()
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
    let absent = |c: &Lru<(Key, Arc<Pld>)>| !c.items().iter().any(|(k, _)| *k == key);
    let wanted = {
        let c = lock();
        c.keeps(bytes(p)) && absent(&c)
    };
    if wanted {
        let entry = (key, Arc::new(p.clone()));
        let mut c = lock();
        if absent(&c) {
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
    /// earlier from the same four doubles (bit for bit); a miss builds this direction alone
    /// (the same values as [`Pld::subsampled_gaussian`]), keeps a copy if it fits the cache's
    /// budget and returns it. A caller asking while the pair's build is in progress (either
    /// direction) computes a share of its cells. Errors are returned as built, never cached.
    pub fn subsampled_gaussian_cached(q: f64, sigma: f64, dir: Neighbour, h: f64) -> Result<Pld> {
        let [p] = cached(q, sigma, h, [dir])?;
        Ok(p)
    }

    /// Direction `dir` through the cache for a caller that will also ask for the other one (the
    /// DP-SGD accountant): a hit copies `dir` alone; a miss computes the cells of both in one
    /// pass (sharing the cell integrals, as [`Pld::subsampled_gaussian_pair_cached`]) and
    /// assembles `dir`; the other direction's request joins this build and assembles its own
    /// on its thread, or, when none has asked by then, this call keeps it too, so that the
    /// later request is a hit.
    pub(crate) fn subsampled_gaussian_cached_with_other(
        q: f64,
        sigma: f64,
        dir: Neighbour,
        h: f64,
    ) -> Result<Pld> {
        if let Some(p) = hit(key_of(q, sigma, dir, h)) {
            return Ok((*p).clone());
        }
        let [p]: [Pld; 1] = build(q, sigma, h, &[dir], true)?
            .try_into()
            .map_err(|_| PabiError::internal("the cached build lost a direction"))?;
        Ok(p)
    }

    /// Both directions (remove, add) through the cache; those missing are built in one pass
    /// sharing the cell integrals (a pair too large for the cache is built once, not once per
    /// direction).
    pub(crate) fn subsampled_gaussian_pair_cached(
        q: f64,
        sigma: f64,
        h: f64,
    ) -> Result<(Pld, Pld)> {
        let [r, a] = cached(q, sigma, h, [Neighbour::Remove, Neighbour::Add])?;
        Ok((r, a))
    }
}

/// Directions `dirs` through the cache (see [`Pld::subsampled_gaussian_cached`]): the cached
/// ones copied (outside every lock), the others built together.
fn cached<const N: usize>(q: f64, sigma: f64, h: f64, dirs: [Neighbour; N]) -> Result<[Pld; N]> {
    let lost = || PabiError::internal("the cached build lost a direction");
    let hits = dirs.map(|d| hit(key_of(q, sigma, d, h)));
    let missing: Vec<Neighbour> = dirs
        .iter()
        .zip(&hits)
        .filter(|(_, p)| p.is_none())
        .map(|(&d, _)| d)
        .collect();
    let mut built = if missing.is_empty() {
        Vec::new()
    } else {
        build(q, sigma, h, &missing, false)?
    }
    .into_iter();
    let all = hits
        .into_iter()
        .map(|p| match p {
            Some(p) => Ok((*p).clone()),
            None => built.next().ok_or_else(lost),
        })
        .collect::<Result<Vec<Pld>>>()?;
    all.try_into().map_err(|_| lost())
}

/// Which of the two directions (remove, add) `dirs` holds.
fn sides(dirs: &[Neighbour]) -> [bool; 2] {
    let mut s = [false; 2];
    for &d in dirs {
        s[side(d)] = true;
    }
    s
}

/// Directions `dirs` (not cached when looked up) built, sharing the pair's build in progress
/// if there is one, and kept. With `both`, a build this call starts computes both directions
/// (the caller will ask for the other one too): each caller assembles only the directions it
/// asked for, and the creator also keeps those no caller has asked for by the time its own are
/// done (a caller on another thread assembles its own direction in parallel instead of both
/// threads assembling both).
fn build(q: f64, sigma: f64, h: f64, dirs: &[Neighbour], both: bool) -> Result<Vec<Pld>> {
    let keys: Vec<Key> = dirs.iter().map(|&d| key_of(q, sigma, d, h)).collect();
    let pkey: PairKey = (q.to_bits(), sigma.to_bits(), h.to_bits());
    let (job, mine) = {
        let mut js = jobs();
        let running = js
            .iter()
            .find(|(k, _)| *k == pkey)
            .map(|(_, j)| Arc::clone(j));
        // (errors named for the first direction asked; the grid is the same for both)
        let first = dirs.first().copied().unwrap_or(Neighbour::Remove);
        let computed = if both { [true; 2] } else { sides(dirs) };
        match running {
            Some(j) if j.builds(dirs) => (j, false),
            // a build of the other direction alone: ours is built apart (not registered)
            Some(_) => (
                Arc::new(PairJob::new(SgGrid::new(q, sigma, first, h)?, sides(dirs))),
                false,
            ),
            None => {
                // (a creator keeps its PLDs before it unregisters: look again; the copies are
                // made once the lock is released)
                if let Some(ps) = keys.iter().map(|&k| hit(k)).collect::<Option<Vec<_>>>() {
                    drop(js);
                    return Ok(ps.iter().map(|p| (**p).clone()).collect());
                }
                let j = Arc::new(PairJob::new(SgGrid::new(q, sigma, first, h)?, computed));
                js.push((pkey, Arc::clone(&j)));
                (j, true)
            }
        }
    };
    // (dropped last: the creator keeps its PLDs before the build leaves `JOBS`; made only by
    // the creator: `then_some` would build, and at once drop, a joiner's guard too, taking
    // the build out of `JOBS` while it runs)
    #[allow(clippy::unnecessary_lazy_evaluations)]
    let _unregister = mine.then(|| Unregister(pkey));
    for &d in dirs {
        job.asked[side(d)].store(true, Ordering::Relaxed);
    }
    // every worker of the pool may take a share (a caller joining the build takes its share
    // through its own call)
    on_workers(num_threads().min(job.slots.len()), || job.work());
    let ps = dirs
        .iter()
        .map(|&d| job.result(d))
        .collect::<Result<Vec<Pld>>>()?;
    for (&k, p) in keys.iter().zip(&ps) {
        keep(k, p);
    }
    if mine {
        // the directions computed that no caller asked for (the accountant's other direction
        // when it is asked later on this thread), kept before the build is unregistered
        for d in [Neighbour::Remove, Neighbour::Add] {
            let k = key_of(q, sigma, d, h);
            if job.sides[side(d)] && !job.asked[side(d)].load(Ordering::Relaxed) && hit(k).is_none()
            {
                // (a direction nobody asked for: its failure is not this caller's error)
                if let Ok(p) = job.result(d) {
                    keep(k, &p);
                }
            }
        }
    }
    Ok(ps)
}

#[cfg(test)]
mod tests {
    use super::super::tests::same_bits as same;
    use super::*;

    #[test]
    fn a_miss_builds_and_keeps_only_the_direction_asked() {
        // (keys used by no other test) before: the add direction was built and kept too
        let (q, sigma, h) = (0.021, 1.31, 1e-3);
        let want = Pld::subsampled_gaussian(q, sigma, Neighbour::Remove, h).unwrap();
        let got = Pld::subsampled_gaussian_cached(q, sigma, Neighbour::Remove, h).unwrap();
        assert!(same(&got, &want));
        let held = |d| {
            let k = key_of(q, sigma, d, h);
            lock().items().iter().any(|(x, _)| *x == k)
        };
        assert!(held(Neighbour::Remove));
        assert!(!held(Neighbour::Add));
    }

    #[test]
    fn a_caller_joins_a_build_of_its_directions_and_builds_apart_otherwise() {
        // (keys used by no other test) a registered build of the add direction alone, not
        // started: a remove caller builds apart (claims none of its chunks), an add caller
        // joins it (computes them all); both get the directly built PLD bit for bit
        let (q, sigma, h) = (0.05, 0.9, 1e-3);
        let want = [Neighbour::Remove, Neighbour::Add]
            .map(|d| Pld::subsampled_gaussian(q, sigma, d, h).unwrap());
        let job = Arc::new(PairJob::new(
            SgGrid::new(q, sigma, Neighbour::Add, h).unwrap(),
            [false, true],
        ));
        assert!(job.slots.len() > 2);
        let pkey = (q.to_bits(), sigma.to_bits(), h.to_bits());
        jobs().push((pkey, Arc::clone(&job)));
        let _unregister = Unregister(pkey);
        let [r] = build(q, sigma, h, &[Neighbour::Remove], false)
            .unwrap()
            .try_into()
            .unwrap();
        assert!(same(&r, &want[0]));
        assert_eq!(job.next.load(Ordering::Relaxed), 0);
        let [a] = build(q, sigma, h, &[Neighbour::Add], false)
            .unwrap()
            .try_into()
            .unwrap();
        assert!(same(&a, &want[1]));
        assert!(job.next.load(Ordering::Relaxed) >= job.slots.len());
        // a joiner leaves the build registered (only its creator takes it out)
        assert!(jobs().iter().any(|(k, _)| *k == pkey));
        // the add build computed no remove split
        assert!(job
            .slots
            .iter()
            .all(|s| matches!(s.get(), Some(Ok([[ra, rb], [aa, _]])) if ra.is_empty() && rb.is_empty() && !aa.is_empty())));
    }
}
