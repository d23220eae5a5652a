//! Criterion benchmark of the θ array kernels: the block kernel used by `batch::theta` against
//! the same scalar function mapped lane by lane (both multiversioned), single-threaded.
//! `cargo bench -p pabi-bench --bench theta`
//!
//! "ln_theta_dd + exp_dd per lane" times the double-double evaluation of `theta_dd` on the
//! lanes of the same workload where θ does not underflow (a < 38): the cost per lane of a
//! precise second stage, as a Ziv-style exactly monotone θ would need for its undecided lanes
//! (`benches/bench_theta.py --ziv` measures their fraction).

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use pabi_core::dd::{exp_dd, Dd};
use pabi_core::{theta, theta_dd};

#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512vl+avx512dq+avx2+fma",
    "x86_64+avx2+fma"
))]
fn lanes(eps: &[f64], r: &[f64], out: &mut [f64]) {
    for ((o, &a), &b) in out.iter_mut().zip(eps).zip(r) {
        *o = theta::theta(a, b);
    }
}

#[multiversion::multiversion(targets(
    "x86_64+avx512f+avx512vl+avx512dq+avx2+fma",
    "x86_64+avx2+fma"
))]
fn blocks(eps: &[f64], r: &[f64], out: &mut [f64]) {
    let mut tb = theta::ThetaBlocks::default();
    for ((o, a), b) in out
        .chunks_mut(theta::BLOCK)
        .zip(eps.chunks(theta::BLOCK))
        .zip(r.chunks(theta::BLOCK))
    {
        tb.theta(a, b, o);
    }
}

// the unit tests' generator (a test-only module of the crate, so included here as a file)
#[path = "../../pabi-core/src/num/test_rng.rs"]
#[allow(dead_code, unused_imports)]
mod test_rng;

fn points(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut rng = test_rng::XorShift::with_seed(0x2545_F491_4F6C_DD1D);
    let mut rnd = move || rng.next_f64();
    let eps = (0..n).map(|_| 10.0 * rnd()).collect();
    let r = (0..n).map(|_| 10f64.powf(-2.0 + 3.0 * rnd())).collect();
    (eps, r)
}

fn bench(c: &mut Criterion) {
    let n = 1 << 16;
    let (eps, r) = points(n);
    let mut out = vec![0.0; n];
    let mut g = c.benchmark_group("theta");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("scalar lanes", |b| b.iter(|| lanes(&eps, &r, &mut out)));
    g.bench_function("blocks", |b| b.iter(|| blocks(&eps, &r, &mut out)));
    g.bench_function("batch::theta (validated, threads)", |b| {
        b.iter(|| pabi_core::batch::theta(&eps, &r, &mut out).unwrap())
    });
    g.finish();
    let slow: Vec<(f64, f64)> = eps
        .iter()
        .zip(&r)
        .map(|(&e, &x)| (e, x))
        .filter(|&(e, x)| e / x - 0.5 * x < 38.0)
        .take(4096)
        .collect();
    let mut g = c.benchmark_group("theta second stage");
    g.throughput(Throughput::Elements(slow.len() as u64));
    g.bench_function("ln_theta_dd + exp_dd per lane", |b| {
        b.iter(|| {
            slow.iter()
                .map(|&(e, x)| {
                    theta_dd::ln_theta_dd(e, Dd::from_f64(x)).map_or(0.0, |(v, _)| exp_dd(v).hi)
                })
                .sum::<f64>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
