//! Timing smoke test of the per-instance composition kernel:
//! `cargo test -p pabi-core --release --test rdp_timing -- --ignored --nocapture`.
use pabi_core::rdp::*;
use std::time::Instant;

#[test]
#[ignore]
fn timing() {
    let (n, m) = (10_000usize, 100usize);
    let sens: Vec<f64> = (0..n * m)
        .map(|i| ((i * 7919) % 1000) as f64 / 1000.0)
        .collect();
    let o = CompositionOptions {
        map: OrderMap::Corrected,
        ucb: None,
        fractional: Fractional::Ceil,
    };
    let t0 = Instant::now();
    let t = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &sens, n, m, 3.0 * n as f64, o).unwrap();
    println!(
        "composition 1e4 x 100: {:?}, bound {}",
        t0.elapsed(),
        sum_terms_up(&t)
    );
}
