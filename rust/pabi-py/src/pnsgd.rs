//! Bindings for `pabi_core::pnsgd`. Every array argument is a contiguous 1-D float64 array of
//! length 1 (broadcast, stride 0) or `len`; the Python layer (`pabi/pnsgd.py`) does the numpy
//! broadcasting without materializing scalar arguments.

use pabi_core::pnsgd::{self, FactorParams, Model, RdpParams, StepParams};
use pabi_core::setup::SetupArgs;
use pyo3::prelude::*;

use crate::args::{add_functions, check_broadcast, fill, fill3, opt_slice, Arr, Np, Triple};
use crate::options;
use crate::{guarded, to_py, zeros, Out, LONG_LEN};
use numpy::IntoPyArray;

/// The training setup (L, η, D, β, ρ), borrowed.
fn setup_args<'a>(
    max_grad_norm: &'a Arr<'_>,
    lr: &'a Arr<'_>,
    diameter: &'a Arr<'_>,
    smoothness: &'a Option<Arr<'_>>,
    strong_convexity: &'a Arr<'_>,
) -> PyResult<SetupArgs<'a>> {
    Ok(SetupArgs {
        max_grad_norm: max_grad_norm.as_slice()?,
        lr: lr.as_slice()?,
        diameter: diameter.as_slice()?,
        smoothness: opt_slice(smoothness)?,
        strong_convexity: strong_convexity.as_slice()?,
    })
}

