//! Bindings for `pabi_core::schedules` (noise schedules, online decaying noise, limits δ*).
//! Every array argument has been broadcast to one length by `pabi/_bridge.py`; `smoothness` is
//! `None` when β is not given. Options are converted by `options.rs`.

use numpy::IntoPyArray;
use pabi_core::schedules::online::{self, OnlineSchedule};
use pabi_core::schedules::{self as sc, Problem};
use pabi_core::setup::Setup;
use pyo3::prelude::*;

use crate::args::{add_functions, check_broadcast, elementwise, fill, map, map_long, Arr as A};
use crate::options::{self, mechanism};
use crate::{guarded, to_py, zeros, Out, LONG_LEN};

/// The arrays of the training setup, as one tuple from Python: `lr`, `diameter`, `smoothness`
/// (`None` when β is not given), `strong_convexity`.
type SetupArrays<'py> = (A<'py>, A<'py>, Option<A<'py>>, A<'py>);

/// The arrays of an element-wise binding: `lead` (`L` of them), then the setup's η, D, β, ρ
/// (`K` = `L` + 4 in all), and whether β is given: when it is absent, `lead[0]` takes its place
/// (same length) so that the kernel, told it is not `given`, reads `None` there.
fn with_setup<'a, const L: usize, const K: usize>(
    lead: [&'a [f64]; L],
    setup: &'a SetupArrays<'_>,
) -> PyResult<([&'a [f64]; K], bool)> {
    const { assert!(K == L + 4 && L > 0) };
    let (lr, diameter, smoothness, strong_convexity) = setup;
    let smoothness = crate::args::opt_slice(smoothness)?;
    let tail = [
        lr.as_slice()?,
        diameter.as_slice()?,
        smoothness.unwrap_or(lead[0]),
        strong_convexity.as_slice()?,
    ];
    let all = std::array::from_fn(|i| if i < L { lead[i] } else { tail[i - L] });
    Ok((all, smoothness.is_some()))
}

/// The training setup of one element of an online binding: L, then the setup (η, D, β, ρ; β
/// absent unless `given`, see [`with_setup`]).
fn element_setup(max_grad_norm: f64, setup: [f64; 4], given: bool) -> Setup {
    let [lr, diameter, smoothness, strong_convexity] = setup;
    core_setup(
        max_grad_norm,
        lr,
        diameter,
        given.then_some(smoothness),
        strong_convexity,
    )
}

/// The core's training setup (L, η, D, β or `None`, ρ; validated later by the core's
/// constructors of a problem): the one place this module builds a [`Setup`].
fn core_setup(
    max_grad_norm: f64,
    lr: f64,
    diameter: f64,
    smoothness: Option<f64>,
    strong_convexity: f64,
) -> Setup {
    Setup {
        max_grad_norm,
        lr,
        diameter,
        smoothness,
        strong_convexity,
    }
}

/// Schedule noise level (σ or v) of a run of n steps.
#[pyfunction]
fn schedule_noise<'py>(
    py: Python<'py>,
    steps: A<'py>,
    c1: A<'py>,
    c2: A<'py>,
    setup: SetupArrays<'py>,
    laplace: bool,
) -> Out<'py> {
    let (arrays, given) = with_setup::<3, 7>(crate::args::slices![steps, c1, c2], &setup)?;
    let kind = mechanism(laplace);
    map(
        py,
        arrays,
        |[steps, c1, c2, lr, diameter, smoothness, strong_convexity]| {
            let smoothness = given.then_some(smoothness);
            sc::schedule_noise(
                kind,
                steps,
                c1,
                c2,
                lr,
                diameter,
                smoothness,
                strong_convexity,
            )
        },
    )
}

/// The broadcast arguments of the fixed-horizon schedules, their lengths checked (1 or `len`);
/// `first` names the first argument (ε for δ(n), δ for its inversion).
#[allow(clippy::too_many_arguments)]
fn schedule_args<'a>(
    first: (&'static str, &'a [f64]),
    max_grad_norm: &'a [f64],
    lr: &'a [f64],
    diameter: &'a [f64],
    steps: &'a [f64],
    c1: &'a [f64],
    c2: &'a [f64],
    smoothness: Option<&'a [f64]>,
    strong_convexity: &'a [f64],
    len: usize,
) -> PyResult<sc::ScheduleArgs<'a>> {
    check_broadcast(
        len,
        &[
            (first.0, Some(first.1)),
            ("max_grad_norm", Some(max_grad_norm)),
            ("lr", Some(lr)),
            ("diameter", Some(diameter)),
            ("steps", Some(steps)),
            ("c1", Some(c1)),
            ("c2", Some(c2)),
            ("smoothness", smoothness),
            ("strong_convexity", Some(strong_convexity)),
        ],
    )?;
    Ok(sc::ScheduleArgs {
        eps: first.1,
        max_grad_norm,
        lr,
        diameter,
        n: steps,
        c1,
        c2,
        smoothness,
        strong_convexity,
    })
}

