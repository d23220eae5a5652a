//! The arguments of the PNSGD bounds and their validation: the noise and order selectors
//! ([`Noise`], [`Order`]), the broadcast argument structs ([`Params`], [`RdpParams`]) and every
//! length / domain check, made before any work or allocation proportional to the data. The model
//! behind the arguments (L-Lipschitz loss, learning rate η, constraint set of diameter D,
//! smoothness β and strong convexity ρ giving the contraction M of a gradient step) is
//! Sordello–Bu–Dong §1 (Thm 1) and Asoodeh–Diaz–Calmon §IV-B to §IV-E (M: their Lemma 4); the
//! derivations are in `docs/derivations/pnsgd.md`.

use crate::batch::check;
use crate::error::{PabiError, Result};
use crate::setup::{self, check_broadcast, SetupArgs};

use super::at;

/// The noise added to the gradient (defined once, with the setup).
pub use crate::setup::Noise;
/// n and index must be below 2^53 so that n − i is exact in f64 (defined with the setup).
pub use crate::setup::N_MAX;

/// How the records are ordered / the output chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Order {
    /// Records in index order, output w_n; δ for record `index` (required).
    Fixed,
    /// One uniformly random permutation (Sordello–Bu–Dong Thm 2); `index` must not be given.
    Shuffled,
    /// Output w_T, T uniform on 1..n (corrected form, Sordello–Bu–Dong §1); `index` None = worst
    /// case over i.
    RandomStop,
    /// Asoodeh–Diaz–Calmon eq. (16), A/(n(1 − B)) clamped to 1 (looser; often vacuous). `index`
    /// is ignored.
    RandomStopAsPublished,
}

impl Order {
    /// `ordering` in {"fixed", "shuffled", "random_stop"}, `variant` in {"corrected",
    /// "as_published"} (the variant only applies to "random_stop").
    pub fn parse(order: &str, variant: &str) -> Result<Order> {
        let o = match order {
            "fixed" => Order::Fixed,
            "shuffled" => Order::Shuffled,
            "random_stop" => Order::RandomStop,
            _ => {
                return Err(PabiError::option(
                    "ordering",
                    "'fixed', 'shuffled' or 'random_stop'",
                    order,
                ))
            }
        };
        match (o, variant) {
            (_, "corrected") => Ok(o),
            (Order::RandomStop, "as_published") => Ok(Order::RandomStopAsPublished),
            (_, "as_published") => Err(PabiError::option(
                "variant",
                format!(
                    "'corrected' with ordering={order:?} ('as_published' only applies to ordering='random_stop')"
                ),
                variant,
            )),
            _ => Err(PabiError::option(
                "variant",
                "'corrected' or 'as_published'",
                variant,
            )),
        }
    }
}

/// Broadcast arguments of the PNSGD bounds: every slice has length 1 (the same value for every
/// element, stride 0) or the output length. The model and the noise scale σ.
#[derive(Debug, Clone, Copy)]
pub struct Params<'a> {
    pub model: Model<'a>,
    /// Gaussian noise std σ or Laplace scale v (> 0).
    pub sigma: &'a [f64],
}

/// The model of the PNSGD bounds, everything but the noise scale: the arguments of
/// [`calibrate_sigma`](super::calibrate_sigma), which searches σ ([`Model::with_sigma`] gives
/// the [`Params`] of the other bounds).
#[derive(Debug, Clone, Copy)]
pub struct Model<'a> {
    pub noise: Noise,
    pub order: Order,
    /// The training setup (L, η, D, β, ρ).
    pub setup: SetupArgs<'a>,
    pub n: &'a [f64],
    pub index: Option<&'a [f64]>,
}

/// Broadcast arguments of [`factors`](super::factors): the noise, its scale and the training
/// setup. The factors A, B, 1 − B do not depend on n, the index or the order.
#[derive(Debug, Clone, Copy)]
pub struct FactorParams<'a> {
    pub noise: Noise,
    /// Gaussian noise std σ or Laplace scale v (> 0).
    pub sigma: &'a [f64],
    pub setup: SetupArgs<'a>,
}