/// An empty output array.
fn empty(py: Python<'_>) -> Np<'_> {
    numpy::PyArray1::zeros(py, 0, false)
}

/// An amplification-bound binding `$name($lead..., max_grad_norm, lr, diameter, n, index,
/// smoothness, strong_convexity, noise, order, variant, $flag..., $len)`; `$body` sees the
/// leading arrays, the flags, `$len`, `$py` and the borrowed, parsed rest as `$s`: a [`Model`]
/// (everything but σ).
macro_rules! amplification {
    ($(#[doc = $doc:literal])*
     fn $name:ident($py:ident; $($lead:ident),+; $($flag:ident: $fty:ty),*; $len:ident)
     |$s:ident| $body:block) => {
        $(#[doc = $doc])*
        #[pyfunction]
        #[allow(clippy::too_many_arguments)]
        fn $name<'py>(
            $py: Python<'py>,
            $($lead: Arr<'py>,)+
            max_grad_norm: Arr<'py>,
            lr: Arr<'py>,
            diameter: Arr<'py>,
            steps: Arr<'py>,
            index: Option<Arr<'py>>,
            smoothness: Option<Arr<'py>>,
            strong_convexity: Arr<'py>,
            noise: &str,
            ordering: &str,
            variant: &str,
            $($flag: $fty,)*
            $len: usize,
        ) -> Out<'py> {
            let setup = setup_args(&max_grad_norm, &lr, &diameter, &smoothness, &strong_convexity)?;
            let $s = Model {
                setup,
                n: steps.as_slice()?,
                index: opt_slice(&index)?,
                noise: options::noise(noise).map_err(|e| to_py($py, e))?,
                order: options::order(ordering, variant).map_err(|e| to_py($py, e))?,
            };
            check_broadcast($len, &[
                $((stringify!($lead), Some($lead.as_slice()?)),)+
                ("max_grad_norm", Some(setup.max_grad_norm)),
                ("lr", Some(setup.lr)),
                ("diameter", Some(setup.diameter)),
                ("steps", Some($s.n)),
                ("index", $s.index),
                ("smoothness", setup.smoothness),
                ("strong_convexity", Some(setup.strong_convexity)),
            ])?;
            if $len == 0 {
                return Ok(empty($py)); // nothing to evaluate (numpy broadcasting with a size-0 axis)
            }
            $body
        }
    };
}

/// A comparison-bound binding `$name($lead..., sigma, max_grad_norm, lr, n, index, smoothness,
/// strong_convexity, $flag..., $len)`; `$body` sees the borrowed [`RdpParams`] as `$p`.
macro_rules! comparison {
    ($(#[doc = $doc:literal])*
     fn $name:ident($py:ident; $($lead:ident),*; $($flag:ident: $fty:ty),*; $len:ident)
     |$p:ident| $body:block) => {
        $(#[doc = $doc])*
        #[pyfunction]
        #[allow(clippy::too_many_arguments)]
        fn $name<'py>(
            $py: Python<'py>,
            $($lead: Arr<'py>,)*
            noise_scale: Arr<'py>,
            max_grad_norm: Arr<'py>,
            lr: Arr<'py>,
            steps: Arr<'py>,
            index: Arr<'py>,
            smoothness: Option<Arr<'py>>,
            strong_convexity: Arr<'py>,
            $($flag: $fty,)*
            $len: usize,
        ) -> Out<'py> {
            let $p = RdpParams {
                sigma: noise_scale.as_slice()?,
                max_grad_norm: max_grad_norm.as_slice()?,
                lr: lr.as_slice()?,
                n: steps.as_slice()?,
                index: index.as_slice()?,
                smoothness: opt_slice(&smoothness)?,
                strong_convexity: strong_convexity.as_slice()?,
            };
            check_broadcast($len, &[
                $((stringify!($lead), Some($lead.as_slice()?)),)*
                ("noise_scale", Some($p.sigma)),
                ("max_grad_norm", Some($p.max_grad_norm)),
                ("lr", Some($p.lr)),
                ("steps", Some($p.n)),
                ("index", Some($p.index)),
                ("smoothness", $p.smoothness),
                ("strong_convexity", Some($p.strong_convexity)),
            ])?;
            if $len == 0 {
                return Ok(empty($py)); // nothing to evaluate (numpy broadcasting with a size-0 axis)
            }
            $body
        }
    };
}

amplification! {
    /// δ (or ln δ with `log=True`) of the PNSGD bound, broadcast length `len`.
    fn pnsgd_delta(py; eps, noise_scale; log: bool; len) |s| {
        let (e, p) = (eps.as_slice()?, s.with_sigma(noise_scale.as_slice()?));
        fill(py, len, |out| {
            if log {
                pnsgd::log_delta(e, p, out)
            } else {
                pnsgd::delta(e, p, out)
            }
        })
    }
}

amplification! {
    /// Smallest ε whose δ does not exceed the target.
    fn pnsgd_epsilon(py; delta, noise_scale; ; len) |s| {
        let (d, p) = (delta.as_slice()?, s.with_sigma(noise_scale.as_slice()?));
        fill(py, len, |out| pnsgd::epsilon(d, p, out))
    }
}

amplification! {
    /// Smallest noise meeting (ε, δ).
    fn pnsgd_calibrate_noise_scale(py; eps, delta; ; len) |s| {
        let (e, d) = (eps.as_slice()?, delta.as_slice()?);
        fill(py, len, |out| pnsgd::calibrate_sigma(e, d, s, out))
    }
}

/// (A, B, 1 − B).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn pnsgd_factors<'py>(
    py: Python<'py>,
    eps: Arr<'py>,
    noise_scale: Arr<'py>,
    max_grad_norm: Arr<'py>,
    lr: Arr<'py>,
    diameter: Arr<'py>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    noise: &str,
    len: usize,
) -> Triple<'py> {
    let setup = setup_args(
        &max_grad_norm,
        &lr,
        &diameter,
        &smoothness,
        &strong_convexity,
    )?;
    let p = FactorParams {
        noise: options::noise(noise).map_err(|e| to_py(py, e))?,
        sigma: noise_scale.as_slice()?,
        setup,
    };
    let e = eps.as_slice()?;
    check_broadcast(
        len,
        &[
            ("eps", Some(e)),
            ("noise_scale", Some(p.sigma)),
            ("max_grad_norm", Some(setup.max_grad_norm)),
            ("lr", Some(setup.lr)),
            ("diameter", Some(setup.diameter)),
            ("smoothness", setup.smoothness),
            ("strong_convexity", Some(setup.strong_convexity)),
        ],
    )?;
    if len == 0 {
        return Ok((empty(py), empty(py), empty(py)));
    }
    fill3(py, len, |a, b, u| pnsgd::factors(e, p, a, b, u))
}

comparison! {
    /// δ_B (or ln δ_B) of the RDP comparison bound.
    fn pnsgd_rdp_delta(py; eps; log: bool; len) |p| {
        let e = eps.as_slice()?;
        fill(py, len, |out| pnsgd::rdp_delta(e, p, out, log))
    }
}

comparison! {
    /// ε(δ) of the RDP comparison bound.
    fn pnsgd_rdp_epsilon(py; delta; ; len) |p| {
        let d = delta.as_slice()?;
        fill(py, len, |out| pnsgd::rdp_epsilon(d, p, out))
    }
}

comparison! {
    /// c_i, the RDP slope of the comparison bound.
    fn pnsgd_rdp_slope(py; ; ; len) |p| {
        fill(py, len, |out| pnsgd::rdp_slope_values(p, out))
    }
}

/// The per-step arguments of the stepwise bounds, borrowed.
#[allow(clippy::too_many_arguments)]
fn step_params<'a>(
    py: Python<'_>,
    noise_scale: &'a Arr<'_>,
    setup: SetupArgs<'a>,
    run_lengths: &'a Option<Arr<'_>>,
    index: Option<f64>,
    noise: &str,
    ordering: &str,
) -> PyResult<StepParams<'a>> {
    Ok(StepParams {
        noise: options::noise(noise).map_err(|e| to_py(py, e))?,
        order: options::order(ordering, "corrected").map_err(|e| to_py(py, e))?,
        sigma: noise_scale.as_slice()?,
        setup,
        run_lengths: opt_slice(run_lengths)?,
        index,
    })
}

