//! Bindings for `pabi_core::pnsgd`. Every array argument is a contiguous 1-D float64 array of
//! length 1 (broadcast, stride 0) or `len`; the Python layer (`pabi/pnsgd.py`) does the numpy
//! broadcasting without materializing scalar arguments.

use pabi_core::pnsgd::{
    self, FactorParams, Model, RdpParams, SourceParams, StepChunk, StepParams, StepSource,
};
use pabi_core::setup::SetupArgs;
use pyo3::prelude::*;

use crate::args::{
    add_functions, check_broadcast, fill, fill3, opt_slice, values_and_errors, Arr, Many, Np,
    Triple,
};
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

/// The per-step arguments of the stepwise bindings, one Python tuple: `(noise_scale,
/// max_grad_norm, lr, diameter, smoothness, strong_convexity, run_lengths, index, noise,
/// ordering, source, steps)`. Either the six arrays (`smoothness` and `run_lengths` optional;
/// `source`, `steps` None) or, for a callable of the step, `source` — a function
/// `(start, stop)` returning the six values of the steps `start + 1 ..= stop` (each a float64
/// array of stop − start values or of one value, `smoothness` None when not assumed) — and the
/// number of steps `steps` (the arrays None).
#[derive(FromPyObject)]
struct StepArgs<'py>(
    Option<Arr<'py>>,
    Option<Arr<'py>>,
    Option<Arr<'py>>,
    Option<Arr<'py>>,
    Option<Arr<'py>>,
    Option<Arr<'py>>,
    Option<Arr<'py>>,
    Option<f64>,
    String,
    String,
    Option<Py<PyAny>>,
    Option<f64>,
);

/// A Python chunk function as a [`StepSource`] (called with the GIL; its exception is kept
/// and raised in place of the core error that stops the computation).
struct PySource {
    f: Py<PyAny>,
    err: Option<PyErr>,
}

impl StepSource for PySource {
    fn fill(&mut self, start: usize, len: usize, c: &mut StepChunk) -> pabi_core::Result<()> {
        let r = Python::attach(|py| -> PyResult<()> {
            let t = self.f.bind(py).call1((start, start + len))?;
            type Six<'a> = (
                Option<Arr<'a>>,
                Option<Arr<'a>>,
                Option<Arr<'a>>,
                Option<Arr<'a>>,
                Option<Arr<'a>>,
                Option<Arr<'a>>,
            );
            let v: Six<'_> = t.extract()?;
            let put = |a: &Option<Arr<'_>>, x: &mut Vec<f64>| -> PyResult<()> {
                x.clear();
                if let Some(a) = a {
                    x.extend_from_slice(a.as_slice()?);
                }
                Ok(())
            };
            put(&v.0, &mut c.sigma)?;
            put(&v.1, &mut c.max_grad_norm)?;
            put(&v.2, &mut c.lr)?;
            put(&v.3, &mut c.diameter)?;
            match &v.4 {
                None => c.smoothness = None,
                b => put(b, c.smoothness.get_or_insert_with(Vec::new))?,
            }
            put(&v.5, &mut c.strong_convexity)
        });
        r.map_err(|e| {
            self.err = Some(e);
            pabi_core::PabiError::Shape {
                message: "the per-step callable failed".into(),
            }
        })
    }
}

