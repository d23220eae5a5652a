//! The unit tests' random numbers: one deterministic xorshift64 generator (Marsaglia,
//! *Xorshift RNGs*, 2003; shifts 13, 7, 17), shared by every test that needs pseudo-random
//! arguments (the θ block kernels, the GDP array path, the rounding and solver tests), and by
//! the θ benchmark (which includes this file). Test-only.

/// xorshift64 with a fixed seed: the same sequence on every run and platform.
#[derive(Clone, Debug)]
pub(crate) struct XorShift(u64);

impl XorShift {
    /// The generator at the tests' fixed seed (the golden-ratio constant 0x9E37_79B9_7F4A_7C15).
    pub(crate) fn new() -> Self {
        XorShift::with_seed(0x9E37_79B9_7F4A_7C15)
    }

    /// The generator at another fixed seed (not 0).
    pub(crate) fn with_seed(seed: u64) -> Self {
        XorShift(seed)
    }

    /// The next state, all 64 bits.
    pub(crate) fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// The next uniform double in [0, 1) (53 random bits).
    pub(crate) fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sequence_is_the_former_inline_generator() {
        // the closure the θ and GDP tests carried inline before
        let mut s = 0x9E37_79B9_7F4A_7C15_u64;
        let mut rnd = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        let mut g = XorShift::new();
        for _ in 0..1000 {
            let x = g.next_f64();
            assert_eq!(x.to_bits(), rnd().to_bits());
            assert!((0.0..1.0).contains(&x));
        }
    }
}