/// δ(n) of a shuffled schedule at the ε of `eps`, or with `inverse` its ε(δ) at the targets δ
/// that `eps` then holds (the smallest ε with the certified δ(n) ≤ δ); every array has length 1
/// (broadcast) or `len`.
#[pyfunction]
#[pyo3(signature = (eps, max_grad_norm, lr, diameter, steps, c1, c2, smoothness, strong_convexity, laplace, len, inverse))]
#[allow(clippy::too_many_arguments)]
fn schedule_bound<'py>(
    py: Python<'py>,
    eps: A<'py>,
    max_grad_norm: A<'py>,
    lr: A<'py>,
    diameter: A<'py>,
    steps: A<'py>,
    c1: A<'py>,
    c2: A<'py>,
    smoothness: Option<A<'py>>,
    strong_convexity: A<'py>,
    laplace: bool,
    len: usize,
    inverse: bool,
) -> Out<'py> {
    let args = schedule_args(
        (if inverse { "delta" } else { "eps" }, eps.as_slice()?),
        max_grad_norm.as_slice()?,
        lr.as_slice()?,
        diameter.as_slice()?,
        steps.as_slice()?,
        c1.as_slice()?,
        c2.as_slice()?,
        crate::args::opt_slice(&smoothness)?,
        strong_convexity.as_slice()?,
        len,
    )?;
    if len == 0 {
        return Ok(numpy::PyArray1::zeros(py, 0, false)); // nothing to evaluate
    }
    let kind = mechanism(laplace);
    let bound = if inverse {
        sc::schedule_epsilon
    } else {
        sc::schedule_delta
    };
    fill(py, len, |out| bound(kind, args, out))
}

elementwise!(
    map,
    fn schedule_delta_star([eps, c1], laplace: bool)
    let kind = mechanism(laplace);
    |[eps, c1]| sc::schedule_delta_star(kind, eps, c1)
);

elementwise!(
    map,
    fn schedule_calibrate_c1([eps, delta], laplace: bool)
    let kind = mechanism(laplace);
    |[eps, delta]| sc::schedule_c1_for_target(kind, delta, eps)
);

/// The scalar setup of a run with a given per-step noise array (`online_delta`,
/// `online_epsilon_at`): the items of a Python mapping (`max_grad_norm`, `lr`, `diameter`,
/// `smoothness` (`None` when β is not given), `strong_convexity`), converted once.
#[derive(FromPyObject)]
#[pyo3(from_item_all)]
struct RunSetup {
    max_grad_norm: f64,
    lr: f64,
    diameter: f64,
    smoothness: Option<f64>,
    strong_convexity: f64,
}

impl RunSetup {
    /// The core setup (validated by the core's constructors of a problem).
    fn setup(&self) -> Setup {
        core_setup(
            self.max_grad_norm,
            self.lr,
            self.diameter,
            self.smoothness,
            self.strong_convexity,
        )
    }
}

/// δ_n(i) of a run with the per-step noise array `noise_scale` (ln δ with `log`): for every
/// record i = 1..n (an array) without `index`, else of the record `index` (a float).
#[pyfunction]
#[pyo3(signature = (noise_scale, eps, setup, laplace, log, index = None))]
fn online_delta<'py>(
    py: Python<'py>,
    noise_scale: A<'py>,
    eps: f64,
    setup: RunSetup,
    laplace: bool,
    log: bool,
    index: Option<f64>,
) -> PyResult<Bound<'py, PyAny>> {
    let noise = noise_scale.as_slice()?;
    let kind = mechanism(laplace);
    match index {
        None => Ok(fill(py, noise.len(), |out| {
            online::online_delta_all(
                kind,
                &Problem::from_setup(eps, &setup.setup())?,
                noise,
                out,
                log,
            )
        })?
        .into_any()),
        Some(i) => {
            let delta = guarded(py, noise.len() >= LONG_LEN, || {
                online::online_delta_at(
                    kind,
                    &Problem::from_setup(eps, &setup.setup())?,
                    noise,
                    i,
                    log,
                )
            })?;
            Ok(pyo3::types::PyFloat::new(py, delta).into_any())
        }
    }
}

/// Online schedule noise level of step `index`.
#[pyfunction]
fn online_schedule_noise<'py>(
    py: Python<'py>,
    index: A<'py>,
    c1: A<'py>,
    c2: A<'py>,
    decay: A<'py>,
    setup: SetupArrays<'py>,
    laplace: bool,
) -> Out<'py> {
    let lead = crate::args::slices![index, c1, c2, decay];
    let (arrays, given) = with_setup::<4, 8>(lead, &setup)?;
    let kind = mechanism(laplace);
    map(
        py,
        arrays,
        |[step, c1, c2, decay, lr, d, smoothness, rho]| {
            let p = Problem::for_noise(lr, d, given.then_some(smoothness), rho)?;
            OnlineSchedule::new(kind, p, c1, c2, decay)?.noise(step)
        },
    )
}