/// Run `f` on the per-step input of `a` (borrowed arrays or the source) under [`guarded`]
/// (long: the core's work of the call, [`StepParams::work`], ≥ [`LONG_LEN`]; any source, which
/// calls back into Python); an exception of the source is raised as it is.
fn with_steps(
    py: Python<'_>,
    a: StepArgs<'_>,
    len: usize,
    inverse: bool,
    mut f: impl FnMut(StepInput<'_>) -> pabi_core::Result<()> + Send,
) -> PyResult<()> {
    let StepArgs(sg, l, lr, d, sm, rho, runs, index, noise, ordering, source, steps) = a;
    let noise = options::noise(&noise).map_err(|e| to_py(py, e))?;
    let order = options::order(&ordering, "corrected").map_err(|e| to_py(py, e))?;
    if let Some(f0) = source {
        let q = SourceParams {
            noise,
            order,
            steps: steps.unwrap_or(f64::NAN),
            index,
        };
        let mut src = PySource { f: f0, err: None };
        let r = guarded(py, true, || f(StepInput::Source(q, &mut src)));
        return match src.err.take() {
            Some(e) => Err(e),
            None => r,
        };
    }
    let p = StepParams {
        noise,
        order,
        sigma: req(&sg)?,
        setup: SetupArgs {
            max_grad_norm: req(&l)?,
            lr: req(&lr)?,
            diameter: req(&d)?,
            smoothness: opt_slice(&sm)?,
            strong_convexity: req(&rho)?,
        },
        run_lengths: opt_slice(&runs)?,
        index,
    };
    guarded(py, p.work(len, inverse) >= LONG_LEN, || {
        f(StepInput::Arrays(p))
    })
}

/// A per-step array that the array form requires.
fn req<'a>(x: &'a Option<Arr<'_>>) -> PyResult<&'a [f64]> {
    match x {
        Some(a) => Ok(a.as_slice()?),
        None => Err(pyo3::exceptions::PyValueError::new_err(
            "the per-step arrays are required without a source",
        )),
    }
}

/// The per-step input of a stepwise call.
enum StepInput<'a> {
    Arrays(StepParams<'a>),
    Source(SourceParams, &'a mut PySource),
}

/// A stepwise binding's body: `f(lead, input, out)` under [`with_steps`], one output per
/// element of the lead argument (ε, or with `inverse` a target δ).
fn stepwise<'py>(
    py: Python<'py>,
    lead: Arr<'py>,
    steps: StepArgs<'py>,
    inverse: bool,
    f: impl Fn(&[f64], StepInput<'_>, &mut [f64]) -> pabi_core::Result<()> + Send + Sync,
) -> Out<'py> {
    let x = lead.as_slice()?;
    let mut out = zeros(x.len())?;
    with_steps(py, steps, x.len(), inverse, |input| f(x, input, &mut out))?;
    Ok(out.into_pyarray(py))
}

/// δ (or ln δ) of PNSGD with per-step parameters ([`StepArgs`]), one value per ε; `dispatch`:
/// a constant schedule through the constant bound (bit for bit).
#[pyfunction]
fn pnsgd_stepwise_delta<'py>(
    py: Python<'py>,
    eps: Arr<'py>,
    steps: StepArgs<'py>,
    log: bool,
    dispatch: bool,
) -> Out<'py> {
    stepwise(py, eps, steps, false, |e, input, out| match input {
        StepInput::Arrays(p) => pnsgd::stepwise_delta(e, p, out, log, dispatch),
        StepInput::Source(q, s) => pnsgd::stepwise_delta_source(e, q, s, out, log, dispatch),
    })
}

/// The smallest ε whose per-step δ ([`StepArgs`]) does not exceed each target.
#[pyfunction]
fn pnsgd_stepwise_epsilon<'py>(
    py: Python<'py>,
    delta: Arr<'py>,
    steps: StepArgs<'py>,
    dispatch: bool,
) -> Out<'py> {
    stepwise(py, delta, steps, true, |d, input, out| match input {
        StepInput::Arrays(p) => pnsgd::stepwise_epsilon(d, p, out, dispatch),
        StepInput::Source(q, s) => pnsgd::stepwise_epsilon_source(d, q, s, out, dispatch),
    })
}

/// δ at `eps[j]` of the per-step schedule ([`StepArgs`], arrays only) whose noise is
/// `factor[j]`·σ_t, for every j (`pnsgd::stepwise_delta_factors`: the candidates in parallel):
/// the values and the errors of the elements where the one-schedule call fails ([`Many`]: each
/// that call's exception).
#[pyfunction]
fn pnsgd_stepwise_delta_factors<'py>(
    py: Python<'py>,
    eps: Arr<'py>,
    factor: Arr<'py>,
    steps: StepArgs<'py>,
    dispatch: bool,
) -> Many<'py> {
    let (e, c) = (eps.as_slice()?, factor.as_slice()?);
    let mut res = Vec::new();
    with_steps(py, steps, e.len(), false, |input| match input {
        StepInput::Arrays(p) => {
            res = pnsgd::stepwise_delta_factors(e, c, p, dispatch)?;
            Ok(())
        }
        StepInput::Source(..) => Err(pabi_core::PabiError::Shape {
            message: "the noise factors need per-step arrays, not a callable".into(),
        }),
    })?;
    values_and_errors(py, res)
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
            pnsgd_stepwise_epsilon,
            pnsgd_stepwise_delta_factors
        ]
    );
    Ok(())
}
