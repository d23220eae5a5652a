//! The GDP inversions over arrays (`gdp.rs`'s array drivers): validation with the first bad
//! index, the pool for large arrays, and the lock-step block searches (bitwise equal to the
//! scalar `gdp_epsilon` / `gdp_mu` per element).

use super::*;

// Element loops compiled per target (outside a multiversioned function `f64::mul_add` is a
// software call, ~10x slower).
simd! {
    fn k_gdp_epsilon(d: &[f64], m: &[f64], out: &mut [f64]) {
        const B: usize = crate::theta::BLOCK;
        // an input of length 1 is a broadcast value (`driver::at`): read in place, never expanded
        for (c, o) in out.chunks_mut(B).enumerate() {
            let s = c * B;
            if o.len() == B {
                let mut ob = [0.0; B];
                let mut ab = [0.0; B];
                let mut bb = [0.0; B];
                for j in 0..B {
                    ab[j] = at(d, s + j);
                    bb[j] = at(m, s + j);
                }
                gdp_epsilon_block(&ab, &bb, &mut ob);
                o.copy_from_slice(&ob);
            } else {
                for (j, o) in o.iter_mut().enumerate() {
                    // validated: cannot fail; +∞ is the safe side should it ever
                    *o = gdp_epsilon(at(d, s + j), at(m, s + j)).unwrap_or(f64::INFINITY);
                }
            }
        }
    }
}

/// [`gdp_epsilon`] on a block of validated lanes, bitwise equal per lane. A Newton step waits for
/// the previous one, and one evaluation of ln θ, ln Q and exp has a latency of ~700 ns against a
/// throughput of ~50 ns; so the Newton iterations of all lanes run together, each round
/// evaluating every lane through the block kernel (lanes already done repeat a harmless point).
/// The per-lane update is [`newton_dec`]'s; a lane not closed after its 60 evaluations takes the
/// scalar path.
#[inline(always)]
fn gdp_epsilon_block(
    delta: &[f64; crate::theta::BLOCK],
    mu: &[f64; crate::theta::BLOCK],
    out: &mut [f64; crate::theta::BLOCK],
) {
    const B: usize = crate::theta::BLOCK;
    let mut ld = [0.0; B];
    let mut lo = [0.0; B];
    let mut hi = [0.0; B];
    let mut x = [0.0; B];
    let mut active = [false; B];
    for j in 0..B {
        let (d, m) = (delta[j], mu[j]);
        ld[j] = ln_down_2u(d);
        if m == 0.0 || log_theta(0.0, m) <= ld[j] {
            out[j] = 0.0;
            x[j] = 1.0;
            continue;
        }
        let mut h = (m * m / 2.0 + m * (-2.0 * ld[j]).sqrt() + 1.0).max(1.0);
        while log_theta(h, m) - ld[j] > 0.0 {
            h *= 2.0;
            if !h.is_finite() {
                break;
            }
        }
        if !h.is_finite() {
            out[j] = f64::INFINITY;
            x[j] = 1.0;
            continue;
        }
        hi[j] = h;
        let a0 = ((-2.0 * ld[j]).sqrt() - 1.0).max(0.0);
        let x0 = m * (a0 + m / 2.0);
        x[j] = if x0 > 0.0 && x0 < h { x0 } else { 0.5 * h };
        active[j] = true;
    }
    let mut lt = [0.0; B];
    let mut tb = crate::theta::ThetaBlocks::default();
    for _ in 0..60 {
        if !active.iter().any(|&a| a) {
            break;
        }
        tb.log_theta(&x, mu, &mut lt);
        for j in 0..B {
            if !active[j] {
                continue;
            }
            let (m, xj) = (mu[j], x[j]);
            let gx = lt[j] - ld[j];
            let dx = -(xj + log_gaussian_tail(xj / m + m / 2.0) - lt[j]).exp();
            if gx > 0.0 {
                lo[j] = xj;
            } else {
                hi[j] = xj;
            }
            if hi[j] - lo[j] <= EPS2 * hi[j].abs().max(lo[j].abs()) || hi[j] <= lo[j].next_up() {
                out[j] = hi[j];
                active[j] = false;
                x[j] = 1.0;
                continue;
            }
            let mut xn = xj - gx / dx;
            let tiny = EPS4 * xj.abs().max(f64::MIN_POSITIVE);
            if (xn - xj).abs() < tiny {
                xn = if gx > 0.0 { xj + tiny } else { xj - tiny };
            }
            if !(xn > lo[j] && xn < hi[j]) {
                xn = 0.5 * (lo[j] + hi[j]);
            }
            x[j] = xn;
        }
    }
    for j in 0..B {
        if active[j] {
            let m = mu[j];
            let l = ld[j];
            out[j] = bracket_dec(|e: f64| log_theta(e, m) - l, lo[j], hi[j]).1;
        }
    }
    for j in 0..B {
        out[j] = refine_eps(delta[j], mu[j], out[j]);
    }
}

