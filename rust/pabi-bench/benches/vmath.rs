//! Throughput of the branch-free `vmath` kernels mapped over 4096-element slices, against the
//! same loop calling std (libm) or `pxfm::f_erfcx`.
//!
//! The vmath loops are multiversioned (AVX-512 / AVX2+FMA clones); if a kernel vectorizes, its
//! ns/element is several times below the std loop. Divide the reported time by 4096 for
//! ns/element (criterion also prints the element throughput).
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use multiversion::multiversion;
use pabi_core::vmath;
use std::hint::black_box;

const LEN: usize = 4096;

macro_rules! mv_map {
    ($name:ident, $k:path) => {
        #[multiversion(targets("x86_64+avx512f+avx512vl+avx512dq+avx2+fma", "x86_64+avx2+fma"))]
        fn $name(inp: &[f64], out: &mut [f64]) {
            for (o, &x) in out.iter_mut().zip(inp) {
                *o = $k(x);
            }
        }
    };
}

mv_map!(map_exp, vmath::exp);
mv_map!(map_expm1, vmath::expm1);
mv_map!(map_ln, vmath::ln);
mv_map!(map_log1p, vmath::log1p);
mv_map!(map_erfcx, vmath::erfcx_pos);

fn map_scalar(inp: &[f64], out: &mut [f64], k: fn(f64) -> f64) {
    for (o, &x) in out.iter_mut().zip(inp) {
        *o = k(x);
    }
}

/// Deterministic inputs: xorshift64* uniform in [0, 1).
fn inputs(f: impl Fn(f64) -> f64) -> Vec<f64> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    (0..LEN)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            let u =
                (s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 * (1.0 / 9007199254740992.0);
            f(u)
        })
        .collect()
}

type Map = fn(&[f64], &mut [f64]);
/// (group name, inputs, vectorized map, reference kernel, reference name)
type Case = (&'static str, Vec<f64>, Map, fn(f64) -> f64, &'static str);

fn bench(c: &mut Criterion) {
    let cases: [Case; 5] = [
        (
            "exp",
            inputs(|u| -700.0 + 1400.0 * u),
            map_exp,
            f64::exp,
            "std",
        ),
        (
            "expm1",
            inputs(|u| -5.0 + 10.0 * u),
            map_expm1,
            f64::exp_m1,
            "std",
        ),
        // log-uniform on [1e-300, 1e300]
        (
            "ln",
            inputs(|u| (-690.0 + 1380.0 * u).exp()),
            map_ln,
            f64::ln,
            "std",
        ),
        (
            "log1p",
            inputs(|u| -0.99 + 100.0 * u),
            map_log1p,
            f64::ln_1p,
            "std",
        ),
        // log-uniform on [1e-3, 1e3]
        (
            "erfcx",
            inputs(|u| (-6.9 + 13.8 * u).exp()),
            map_erfcx,
            pxfm::f_erfcx,
            "pxfm",
        ),
    ];
    let mut out = vec![0.0; LEN];
    for (name, inp, vec_map, reference, refname) in cases {
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Elements(LEN as u64));
        g.bench_function("vmath", |b| {
            b.iter(|| vec_map(black_box(&inp), black_box(&mut out)))
        });
        g.bench_function(refname, |b| {
            b.iter(|| map_scalar(black_box(&inp), black_box(&mut out), reference))
        });
        g.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = bench
}
criterion_main!(benches);