/// A quantity of an online schedule (`quantity`: 'delta' = δ_n(i), 'limit' = δ_∞(i),
/// 'limit_bound' = certified bound of δ_∞(i), 'star_upper' = eq. (13)/(15) upper bound (printed
/// form with `as_published`), 'star_lower' = integral lower bound); ln δ with `log`. With
/// `inverse`, `eps` holds targets δ and the result is ε(δ) of the (upper-bound) quantity, the
/// smallest certified ε, +∞ where no ε of the Laplace bound's domain meets δ
/// (`pabi_core::schedules::online::online_schedule_epsilon`; `log` must be false). With
/// `defined` (not with `inverse`), the pair (values, defined): an element where the Laplace
/// schedule's bound is undefined (index^decay + c1·c2 ≤ c1·e^{ε/2}) is NaN and false in the
/// bool mask instead of the call's error; every other error is raised as without `defined`,
/// before any value is computed; with `values` false only the mask is computed (O(1) an
/// element; the values are NaN) (`pabi_core::schedules::online::quantities_if_defined`).
#[pyfunction]
#[pyo3(signature = (
    quantity, eps, max_grad_norm, steps, index, c1, c2, decay, setup, laplace, as_published, log,
    inverse = false, defined = false, values = true
))]
#[allow(clippy::too_many_arguments)]
fn online_schedule_bound<'py>(
    py: Python<'py>,
    quantity: &str,
    eps: A<'py>,
    max_grad_norm: A<'py>,
    steps: A<'py>,
    index: A<'py>,
    c1: A<'py>,
    c2: A<'py>,
    decay: A<'py>,
    setup: SetupArrays<'py>,
    laplace: bool,
    as_published: bool,
    log: bool,
    inverse: bool,
    defined: bool,
    values: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let q = options::online_quantity(quantity, as_published).map_err(|e| to_py(py, e))?;
    let bad = |param, allowed| Err(to_py(py, pabi_core::PabiError::domain(param, allowed, 1.0)));
    if inverse && log {
        return bad("log", "false for the inverse");
    }
    if inverse && defined {
        return bad("defined", "false for the inverse");
    }
    let lead = crate::args::slices![eps, max_grad_norm, steps, index, c1, c2, decay];
    let (arrays, given) = with_setup::<7, 11>(lead, &setup)?;
    let kind = mechanism(laplace);
    if defined {
        let len = pabi_core::driver::broadcast_len(arrays.iter().map(|a| a.len()));
        let (mut mask, mut out) = (zeros(len)?, zeros(len)?);
        guarded(py, true, || {
            let element = |a| online_element(kind, given, a);
            let out = values.then_some(&mut out[..]);
            online::quantities_if_defined(arrays, q, log, element, &mut mask, out)
        })?;
        if !values {
            out.fill(f64::NAN); // the values not asked for
        }
        let mut flags: Vec<bool> = Vec::new();
        flags.try_reserve_exact(len).map_err(|_| {
            pyo3::exceptions::PyMemoryError::new_err(format!(
                "cannot allocate a mask of {len} values"
            ))
        })?;
        flags.extend(mask.iter().map(|&d| d == 1.0));
        let mask = flags;
        return Ok((out.into_pyarray(py), mask.into_pyarray(py))
            .into_pyobject(py)?
            .into_any());
    }
    Ok(map_long(py, arrays, |a| {
        if inverse {
            let [delta, max_grad_norm, steps, index, c1, c2, decay, setup @ ..] = a;
            let p = Problem::for_search(&element_setup(max_grad_norm, setup, given))?;
            return online::online_schedule_epsilon(
                kind, &p, c1, c2, decay, q, steps, index, delta,
            );
        }
        let (s, steps, index) = online_element(kind, given, a)?;
        s.quantity(q, steps, index, log)
    })?
    .into_any())
}

/// The schedule, horizon n and index i of one element of [`online_schedule_bound`]'s arrays
/// (ε, L, n, i, C1, C2, α, then the setup; see [`with_setup`]).
fn online_element(
    kind: sc::Noise,
    given: bool,
    [eps, max_grad_norm, steps, index, c1, c2, decay, setup @ ..]: [f64; 11],
) -> pabi_core::Result<(OnlineSchedule, f64, f64)> {
    let p = Problem::from_setup(eps, &element_setup(max_grad_norm, setup, given))?;
    Ok((OnlineSchedule::new(kind, p, c1, c2, decay)?, steps, index))
}

/// ε(δ) at record `index` of a run with the per-step noise array `noise_scale`, for every
/// target of `delta` (`pabi_core::schedules::online::online_epsilon_at`).
#[pyfunction]
fn online_epsilon_at<'py>(
    py: Python<'py>,
    noise_scale: A<'py>,
    index: f64,
    delta: A<'py>,
    setup: RunSetup,
    laplace: bool,
) -> Out<'py> {
    let noise = noise_scale.as_slice()?;
    let kind = mechanism(laplace);
    let p = Problem::for_search(&setup.setup()).map_err(|e| to_py(py, e))?;
    map_long(py, [delta.as_slice()?], |[delta]| {
        online::online_epsilon_at(kind, &p, noise, index, delta)
    })
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            schedule_noise,
            schedule_bound,
            schedule_delta_star,
            schedule_calibrate_c1,
            online_delta,
            online_schedule_noise,
            online_schedule_bound,
            online_epsilon_at
        ]
    );
    Ok(())
}
