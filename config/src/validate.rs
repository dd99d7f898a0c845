//! Ranges of parameter values: what serde cannot say (a NaN, a stiffness of 5, a period of a
//! picosecond). A parameter type states its ranges in [`Validate::validate`]; the configuration
//! checks them right after reading ([`Config::validated_parameters`](crate::Config)), so a bad
//! value is reported with the file and line it was written at, like any other error.
//!
//! ```
//! use config::{in_range, Invalid, Validate};
//!
//! #[derive(serde::Deserialize)]
//! struct Kick { stiffness: f32, duration_ms: u64 }
//!
//! impl Validate for Kick {
//!     fn validate(&self) -> Result<(), Invalid> {
//!         in_range("stiffness", self.stiffness, 0.0..=1.0)?;
//!         in_range("duration_ms", self.duration_ms, 1..=10_000)
//!     }
//! }
//!
//! let error = Kick { stiffness: f32::NAN, duration_ms: 5 }.validate().unwrap_err();
//! assert_eq!(error.to_string(), "key `stiffness`: expected a number from 0 to 1, found NaN");
//! ```

use std::fmt;
use std::ops::RangeInclusive;

/// A value outside its range: the key path as it is written in the file (`gains.p`,
/// `sit_pose_rad.LeftKneePitch`, `limits[2]`) and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// The key path inside the parameter file.
    pub key: String,
    /// What was found and what was expected.
    pub message: String,
}

impl Invalid {
    /// The value at `key` is wrong for the reason `message`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Invalid {
        Invalid {
            key: key.into(),
            message: message.into(),
        }
    }
}

impl fmt::Display for Invalid {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "key `{}`: {}", self.key, self.message)
    }
}

/// Parameters that check their own ranges after they were read. Every module's parameters
/// implement it; a type without ranges says so with an `Ok(())`.
pub trait Validate {
    /// The first value outside its range, if any.
    fn validate(&self) -> Result<(), Invalid>;
}

/// `value` must lie in `range`. A NaN lies in no range, and infinity only in one that names it,
/// so a finite range also checks finiteness.
pub fn in_range<T>(key: &str, value: T, range: RangeInclusive<T>) -> Result<(), Invalid>
where
    T: PartialOrd + fmt::Display,
{
    if range.contains(&value) {
        Ok(())
    } else {
        Err(Invalid::new(
            key,
            format!(
                "expected a number from {} to {}, found {value}",
                range.start(),
                range.end()
            ),
        ))
    }
}

/// `lower` must be below `upper` (two thresholds whose order matters).
pub fn ordered<T>(lower: (&str, T), upper: (&str, T)) -> Result<(), Invalid>
where
    T: PartialOrd + fmt::Display,
{
    if lower.1 < upper.1 {
        Ok(())
    } else {
        Err(Invalid::new(
            upper.0,
            format!(
                "expected more than `{}` ({}), found {}",
                lower.0, lower.1, upper.1
            ),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_refuse_nan_infinity_and_values_outside() {
        assert!(in_range("a", 0.5_f32, 0.0..=1.0).is_ok());
        assert!(in_range("a", 1.0_f32, 0.0..=1.0).is_ok());
        for bad in [
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            1.0001,
            -0.1,
            5.0,
        ] {
            let error = in_range("a.b", bad, 0.0..=1.0).unwrap_err();
            assert_eq!(error.key, "a.b");
            assert!(error.message.contains(&bad.to_string()), "{error}");
        }
        assert!(in_range("n", 10_u64, 1..=10).is_ok());
        assert!(in_range("n", 0_u64, 1..=10).is_err());
    }

    #[test]
    fn order_names_the_upper_key() {
        assert!(ordered(("low", 1.0), ("high", 2.0)).is_ok());
        let error = ordered(("low", 2.0), ("high", 2.0)).unwrap_err();
        assert_eq!(error.key, "high");
        assert!(ordered(("low", f64::NAN), ("high", 2.0)).is_err());
    }
}
