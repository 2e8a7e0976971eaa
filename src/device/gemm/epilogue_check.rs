//! [`check_epilogue`]: a fused epilogue's inputs against its spec.

use super::arguments::GemmShape;
use crate::kernel::gemm::{BiasAxis, GemmSpec};
use crate::{Error, Result};

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
/// use cutlet::collective::sm80_default_spec;
/// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
/// use cutlet::numeric::ElementType::{BF16, F32};
///
/// let mut spec = sm80_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
/// let e = Expression::from_fn(|acc: Expr, _c: Expr, bias: Expr| acc + bias);
/// spec.epilogue = Epilogue::new(e, &[BiasAxis::Column]).unwrap();
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
    let epilogue = &spec.epilogue;
    let axes = epilogue.biases();
    if bias_lens.len() != axes.len() {
        return Err(Error::invalid_argument(
            "epilogue bias vectors",
            bias_lens.len(),
            format!("{} (one per bias of `{epilogue}`)", axes.len()),
        ));
    }
    for (i, (&len, &axis)) in bias_lens.iter().zip(axes).enumerate() {
        let (needed, dim) = match axis {
            BiasAxis::Row => (shape.m, "m"),
            BiasAxis::Column => (shape.n, "n"),
        };
        if !shape.is_empty_output() && len < needed {
            return Err(Error::invalid_argument(
                format!("bias {i} ({} bias) length", axis.name()),
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
