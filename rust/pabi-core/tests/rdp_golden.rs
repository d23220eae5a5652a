//! Golden tests of the sampled Gaussian RDP (Thudi et al. 2024 Thm 3.2) against mpmath
//! (tests/golden/rdp_sgm.csv, written by tools/gen_rdp_golden.py from pabi.reference at 50
//! digits; orders up to 1e5, q down to 1e-9). Every value must be an upper bound within 1e-12.

use pabi_core::rdp::sampled_gaussian_rdp;

const GOLDEN: &str = include_str!("golden/rdp_sgm.csv");

#[test]
fn sampled_gaussian_rdp_golden() {
    let mut worst = 0.0_f64;
    let mut n = 0;
    for line in GOLDEN.lines().skip(1) {
        let f: Vec<f64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        let (a, q, r, exact) = (f[0], f[1], f[2], f[3]);
        let v = sampled_gaussian_rdp(a, q, r).unwrap();
        // the golden value is printed to 20 digits: allow its own rounding (1e-19)
        assert!(v >= exact * (1.0 - 1e-19), "below exact at {line}: {v}");
        let rel = if exact == 0.0 { v } else { (v - exact) / exact };
        assert!(rel < 1e-12, "{line}: {v} rel {rel}");
        worst = worst.max(rel);
        n += 1;
    }
    assert!(n > 400);
    println!("{n} golden points, worst relative error {worst:.2e}");
}
