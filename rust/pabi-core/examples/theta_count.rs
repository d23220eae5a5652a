//! Instruction-count probe for the θ kernels (run under `valgrind --tool=callgrind`):
//! `cargo build --release -p pabi-core --example theta_count && valgrind --tool=callgrind target/release/examples/theta_count blocks`
use pabi_core::theta;

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
    for ((o, a), b) in out
        .chunks_mut(theta::BLOCK)
        .zip(eps.chunks(theta::BLOCK))
        .zip(r.chunks(theta::BLOCK))
    {
        theta::theta_block(a, b, o);
    }
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_default();
    let reps: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let n = 1 << 16;
    let mut s = 0x2545_F491_4F6C_DD1D_u64;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 11) as f64 / (1u64 << 53) as f64
    };
    let eps: Vec<f64> = (0..n).map(|_| 10.0 * rnd()).collect();
    let r: Vec<f64> = (0..n).map(|_| 10f64.powf(-2.0 + 3.0 * rnd())).collect();
    let mut out = vec![0.0; n];
    let t = std::time::Instant::now();
    for _ in 0..reps {
        match mode.as_str() {
            "blocks" => blocks(&eps, &r, &mut out),
            "lanes" => lanes(&eps, &r, &mut out),
            _ => {}
        }
    }
    let dt = t.elapsed().as_secs_f64();
    println!(
        "{mode}: {:.2} ns/pt, checksum {}",
        dt / (n * reps) as f64 * 1e9,
        out.iter().sum::<f64>()
    );
}
