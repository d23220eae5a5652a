//! Timing smoke test of the per-instance composition kernel (run with --ignored --nocapture).
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
    };
    let t0 = Instant::now();
    let t = dpsgd_per_instance_terms(8.0, 0.01, 1.0, &sens, n, m, 3.0 * n as f64, o).unwrap();
    println!("composition: {:?} sum {}", t0.elapsed(), sum_terms_up(&t));
    let tab = SgmTable::new(11, 0.01);
    let t0 = Instant::now();
    let mut acc = 0.0;
    for i in 0..1_000_000 {
        acc += tab.rdp(0.5 * sens[i] * sens[i]);
    }
    println!("1e6 rdp(11): {:?} {acc}", t0.elapsed());
    let t0 = Instant::now();
    let mut acc = 0.0;
    for i in 0..1_000_000 {
        acc += pabi_core::vmath::expm1(sens[i]);
    }
    println!("1e6 vmath expm1: {:?} {acc}", t0.elapsed());
    let t0 = Instant::now();
    let mut acc = 0.0;
    for i in 0..1_000_000 {
        acc += sens[i].exp_m1();
    }
    println!("1e6 std expm1: {:?} {acc}", t0.elapsed());
}
