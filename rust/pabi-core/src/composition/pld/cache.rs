//! A small cache of single-step Poisson-subsampled Gaussian PLDs ([`Pld::subsampled_gaussian_cached`]):
//! the DP-SGD accountant discretises the same (q, σ, direction, h) again for every number of
//! steps and every δ or ε asked (an accountant tracking ε over training asks once per epoch), and
//! the discretisation is a large part of a query (≈ 12 ms of ≈ 40 ms per direction at h = 1e-4).
//! The PLD is a deterministic function of its four doubles, so a cached copy is the PLD itself:
//! no value depends on the cache.
//!
//! Also the one least-recently-used list ([`Lru`]) of the module, used by this cache and by the
//! buffer pool of `buffers.rs`.

use super::{Neighbour, Pld};
use crate::error::Result;
use std::sync::{Arc, Mutex};

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

impl Pld {
    /// [`Pld::subsampled_gaussian`] through the cache: a hit returns a copy of the PLD built
    /// earlier from the same four doubles (bit for bit), a miss builds it and keeps a copy when
    /// it fits the cache's budget. Errors are returned as built, never cached.
    pub fn subsampled_gaussian_cached(q: f64, sigma: f64, dir: Neighbour, h: f64) -> Result<Pld> {
        let key: Key = (
            q.to_bits(),
            sigma.to_bits(),
            dir == Neighbour::Add,
            h.to_bits(),
        );
        let hit = {
            let mut c = lock();
            c.take(|es| es.iter().position(|(k, _)| *k == key))
                .map(|hit| {
                    // most recently used last
                    let out = Arc::clone(&hit.1);
                    c.push(hit);
                    out
                })
        };
        if let Some(p) = hit {
            return Ok((*p).clone());
        }
        let p = Pld::subsampled_gaussian(q, sigma, dir, h)?;
        if lock().keeps(bytes(&p)) {
            // copied outside the lock
            let entry = (key, Arc::new(p.clone()));
            let mut c = lock();
            if !c.items().iter().any(|(k, _)| *k == key) {
                c.push(entry);
            }
        }
        Ok(p)
    }
}
