//! [`check_epilogue`]: a fused epilogue's inputs against its spec;
//! [`check_scalars`]: alpha, beta and the extra scalars' values.

use super::arguments::GemmShape;
use crate::device::scalars::check_scalar;
use crate::kernel::gemm::{BiasAxis, GemmSpec};
use crate::numeric::ElementType;
use crate::{Error, Result};

/// Checks that alpha, beta and the epilogue's extra scalars (s2, s3, ...)
/// are finite in f32, the type the kernel reads them as: NaN, infinities
/// and values beyond f32's range are errors. `can_implement` and `run` of
/// every GEMM front door apply it unless their `check_scalars(false)` is set.
///
/// ```
/// use cutlet::device::gemm::check_scalars;
///
/// assert!(check_scalars(1.0, 0.5, &[2.0]).is_ok());
/// let err = check_scalars(f64::NAN, 0.0, &[]).unwrap_err();
/// assert!(matches!(err, cutlet::Error::InvalidArgument { .. }));
/// assert!(err.to_string().starts_with("invalid argument `alpha` = NaN"), "{err}");
/// let err = check_scalars(1.0, 0.0, &[1.0, f64::INFINITY]).unwrap_err();
/// assert!(err.to_string().contains("`epilogue scalars[1] (s3)` = inf"), "{err}");
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the first scalar that is not finite
/// and its value.
pub fn check_scalars(alpha: f64, beta: f64, extra: &[f64]) -> Result<()> {
    check_scalar(|| "alpha".into(), alpha, ElementType::F32)?;
    check_scalar(|| "beta".into(), beta, ElementType::F32)?;
    for (i, &value) in extra.iter().enumerate() {
        check_scalar(
            || format!("epilogue scalars[{i}] (s{})", i + 2),
            value,
            ElementType::F32,
        )?;
    }
    Ok(())
}

/// Checks alpha and beta of a GEMM with an i32 D, which computes
/// `alpha · acc + beta · C` in s32: each must be a whole number of
/// magnitude at most 2^24 (the kernel reads them as f32, which holds such
/// numbers exactly). Applied whatever `check_scalars(false)` says, since a
/// fraction would be cut silently.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the scalar and its value.
pub(crate) fn check_integer_scalars(alpha: f64, beta: f64) -> Result<()> {
    const LIMIT: f64 = (1u32 << 24) as f64;
    for (name, value) in [("alpha", alpha), ("beta", beta)] {
        if value.fract() != 0.0 || value.abs() > LIMIT || !value.is_finite() {
            return Err(Error::invalid_argument(
                name,
                value,
                "a whole number from -16777216 to 16777216 (a GEMM with an i32 D computes alpha * acc + beta * C in s32)",
            ));
        }
    }
    Ok(())
}

/// Checks the bias vectors' lengths (`bias_lens`, in the epilogue's order)
/// and the count of extra scalars against `spec`'s epilogue and `shape`:
/// as many biases as the epilogue declares, each at least M (row bias) or N
/// (column bias) elements long, and exactly
/// [`extra_scalars`](crate::kernel::gemm::Epilogue::extra_scalars) scalars.
/// Bias elements are read one at a time, so a buffer of C's element type is
/// aligned enough.
///
/// ```
/// use cutlet::device::gemm::{check_epilogue, GemmShape};
/// use cutlet::fusion::{Expr, Expression};
/// use cutlet::kernel::gemm::{BiasAxis, Epilogue};
/// use cutlet::kernel::gemm::sm80_default_spec;
/// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let mut spec = sm80_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
/// let e = Expression::from_fn(|acc: Expr, _c: Expr, bias: Expr| acc + bias);
/// spec.epilogue.fusion = Epilogue::new(e, &[BiasAxis::Column]).unwrap();
/// let shape = GemmShape::new(64, 100, 32, 1);
/// assert!(check_epilogue(&spec, &shape, &[100], 0).is_ok());
/// let err = check_epilogue(&spec, &shape, &[99], 0).unwrap_err();
/// assert!(err.to_string().contains("99"));
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the bias or the scalar count and what
/// is expected.
pub fn check_epilogue(
    spec: &GemmSpec,
    shape: &GemmShape,
    bias_lens: &[usize],
    scalars: usize,
) -> Result<()> {
    let epilogue = &spec.epilogue.fusion;
    let axes = epilogue.biases();
    if bias_lens.len() != axes.len() {
        return Err(Error::invalid_argument(
            "epilogue bias vectors",
            bias_lens.len(),
            format!("{} (one per bias of `{epilogue}`)", axes.len()),
        ));
    }
    let user = epilogue.user_biases();
    for (i, (&len, &axis)) in bias_lens.iter().zip(axes).enumerate() {
        let (needed, dim) = match axis {
            BiasAxis::Row => (shape.m, "m"),
            BiasAxis::Column => (shape.n, "n"),
            BiasAxis::Scalar => (1, "1"),
        };
        if !shape.is_empty_output() && len < needed {
            let what = match i.checked_sub(user) {
                Some(0) => "scale of A length".to_string(),
                Some(_) => "scale of B length".to_string(),
                None => format!("bias {i} ({} bias) length", axis.name()),
            };
            return Err(Error::invalid_argument(
                what,
                len,
                format!("at least {dim} = {needed} elements"),
            ));
        }
    }
    if scalars != epilogue.extra_scalars() {
        return Err(Error::invalid_argument(
            "epilogue extra scalars",
            scalars,
            format!("{} (s2.. of `{epilogue}`)", epilogue.extra_scalars()),
        ));
    }
    Ok(())
}

/// Checks the lengths of A's and B's block scales
/// ([`ScaleGranularity::Block`](crate::kernel::gemm::ScaleGranularity::Block))
/// for `shape`: at least `L · M · ceil(K/128)` f32 for A and
/// `L · ceil(N/128) · ceil(K/128)` for B.
///
/// ```
/// use cutlet::device::gemm::check_block_scales;
/// use cutlet::gemm::GemmShape;
///
/// let shape = GemmShape::new(200, 300, 1000, 1);
/// // ceil(1000 / 128) = 8 blocks of K; ceil(300 / 128) = 3 of N.
/// assert!(check_block_scales(&shape, [200 * 8, 3 * 8]).is_ok());
/// let err = check_block_scales(&shape, [200 * 8, 2 * 8]).unwrap_err();
/// assert!(err.to_string().contains("block scales of B length"), "{err}");
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] naming the short buffer, its length and the
/// length expected.
pub fn check_block_scales(shape: &GemmShape, [a, b]: [usize; 2]) -> Result<()> {
    if shape.is_empty_output() {
        return Ok(());
    }
    let k_blocks = shape.k.div_ceil(128);
    let needed = [
        ("A", a, shape.l * shape.m * k_blocks, "L · M · ceil(K/128)"),
        (
            "B",
            b,
            shape.l * shape.n.div_ceil(128) * k_blocks,
            "L · ceil(N/128) · ceil(K/128)",
        ),
    ];
    for (operand, len, needed, formula) in needed {
        if len < needed {
            return Err(Error::invalid_argument(
                format!("block scales of {operand} length"),
                len,
                format!("at least {formula} = {needed} f32"),
            ));
        }
    }
    Ok(())
}