/// The next element of [`k_gdp_mu`]'s chunk whose search needs evaluations (from `*next`
/// on), with its search; the elements before it are finished in `out` (those [`gdp_mu`] does
/// not answer by the search by [`gdp_mu`], a search decided without evaluations by its result).
#[inline(always)]
fn mu_take(e: &[f64], d: &[f64], next: &mut usize, out: &mut [f64]) -> Option<(usize, MuSearch)> {
    while *next < out.len() {
        let i = *next;
        *next += 1;
        let (ei, di) = (at(e, i), at(d, i));
        if MuSearch::applies(ei, di) {
            let m = MuSearch::new(ei, di);
            if m.probe().is_some() {
                return Some((i, m));
            }
            out[i] = m.result();
        } else {
            out[i] = gdp_mu(ei, di).unwrap_or(0.0); // validated: cannot fail
        }
    }
    None
}

simd! {
    /// [`gdp_mu`] over a chunk, bitwise equal per element: the searches of [`refine_mu`]
    /// ([`MuSearch`]) of [`theta::BLOCK`](crate::theta::BLOCK) elements in lock-step, each round
    /// evaluating every lane's next point through the block kernel (a scalar θ waits for the
    /// previous one: its latency is several times the block kernel's cost per lane). A lane
    /// whose search ends takes the next element of the chunk, so one long search (64 midpoints
    /// where no certificate exists) does not hold the others. Elements with
    /// δ < f64::MIN_POSITIVE take [`gdp_mu`]'s log-space path.
    fn k_gdp_mu(e: &[f64], d: &[f64], out: &mut [f64]) {
        const B: usize = crate::theta::BLOCK;
        // an input of length 1 is a broadcast value (`driver::at`): read in place, never expanded
        let mut next = 0usize;
        let mut lanes = [None::<(usize, MuSearch)>; B];
        for l in lanes.iter_mut() {
            *l = mu_take(e, d, &mut next, out);
        }
        let mut tb = crate::theta::ThetaBlocks::default();
        let (mut eb, mut x, mut t) = ([0.0; B], [1.0; B], [0.0; B]);
        while lanes.iter().any(Option::is_some) {
            for j in 0..B {
                (eb[j], x[j]) = match &lanes[j] {
                    Some((_, m)) => (m.eps, m.probe().unwrap_or(1.0)),
                    None => (0.0, 1.0),
                };
            }
            tb.theta(&eb, &x, &mut t);
            for j in 0..B {
                if let Some((i, m)) = lanes[j].as_mut() {
                    m.feed(t[j]);
                    if m.probe().is_none() {
                        out[*i] = m.result();
                        lanes[j] = mu_take(e, d, &mut next, out);
                    }
                }
            }
        }
    }
}

/// [`gdp_epsilon`] elementwise: `delta` and `mu` as long as `out` or of length 1 (a broadcast
/// value, read in place).
pub fn gdp_epsilon_array(delta: &[f64], mu: &[f64], out: &mut [f64]) -> Result<()> {
    crate::batch::check_len(out.len(), &[("delta", delta.len()), ("mu", mu.len())])?;
    crate::batch::check(delta, "delta", "in (0, 1)", |x| x > 0.0 && x < 1.0)?;
    crate::batch::check(mu, "mu", ">= 0 and finite", |x| x >= 0.0 && x.is_finite())?;
    crate::batch::run2_heavy(delta, mu, out, k_gdp_epsilon)?;
    Ok(())
}

/// [`gdp_mu`] elementwise: `eps` and `delta` as long as `out` or of length 1 (a broadcast value,
/// read in place).
pub fn gdp_mu_array(eps: &[f64], delta: &[f64], out: &mut [f64]) -> Result<()> {
    crate::batch::check_len(out.len(), &[("eps", eps.len()), ("delta", delta.len())])?;
    crate::batch::check(eps, "eps", ">= 0 and finite", |x| x >= 0.0 && x.is_finite())?;
    crate::batch::check(delta, "delta", "in (0, 1)", |x| x > 0.0 && x < 1.0)?;
    crate::batch::run2_heavy(eps, delta, out, k_gdp_mu)?;
    Ok(())
}
