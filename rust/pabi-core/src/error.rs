//! The one error type of pabi-core. The Python layer maps it one-to-one onto exceptions:
//! [`PabiError::Domain`] and [`PabiError::Option`] become `DomainError` (a `ValueError`);
//! [`PabiError::Shape`] and [`PabiError::Unreachable`] become `ValueError`;
//! [`PabiError::Internal`] becomes `InternalError` (a bug, never the caller's fault);
//! [`PabiError::Interrupted`] becomes `KeyboardInterrupt` (the signal that caused it).
//!
//! Each variant means one thing: a bad number ([`PabiError::Domain`]), a bad option string
//! ([`PabiError::Option`]), mismatched lengths ([`PabiError::Shape`]), a target that no
//! admissible parameter meets ([`PabiError::Unreachable`]), a broken internal invariant
//! ([`PabiError::Internal`]), a stop request ([`PabiError::Interrupted`]).

use std::borrow::Cow;
use std::fmt;

/// Errors returned by pabi-core. Never a panic, never a NaN.
#[derive(Debug, Clone, PartialEq)]
pub enum PabiError {
    /// A numeric argument is outside its allowed range.
    Domain {
        /// Name of the parameter as the user spells it (`"eps"`, `"r"`, ...).
        param: &'static str,
        /// The allowed range, in words (`">= 0 and not NaN"`, `"an integer in 1..=n (n = 10)"`).
        allowed: Cow<'static, str>,
        /// The offending value.
        value: f64,
        /// Flat index of the first offending element, for array arguments.
        index: Option<usize>,
    },
    /// Array arguments whose lengths do not match.
    Shape { message: String },
    /// A target that cannot be met (inversion / calibration); the message says why. Only for
    /// that: a bad option string is [`PabiError::Option`], a broken invariant
    /// [`PabiError::Internal`].
    Unreachable { message: String },
    /// An option string (or a combination of options) outside its allowed set.
    Option {
        /// Name of the parameter as the user spells it (`"noise"`, `"order"`, ...).
        param: &'static str,
        /// The allowed values, in words (`"'gaussian' or 'laplace'"`).
        allowed: Cow<'static, str>,
        /// The offending value as given.
        value: String,
    },
    /// An internal invariant does not hold (a bug in pabi, not a bad argument); the message
    /// says which.
    Internal(String),
    /// The computation was stopped by [`crate::interrupt::request`] (Ctrl-C) before it
    /// finished; nothing is returned.
    Interrupted,
}

pub type Result<T> = std::result::Result<T, PabiError>;

impl PabiError {
    pub fn domain(param: &'static str, allowed: impl Into<Cow<'static, str>>, value: f64) -> Self {
        PabiError::Domain {
            param,
            allowed: allowed.into(),
            value,
            index: None,
        }
    }

    /// Two array arguments that must have the same length but do not.
    pub fn lengths(a: &str, a_len: usize, b: &str, b_len: usize) -> Self {
        PabiError::Shape {
            message: format!("{a} and {b} must have the same length, got {a_len} and {b_len}"),
        }
    }

    /// The check of two array arguments' lengths: Ok when they are equal, else
    /// [`PabiError::lengths`].
    pub fn same_lengths(a: &str, a_len: usize, b: &str, b_len: usize) -> Result<()> {
        if a_len == b_len {
            Ok(())
        } else {
            Err(PabiError::lengths(a, a_len, b, b_len))
        }
    }

    /// An unreachable target (inversion / calibration), with an explanation.
    pub fn unreachable(message: impl Into<String>) -> Self {
        PabiError::Unreachable {
            message: message.into(),
        }
    }

    /// An option string outside its allowed set.
    pub fn option(
        param: &'static str,
        allowed: impl Into<Cow<'static, str>>,
        value: impl Into<String>,
    ) -> Self {
        PabiError::Option {
            param,
            allowed: allowed.into(),
            value: value.into(),
        }
    }

    /// A broken internal invariant (a bug).
    pub fn internal(message: impl Into<String>) -> Self {
        PabiError::Internal(message.into())
    }

    /// The same error under another parameter name (`f` maps the name a shared check uses to
    /// the caller's public one); other variants are returned as they are.
    pub fn renamed(self, f: impl Fn(&'static str) -> &'static str) -> Self {
        self.map_domain(|param, index| (f(param), index))
    }

    /// The same error, located at flat index `i` of an array argument.
    pub fn at(self, i: usize) -> Self {
        self.map_domain(|param, _| (param, Some(i)))
    }

    /// A domain error with its parameter name and index mapped by `f`; other variants are
    /// returned as they are.
    fn map_domain(
        self,
        f: impl FnOnce(&'static str, Option<usize>) -> (&'static str, Option<usize>),
    ) -> Self {
        match self {
            PabiError::Domain {
                param,
                allowed,
                value,
                index,
            } => {
                let (param, index) = f(param, index);
                PabiError::Domain {
                    param,
                    allowed,
                    value,
                    index,
                }
            }
            other => other,
        }
    }
}

impl fmt::Display for PabiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PabiError::Domain {
                param,
                allowed,
                value,
                index,
            } => {
                // tiny and huge values in exponent form (Display would print 5e-324 with 323 zeros)
                if *value != 0.0 && value.is_finite() && !(1e-5..1e16).contains(&value.abs()) {
                    write!(f, "{param} must be {allowed}, got {value:e}")?;
                } else {
                    write!(f, "{param} must be {allowed}, got {value}")?;
                }
                if let Some(i) = index {
                    write!(f, " at index {i}")?;
                }
                Ok(())
            }
            PabiError::Shape { message } | PabiError::Unreachable { message } => {
                f.write_str(message)
            }
            PabiError::Option {
                param,
                allowed,
                value,
            } => write!(f, "{param} must be {allowed}, got {value:?}"),
            PabiError::Internal(message) => write!(
                f,
                "internal error in pabi (a bug, please report it with the call that raised it): {message}"
            ),
            PabiError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl std::error::Error for PabiError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        assert_eq!(
            PabiError::option("noise", "'gaussian' or 'laplace'", "gauss").to_string(),
            "noise must be 'gaussian' or 'laplace', got \"gauss\""
        );
        assert!(PabiError::internal("x")
            .to_string()
            .ends_with("(a bug, please report it with the call that raised it): x"));
        // `at` only locates Domain errors
        assert_eq!(
            PabiError::option("order", "'fixed'", "f").at(3),
            PabiError::option("order", "'fixed'", "f")
        );
        assert_eq!(
            PabiError::domain("eps", ">= 0", -1.0).at(3).to_string(),
            "eps must be >= 0, got -1 at index 3"
        );
    }
}
