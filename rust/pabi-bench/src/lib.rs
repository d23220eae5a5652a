//! Criterion micro-benchmarks of pabi-core (see `benches/`); this library is empty.
