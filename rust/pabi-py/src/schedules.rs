//! Bindings for `pabi_core::schedules` (noise schedules, online decaying noise, limits δ*).
//! Every array argument has been broadcast to one length by `pabi/_bridge.py`; `has_smoothness`
//! says whether the smoothness array carries values (Python `None` otherwise).

use pabi_core::num::{exp_down, exp_up_unit};
use pabi_core::schedules::online::{self, OnlineSchedule};
use pabi_core::schedules::{self as sc, opt, Noise, Problem};
use pyo3::prelude::*;

use crate::args::{add_functions, check_broadcast, elementwise, fill, map, map_long, Arr as A};
use crate::{guarded, Out, LONG_LEN};

fn kind(laplace: bool) -> Noise {
    if laplace {
        Noise::Laplace
    } else {
        Noise::Gaussian
    }
}

elementwise!(
    map,
    fn schedule_noise(
        [n, c1, c2, lr, diameter, smoothness, strong_convexity],
        has_smoothness: bool,
        laplace: bool,
    )
    let f = if laplace { sc::laplace_schedule_scale } else { sc::gauss_schedule_sigma };
    |[n, c1, c2, lr, d, sm, st]| f(n, c1, c2, lr, d, opt(has_smoothness, sm), st)
);

/// δ(n) of a shuffled schedule; every array has length 1 (broadcast) or `len`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn schedule_delta<'py>(
    py: Python<'py>,
    eps: A<'py>,
    lipschitz: A<'py>,
    lr: A<'py>,
    diameter: A<'py>,
    n: A<'py>,
    c1: A<'py>,
    c2: A<'py>,
    smoothness: A<'py>,
    strong_convexity: A<'py>,
    has_smoothness: bool,
    laplace: bool,
    len: usize,
) -> Out<'py> {
    let args = sc::ScheduleArgs {
        eps: eps.as_slice()?,
        lipschitz: lipschitz.as_slice()?,
        lr: lr.as_slice()?,
        diameter: diameter.as_slice()?,
        n: n.as_slice()?,
        c1: c1.as_slice()?,
        c2: c2.as_slice()?,
        smoothness: if has_smoothness {
            Some(smoothness.as_slice()?)
        } else {
            None
        },
        strong_convexity: strong_convexity.as_slice()?,
    };
    check_broadcast(
        len,
        &[
            ("eps", Some(args.eps)),
            ("lipschitz", Some(args.lipschitz)),
            ("lr", Some(args.lr)),
            ("diameter", Some(args.diameter)),
            ("n", Some(args.n)),
            ("c1", Some(args.c1)),
            ("c2", Some(args.c2)),
            ("smoothness", args.smoothness),
            ("strong_convexity", Some(args.strong_convexity)),
        ],
    )?;
    if len == 0 {
        return Ok(numpy::PyArray1::zeros(py, 0, false)); // nothing to evaluate
    }
    fill(py, len, |out| sc::schedule_delta(laplace, args, out))
}

elementwise!(
    map,
    fn schedule_delta_star([eps, c1], laplace: bool)
    |[e, c]| sc::schedule_delta_star(kind(laplace), e, c)
);

elementwise!(
    map,
    fn schedule_c1_for_target([delta_star, eps], laplace: bool)
    |[d, e]| sc::schedule_c1_for_target(kind(laplace), d, e)
);

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn online_delta<'py>(
    py: Python<'py>,
    noise: A<'py>,
    eps: f64,
    lipschitz: f64,
    lr: f64,
    diameter: f64,
    smoothness: Option<f64>,
    strong_convexity: f64,
    laplace: bool,
    log: bool,
) -> Out<'py> {
    let xs = noise.as_slice()?;
    fill(py, xs.len(), |out| {
        let p = Problem::new(eps, lipschitz, lr, diameter, smoothness, strong_convexity)?;
        online::online_delta_all(kind(laplace), &p, xs, out, log)
    })
}

#[pyfunction]
#[allow(clippy::too_many_arguments)]
fn online_delta_at(
    py: Python<'_>,
    noise: A<'_>,
    index: f64,
    eps: f64,
    lipschitz: f64,
    lr: f64,
    diameter: f64,
    smoothness: Option<f64>,
    strong_convexity: f64,
    laplace: bool,
    log: bool,
) -> PyResult<f64> {
    let xs = noise.as_slice()?;
    let v = guarded(py, xs.len() >= LONG_LEN, || {
        let p = Problem::new(eps, lipschitz, lr, diameter, smoothness, strong_convexity)?;
        online::online_log_delta_at(kind(laplace), &p, xs, index)
    })?;
    Ok(if log { v } else { online::prob_from_log(v) })
}

elementwise!(
    map,
    fn online_schedule_noise(
        [index, c1, c2, decay, lr, diameter, smoothness, strong_convexity],
        has_smoothness: bool,
        laplace: bool,
    )
    |[j, c1, c2, al, lr, d, sm, st]| {
        let p = Problem::new(0.0, 0.0, lr, d, opt(has_smoothness, sm), st)?;
        OnlineSchedule::new(kind(laplace), p, c1, c2, al)?.noise(j)
    }
);

elementwise!(
    /// which: 0 = δ_n(i), 1 = δ_∞(i), 2 = certified bound of δ_∞(i), 3 = eq. (13)/(15) upper,
    /// 4 = integral lower bound.
    map_long,
    fn online_schedule_bound(
        which: u8,
        [eps, lipschitz, lr, diameter, n, index, c1, c2, decay, smoothness, strong_convexity],
        has_smoothness: bool,
        laplace: bool,
        as_published: bool,
        log: bool,
    )
    |[e, l, lr, d, n, i, c1, c2, al, sm, st]| {
        let p = Problem::new(e, l, lr, d, opt(has_smoothness, sm), st)?;
        let s = OnlineSchedule::new(kind(laplace), p, c1, c2, al)?;
        let v = match which {
            0 => s.log_delta(n, i)?,
            1 => s.log_delta_limit(i)?,
            2 => s.log_delta_limit_bound(i)?,
            3 => s.log_delta_star_upper(i, as_published)?,
            _ => s.log_delta_star_lower(i)?,
        };
        Ok(if log {
            v
        } else if which == 4 {
            exp_down(v)
        } else {
            exp_up_unit(v)
        })
    }
);

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    add_functions!(
        m,
        [
            schedule_noise,
            schedule_delta,
            schedule_delta_star,
            schedule_c1_for_target,
            online_delta,
            online_delta_at,
            online_schedule_noise,
            online_schedule_bound
        ]
    );
    Ok(())
}
