//! The arguments of the PNSGD bounds and their validation: the noise and order selectors
//! ([`Noise`], [`Order`]), the broadcast argument structs ([`Params`], [`RdpParams`]) and every
//! length / domain check, made before any work or allocation proportional to the data. The model
//! behind the arguments (L-Lipschitz loss, learning rate η, constraint set of diameter D,
//! smoothness β and strong convexity ρ giving the contraction M of a gradient step) is
//! Sordello–Bu–Dong §1 (Thm 1) and Asoodeh–Diaz–Calmon §IV-B to §IV-E (M: their Lemma 4); the
//! derivations are in `docs/derivations/pnsgd.md`.

use crate::batch::check;
use crate::error::{PabiError, Result};
use crate::setup::check_broadcast;

use super::at;

/// n and index must be below 2^53 so that n − i is exact in f64.
pub const N_MAX: f64 = 9_007_199_254_740_992.0;

/// The noise added to the gradient.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Noise {
    /// N(0, σ² I_d); `sigma` is the standard deviation σ.
    Gaussian,
    /// Lap(0, v) in d = 1; `sigma` is the scale v, `diameter` = b − a.
    Laplace,
}

/// How the records are ordered / the output chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Records in index order, output w_n; δ for record `index` (required).
    Fixed,
    /// One uniformly random permutation (Sordello–Bu–Dong Thm 2); `index` must not be given.
    Shuffled,
    /// Output w_T, T uniform on 1..n (refined form, Sordello–Bu–Dong §1); `index` None = worst
    /// case over i.
    RandomStop,
    /// Asoodeh–Diaz–Calmon eq. (16), A/(n(1 − B)) clamped to 1 (looser; often vacuous). `index`
    /// is ignored.
    RandomStopAsPublished,
}

impl Noise {
    pub fn parse(s: &str) -> Result<Noise> {
        match s {
            "gaussian" => Ok(Noise::Gaussian),
            "laplace" => Ok(Noise::Laplace),
            _ => Err(PabiError::unreachable(format!(
                "noise must be 'gaussian' or 'laplace', got {s:?}"
            ))),
        }
    }
}

impl Order {
    /// `order` in {"fixed", "shuffled", "random_stop"}, `variant` in {"refined", "as_published"}
    /// (the variant only applies to "random_stop").
    pub fn parse(order: &str, variant: &str) -> Result<Order> {
        let o = match order {
            "fixed" => Order::Fixed,
            "shuffled" => Order::Shuffled,
            "random_stop" => Order::RandomStop,
            _ => {
                return Err(PabiError::unreachable(format!(
                    "order must be 'fixed', 'shuffled' or 'random_stop', got {order:?}"
                )))
            }
        };
        match (o, variant) {
            (_, "refined") => Ok(o),
            (Order::RandomStop, "as_published") => Ok(Order::RandomStopAsPublished),
            (_, "as_published") => Err(PabiError::unreachable(format!(
                "variant='as_published' only applies to order='random_stop', got order={order:?}"
            ))),
            _ => Err(PabiError::unreachable(format!(
                "variant must be 'refined' or 'as_published', got {variant:?}"
            ))),
        }
    }
}

/// Broadcast arguments of the PNSGD bounds: every slice has length 1 (the same value for every
/// element, stride 0) or the output length.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    pub noise: Noise,
    pub order: Order,
    /// Gaussian noise std σ or Laplace scale v (> 0). Ignored by
    /// [`calibrate_sigma`](super::calibrate_sigma).
    pub sigma: &'a [f64],
    pub lipschitz: &'a [f64],
    pub lr: &'a [f64],
    pub diameter: &'a [f64],
    pub n: &'a [f64],
    pub index: Option<&'a [f64]>,
    pub smoothness: Option<&'a [f64]>,
    pub strong_convexity: &'a [f64],
}

