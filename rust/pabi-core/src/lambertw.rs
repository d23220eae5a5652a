//! STUB (being replaced): Lambert W.
pub fn lambertw0(x: f64) -> f64 {
    let mut w = if x < 1.0 { x } else { x.ln() };
    for _ in 0..100 {
        let e = w.exp();
        w -= (w * e - x) / (e * (w + 1.0));
    }
    w
}
pub fn wright_omega(y: f64) -> f64 {
    lambertw0(y.exp())
}