/// Whether a stepwise call is long (its work is `len` × `evals` × the pieces): then the Ctrl-C
/// handler of [`guarded`] is installed, as [`fill`] does by the output length alone.
fn steps_long(len: usize, evals: usize, p: &StepParams) -> bool {
    let s = p.setup;
    let pieces = [
        p.sigma.len(),
        s.max_grad_norm.len(),
        s.lr.len(),
        s.diameter.len(),
    ]
    .into_iter()
    .chain(p.run_lengths.map(|r| r.len()))
    .max()
    .unwrap_or(1);
    len.saturating_mul(evals).saturating_mul(pieces) >= LONG_LEN
}

/// δ (or ln δ) of PNSGD with per-step parameters, one value per ε; `dispatch`: a constant
/// schedule through the constant bound (bit for bit).
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn pnsgd_stepwise_delta<'py>(
    py: Python<'py>,
    eps: Arr<'py>,
    noise_scale: Arr<'py>,
    max_grad_norm: Arr<'py>,
    lr: Arr<'py>,
    diameter: Arr<'py>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    run_lengths: Option<Arr<'py>>,
    index: Option<f64>,
    noise: &str,
    ordering: &str,
    log: bool,
    dispatch: bool,
) -> Out<'py> {
    let setup = setup_args(
        &max_grad_norm,
        &lr,
        &diameter,
        &smoothness,
        &strong_convexity,
    )?;
    let p = step_params(
        py,
        &noise_scale,
        setup,
        &run_lengths,
        index,
        noise,
        ordering,
    )?;
    let e = eps.as_slice()?;
    let mut out = zeros(e.len())?;
    guarded(py, steps_long(e.len(), 1, &p), || {
        pnsgd::stepwise_delta(e, p, &mut out, log, dispatch)
    })?;
    Ok(out.into_pyarray(py))
}

/// The smallest ε whose per-step δ does not exceed each target.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn pnsgd_stepwise_epsilon<'py>(
    py: Python<'py>,
    delta: Arr<'py>,
    noise_scale: Arr<'py>,
    max_grad_norm: Arr<'py>,
    lr: Arr<'py>,
    diameter: Arr<'py>,
    smoothness: Option<Arr<'py>>,
    strong_convexity: Arr<'py>,
    run_lengths: Option<Arr<'py>>,
    index: Option<f64>,
    noise: &str,
    ordering: &str,
    dispatch: bool,
) -> Out<'py> {
    let setup = setup_args(
        &max_grad_norm,
        &lr,
        &diameter,
        &smoothness,
        &strong_convexity,
    )?;
    let p = step_params(
        py,
        &noise_scale,
        setup,
        &run_lengths,
        index,
        noise,
        ordering,
    )?;
    let d = delta.as_slice()?;
    let mut out = zeros(d.len())?;
    guarded(py, steps_long(d.len(), 128, &p), || {
        pnsgd::stepwise_epsilon(d, p, &mut out, dispatch)
    })?;
    Ok(out.into_pyarray(py))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            pnsgd_rdp_slope,
            pnsgd_delta,
            pnsgd_epsilon,
            pnsgd_calibrate_noise_scale,
            pnsgd_factors,
            pnsgd_rdp_delta,
            pnsgd_rdp_epsilon,
            pnsgd_stepwise_delta,
            pnsgd_stepwise_epsilon
        ]
    );
    Ok(())
}
