//! The former element-wise driver of the binding (equally long arrays, K outputs per element,
//! the first domain error located at its element, chunks of 2048 on the shared pool from 4096
//! elements). Replaced by `crate::driver::map_rows(args, 2 * 2048, 2048, shape, f)`; compiled
//! in test builds only, as the reference `driver_tests.rs` checks the driver against bit for
//! bit. Delete it together with that comparison.

use crate::error::{PabiError, Result};
use rayon::prelude::*;

const CHUNK: usize = 2048;

/// Evaluate `f` on every element of the N argument arrays; returns the K outputs as one flat
/// row-major (K, n) vector. An error is reported at the first failing element (index order).
pub fn map_elements<const N: usize, const K: usize>(
    args: [&[f64]; N],
    f: impl Fn([f64; N]) -> Result<[f64; K]> + Sync,
) -> Result<Vec<f64>> {
    let n = if N == 0 { 0 } else { args[0].len() };
    if args.iter().any(|a| a.len() != n) {
        return Err(PabiError::Shape {
            message: "argument arrays must have equal lengths".into(),
        });
    }
    let eval = |lo: usize, hi: usize| -> Result<Vec<[f64; K]>> {
        let mut buf = Vec::with_capacity(hi - lo);
        for i in lo..hi {
            crate::interrupt::check()?;
            let mut x = [0.0; N];
            for (k, a) in args.iter().enumerate() {
                x[k] = a[i];
            }
            buf.push(f(x).map_err(|e| e.at(i))?);
        }
        Ok(buf)
    };
    let rows: Vec<[f64; K]> = match crate::batch::pool() {
        Some(p) if n >= 2 * CHUNK => {
            let parts: Vec<Result<Vec<[f64; K]>>> = p.install(|| {
                (0..n.div_ceil(CHUNK))
                    .into_par_iter()
                    .map(|c| eval(c * CHUNK, ((c + 1) * CHUNK).min(n)))
                    .collect()
            });
            let mut rows = Vec::with_capacity(n);
            for part in parts {
                rows.extend(part?); // chunks in index order: the first error is the first bad index
            }
            rows
        }
        _ => eval(0, n)?,
    };
    let mut out = vec![0.0; K * n];
    for (i, r) in rows.iter().enumerate() {
        for k in 0..K {
            out[k * n + i] = r[k];
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_bad_index_and_layout() {
        let a: Vec<f64> = (0..10_000).map(|i| i as f64).collect();
        let out = map_elements([&a[..]], |x| Ok([x[0], 2.0 * x[0]])).unwrap();
        assert_eq!(out[9_999], 9_999.0);
        assert_eq!(out[10_000 + 3], 6.0);
        let e = map_elements([&a[..]], |x| {
            if x[0] >= 7_000.0 {
                Err(PabiError::domain("x", "< 7000", x[0]))
            } else {
                Ok([x[0]])
            }
        });
        assert!(matches!(
            e,
            Err(PabiError::Domain {
                index: Some(7_000),
                ..
            })
        ));
    }
}
