//! Composition of privacy guarantees.

pub mod gdp;
pub mod pld;
