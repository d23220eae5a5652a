//! STUB (being replaced): vectorizable elementary kernels.
#[inline(always)]
pub fn exp(x: f64) -> f64 {
    x.exp()
}
#[inline(always)]
pub fn expm1(x: f64) -> f64 {
    x.exp_m1()
}
#[inline(always)]
pub fn ln(x: f64) -> f64 {
    x.ln()
}
#[inline(always)]
pub fn log1p(x: f64) -> f64 {
    x.ln_1p()
}
/// erfcx(x) = exp(x^2) erfc(x) for x >= 0.
#[inline(always)]
pub fn erfcx_pos(x: f64) -> f64 {
    pxfm::f_erfcx(x)
}
