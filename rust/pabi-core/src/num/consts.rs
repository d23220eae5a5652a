//! Shared mathematical constants (one definition each).

/// ln(2π) correctly rounded (1.83787706640934548356… by mpmath at 40 digits): the literal of
/// `rdp.rs` and `schedules/mod.rs`.
#[allow(clippy::excessive_precision)]
pub const LN_2PI: f64 = 1.837_877_066_409_345_5;

/// ln(2π) as `pld.rs` evaluates it at run time, `(2.0 * std::f64::consts::PI).ln()`: one ulp
/// **below** [`LN_2PI`] (2π is rounded before the logarithm; checked by a test).
#[allow(clippy::excessive_precision)]
pub const LN_2PI_RUNTIME: f64 = 1.837_877_066_409_345_3;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ln_2pi_variants() {
        let runtime = (2.0 * std::f64::consts::PI).ln();
        assert_eq!(LN_2PI_RUNTIME.to_bits(), runtime.to_bits());
        assert_eq!(LN_2PI.to_bits(), LN_2PI_RUNTIME.to_bits() + 1);
    }
}