fn is_count(x: f64) -> bool {
    // the cast is exact below 2^53 (and cheaper than `fract`, a libm call without SSE4.1)
    (1.0..N_MAX).contains(&x) && (x as u64) as f64 == x
}

/// Check lengths (1 or `len`) and the per-argument domains.
pub(super) fn check_params(p: &Params, len: usize, need_sigma: bool) -> Result<()> {
    let mut lens: Vec<(&'static str, usize)> = vec![
        ("lipschitz", p.lipschitz.len()),
        ("lr", p.lr.len()),
        ("diameter", p.diameter.len()),
        ("n", p.n.len()),
        ("strong_convexity", p.strong_convexity.len()),
    ];
    if need_sigma {
        lens.push(("sigma", p.sigma.len()));
    }
    if let Some(i) = p.index {
        lens.push(("index", i.len()));
    }
    if let Some(b) = p.smoothness {
        lens.push(("smoothness", b.len()));
    }
    check_broadcast(len, &lens)?;
    if need_sigma {
        check(p.sigma, "sigma", "finite and > 0", |x| {
            x > 0.0 && x.is_finite()
        })?;
    }
    check(p.lipschitz, "lipschitz", "finite and >= 0", |x| {
        x >= 0.0 && x.is_finite()
    })?;
    check(p.lr, "lr", "finite and > 0", |x| x > 0.0 && x.is_finite())?;
    check(p.diameter, "diameter", "finite and >= 0", |x| {
        x >= 0.0 && x.is_finite()
    })?;
    check(p.n, "n", "an integer in [1, 2^53)", is_count)?;
    if let Some(b) = p.smoothness {
        check(b, "smoothness", "finite and > 0", |x| {
            x > 0.0 && x.is_finite()
        })?;
    }
    check(
        p.strong_convexity,
        "strong_convexity",
        "finite and >= 0",
        |x| x >= 0.0 && x.is_finite(),
    )?;
    match (p.order, p.index) {
        (Order::Fixed, None) => return Err(PabiError::unreachable(
            "index is required with order='fixed' (the 1-based position of the differing record)",
        )),
        (Order::Shuffled, Some(_)) => {
            return Err(PabiError::unreachable(
                "index must not be given with order='shuffled' (the bound is uniform in the index)",
            ))
        }
        _ => {}
    }
    if let Some(ix) = p.index {
        check(ix, "index", "an integer in 1..=n", is_count)?;
        let m = ix.len().max(p.n.len());
        for j in 0..m {
            let (i, n) = (at(ix, j), at(p.n, j));
            if i > n {
                return Err(PabiError::domain(
                    "index",
                    format!("an integer in 1..=n (n = {n})"),
                    i,
                )
                .at(j));
            }
        }
    }
    Ok(())
}

pub(super) fn check_eps(eps: &[f64]) -> Result<()> {
    check(eps, "eps", "finite and >= 0", |x| x >= 0.0 && x.is_finite())
}

pub(super) fn check_target(delta: &[f64]) -> Result<()> {
    check(delta, "delta", "in (0, 1)", |x| x > 0.0 && x < 1.0)
}

/// Broadcast arguments of the RDP comparison bound (Gaussian noise only).
#[derive(Debug, Clone, Copy)]
pub struct RdpParams<'a> {
    pub sigma: &'a [f64],
    pub lipschitz: &'a [f64],
    pub lr: &'a [f64],
    pub n: &'a [f64],
    pub index: &'a [f64],
    pub smoothness: Option<&'a [f64]>,
    pub strong_convexity: &'a [f64],
}

impl<'a> RdpParams<'a> {
    pub(super) fn as_params(&self) -> Params<'a> {
        Params {
            noise: Noise::Gaussian,
            order: Order::Fixed,
            sigma: self.sigma,
            lipschitz: self.lipschitz,
            lr: self.lr,
            diameter: &[0.0],
            n: self.n,
            index: Some(self.index),
            smoothness: self.smoothness,
            strong_convexity: self.strong_convexity,
        }
    }
}