impl<'a> Model<'a> {
    /// The bounds' arguments at noise scale `sigma`.
    pub fn with_sigma(self, sigma: &'a [f64]) -> Params<'a> {
        Params { model: self, sigma }
    }
}

/// σ finite and > 0 (where given), naming its first bad index.
pub(super) fn check_sigma(sigma: &[f64]) -> Result<()> {
    check(sigma, "noise_scale", "finite and > 0", |x| {
        x > 0.0 && x.is_finite()
    })
}

/// Check lengths (1 or `len`: the setup's, n, sigma where given, index) and the per-argument
/// domains (sigma, the setup's ranges, n, index), each naming its first bad index.
pub(super) fn check_model(m: &Model, sigma: Option<&[f64]>, len: usize) -> Result<()> {
    let s = m.setup;
    let mut lens = s.lens();
    lens.push(("steps", m.n.len()));
    if let Some(sg) = sigma {
        lens.push(("noise_scale", sg.len()));
    }
    if let Some(i) = m.index {
        lens.push(("index", i.len()));
    }
    check_broadcast(len, &lens)?;
    if let Some(sg) = sigma {
        check_sigma(sg)?;
    }
    s.check_ranges()?;
    setup::n_pnsgd(m.n)?;
    check_index_option(
        m.order,
        m.index.map(|ix| {
            move || {
                ix.first()
                    .map_or_else(|| "an empty array".to_string(), |i| i.to_string())
            }
        }),
    )?;
    if let Some(ix) = m.index {
        for j in 0..ix.len().max(m.n.len()) {
            setup::index(at(ix, j), at(m.n, j)).map_err(|e| e.at(j))?;
        }
    }
    Ok(())
}

/// The index option of an ordering (one wording for every PNSGD bound): required with the
/// fixed order, not given with the shuffled one; `index` prints the given value (None: absent).
pub(super) fn check_index_option<F: FnOnce() -> String>(
    order: Order,
    index: Option<F>,
) -> Result<()> {
    match (order, index) {
        (Order::Fixed, None) => Err(PabiError::option(
            "index",
            "given with ordering='fixed' (index is required: the 1-based position of the differing record)",
            "None",
        )),
        (Order::Shuffled, Some(v)) => Err(PabiError::option(
            "index",
            "None with ordering='shuffled' (index must not be given: the bound is uniform in the index)",
            v(),
        )),
        _ => Ok(()),
    }
}

/// Check the lengths (1 or `len`: the setup's, sigma) and domains (sigma, the setup's ranges)
/// of the factors' arguments.
pub(super) fn check_factor_params(f: &FactorParams, len: usize) -> Result<()> {
    let s = f.setup;
    let mut lens = s.lens();
    lens.push(("noise_scale", f.sigma.len()));
    check_broadcast(len, &lens)?;
    check_sigma(f.sigma)?;
    s.check_ranges()
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
    pub max_grad_norm: &'a [f64],
    pub lr: &'a [f64],
    pub n: &'a [f64],
    pub index: &'a [f64],
    pub smoothness: Option<&'a [f64]>,
    pub strong_convexity: &'a [f64],
}

impl<'a> RdpParams<'a> {
    /// The model of the fixed order with Gaussian noise (the comparison bound does not use the
    /// diameter: 0 passes its check).
    pub(super) fn model(&self) -> Model<'a> {
        Model {
            noise: Noise::Gaussian,
            order: Order::Fixed,
            setup: SetupArgs {
                max_grad_norm: self.max_grad_norm,
                lr: self.lr,
                diameter: &[0.0],
                smoothness: self.smoothness,
                strong_convexity: self.strong_convexity,
            },
            n: self.n,
            index: Some(self.index),
        }
    }
}
