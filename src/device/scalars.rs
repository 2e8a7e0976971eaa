//! The one check every kernel family applies to the scalars a caller
//! passes (GEMM alpha, beta and epilogue scalars, elementwise scalars,
//! reduction map scalars): each must be finite in the type the kernel reads
//! it as, unless the operation's `check_scalars(false)` turns the check off.

use crate::numeric::ElementType;
use crate::{Error, Result};

/// Checks that `value`, the scalar `name()`, is finite in `compute`: NaN and
/// infinities are errors, and so, for an f32 kernel, is an `f64` beyond
/// f32's range (it would round to infinity).
///
/// Errors: [`Error::InvalidArgument`] naming the scalar and its value.
pub(crate) fn check_scalar(
    name: impl FnOnce() -> String,
    value: f64,
    compute: ElementType,
) -> Result<()> {
    let wide = compute == ElementType::F64;
    let finite = if wide {
        value.is_finite()
    } else {
        (value as f32).is_finite()
    };
    if finite {
        return Ok(());
    }
    let shown = if value.is_finite() {
        format!("{value:e}")
    } else {
        value.to_string()
    };
    let expected = if wide {
        "a finite value (check_scalars(false) lets non-finite scalars through)"
    } else {
        "a finite value within f32's range, as the kernel reads it as f32 \
         (check_scalars(false) lets non-finite scalars through)"
    };
    Err(Error::invalid_argument(name(), shown, expected))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_finite_values_are_errors_naming_the_scalar_and_value() {
        let name = || "alpha".to_string();
        assert!(check_scalar(name, 1.5, ElementType::F32).is_ok());
        assert!(check_scalar(name, f64::from(f32::MAX), ElementType::F32).is_ok());
        let nan = check_scalar(name, f64::NAN, ElementType::F32).unwrap_err();
        assert!(matches!(nan, Error::InvalidArgument { .. }));
        assert!(
            nan.to_string()
                .starts_with("invalid argument `alpha` = NaN: expected a finite value"),
            "{nan}"
        );
        let inf = check_scalar(name, f64::NEG_INFINITY, ElementType::F64).unwrap_err();
        assert!(inf.to_string().contains("`alpha` = -inf"), "{inf}");
        // Finite in f64, infinite once the f32 kernel rounds it.
        let big = check_scalar(name, 1e300, ElementType::F32).unwrap_err();
        assert!(
            big.to_string().contains("`alpha` = 1e300") && big.to_string().contains("f32"),
            "{big}"
        );
        assert!(check_scalar(name, 1e300, ElementType::F64).is_ok());
    }
}
