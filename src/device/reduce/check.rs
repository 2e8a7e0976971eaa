//! Validation of a reduction call, before any driver call: dimension, types,
//! output shape, empty inputs. Pure host code, tested without a GPU.

use crate::device::scalars::check_scalar;
use crate::fusion::Expression;
use crate::kernel::reduce::{ReduceDim, ReduceOp, SUPPORTED};
use crate::numeric::ElementType;
use crate::tensor::ViewLayout;
use crate::{Error, Result};

/// What a valid call reduces: the kept extent (output length, 0 for a no-op)
/// and the stride between output elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Checked {
    pub outputs: usize,
    pub out_stride: usize,
}

/// `[rows, cols]` as text.
fn shape_text(layout: &ViewLayout) -> String {
    let [rows, cols] = layout.shape();
    if layout.rank() == 1 {
        format!("[{cols}]")
    } else {
        format!("[{rows}, {cols}]")
    }
}

/// Checks one reduction call; see [`Reduce::run`](super::Reduce::run) for
/// the rules.
pub(crate) fn check(
    op: ReduceOp,
    dim: ReduceDim,
    input: (ElementType, ViewLayout),
    output: (ElementType, ViewLayout),
) -> Result<Checked> {
    for (name, ty) in [("input", input.0), ("output", output.0)] {
        if !SUPPORTED.contains(&ty) {
            return Err(Error::invalid_argument(
                format!("{name} element type"),
                ty,
                "f32, f16 or bf16 (the reduction kernels' types)",
            ));
        }
    }
    if output.0 != ElementType::F32 && output.0 != input.0 {
        return Err(Error::invalid_argument(
            "output element type",
            output.0,
            format!("the input's type ({}) or f32", input.0),
        ));
    }
    let [rows, cols] = input.1.shape();
    let (outputs, reduced, what) = match dim {
        ReduceDim::Last => (rows, cols, "one per row"),
        ReduceDim::First => (cols, rows, "one per column"),
        ReduceDim::All => (1, rows.saturating_mul(cols), "one for the whole input"),
    };
    let [out_rows, out_cols] = output.1.shape();
    let out_stride = match (out_rows, out_cols) {
        (1, n) if n == outputs => output.1.strides()[1],
        (n, 1) if n == outputs => output.1.strides()[0],
        _ => {
            return Err(Error::invalid_argument(
                "output shape",
                shape_text(&output.1),
                format!(
                    "a vector of {outputs} elements ({what} of input {}, dim {})",
                    shape_text(&input.1),
                    dim_text(dim)
                ),
            ))
        }
    };
    if outputs > 1 && out_stride == 0 {
        return Err(Error::invalid_argument(
            "output strides",
            format!("{:?}", output.1.strides()),
            "a non-zero stride between output elements (a broadcast output would be written twice)",
        ));
    }
    if outputs > 0 && reduced == 0 && matches!(op, ReduceOp::Max | ReduceOp::Min) {
        return Err(Error::invalid_argument(
            format!("input shape for {op}"),
            shape_text(&input.1),
            format!(
                "a non-empty reduced dimension ({op} of no elements is undefined; sum gives 0 and mean NaN)"
            ),
        ));
    }
    Ok(Checked {
        outputs,
        out_stride,
    })
}

/// Checks a reduction's map: one input, as many scalars as it reads, each
/// finite in f32 (the kernels' arithmetic) when `check_finite`.
pub(crate) fn check_map(
    map: Option<&Expression>,
    scalars: &[f64],
    check_finite: bool,
) -> Result<()> {
    let Some(map) = map else {
        return Ok(());
    };
    if map.arity() != 1 {
        return Err(Error::invalid_argument(
            "map arity",
            map.arity(),
            format!(
                "1 (the map `{}` is applied to each input element)",
                map.key()
            ),
        ));
    }
    if scalars.len() != map.scalar_count() {
        return Err(Error::invalid_argument(
            "map scalars",
            format!("{} value(s)", scalars.len()),
            format!(
                "{} scalar(s), as the map `{}` reads",
                map.scalar_count(),
                map.key()
            ),
        ));
    }
    if check_finite {
        for (i, &value) in scalars.iter().enumerate() {
            check_scalar(|| format!("map scalars[{i}]"), value, ElementType::F32)?;
        }
    }
    Ok(())
}

/// The dimension as the user wrote it.
fn dim_text(dim: ReduceDim) -> &'static str {
    match dim {
        ReduceDim::Last => "-1",
        ReduceDim::First => "0",
        ReduceDim::All => "all",
    }
}

/// The dimension from a PyTorch-style index, or an error saying what is allowed.
pub(crate) fn dim_from_index(dim: i64) -> Result<ReduceDim> {
    ReduceDim::from_index(dim).ok_or_else(|| {
        Error::invalid_argument(
            "dim",
            dim,
            "-1 or 1 (reduce each row), or 0 (reduce each column) of a 2-D tensor",
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: ElementType = ElementType::F32;

    fn rm(rows: usize, cols: usize) -> ViewLayout {
        ViewLayout::row_major(rows, cols)
    }

    #[test]
    fn output_length_follows_the_dimension() {
        let ok = check(
            ReduceOp::Sum,
            ReduceDim::Last,
            (F32, rm(3, 5)),
            (F32, ViewLayout::vector(3)),
        );
        assert_eq!(
            ok.unwrap(),
            Checked {
                outputs: 3,
                out_stride: 1
            }
        );
        let col = check(
            ReduceOp::Sum,
            ReduceDim::First,
            (F32, rm(3, 5)),
            (F32, rm(5, 1)),
        );
        assert_eq!(
            col.unwrap(),
            Checked {
                outputs: 5,
                out_stride: 1
            }
        );
        let all = check(
            ReduceOp::Max,
            ReduceDim::All,
            (F32, rm(3, 5)),
            (F32, ViewLayout::vector(1)),
        );
        assert_eq!(all.unwrap().outputs, 1);
    }

    #[test]
    fn wrong_output_shape_names_both_shapes() {
        let err = check(
            ReduceOp::Sum,
            ReduceDim::Last,
            (F32, rm(3, 5)),
            (F32, ViewLayout::vector(5)),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid argument `output shape` = [5]: expected a vector of 3 elements \
             (one per row of input [3, 5], dim -1)"
        );
        let err = check(
            ReduceOp::Sum,
            ReduceDim::First,
            (F32, rm(3, 5)),
            (F32, rm(3, 5)),
        )
        .unwrap_err();
        assert!(err
            .to_string()
            .contains("[3, 5]: expected a vector of 5 elements (one per column"));
    }

    #[test]
    fn types_are_checked() {
        let err = check(
            ReduceOp::Sum,
            ReduceDim::Last,
            (ElementType::I32, rm(2, 2)),
            (F32, ViewLayout::vector(2)),
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid argument `input element type` = i32: expected f32, f16 or bf16 (the reduction kernels' types)"
        );
        let err = check(
            ReduceOp::Sum,
            ReduceDim::Last,
            (F32, rm(2, 2)),
            (ElementType::F16, ViewLayout::vector(2)),
        )
        .unwrap_err();
        assert!(err
            .to_string()
            .contains("`output element type` = f16: expected the input's type (f32) or f32"));
    }

    #[test]
    fn empty_inputs_follow_pytorch() {
        let empty_rows = (F32, rm(4, 0));
        for op in [ReduceOp::Sum, ReduceOp::Mean] {
            assert!(check(
                op,
                ReduceDim::Last,
                empty_rows,
                (F32, ViewLayout::vector(4))
            )
            .is_ok());
        }
        let err = check(
            ReduceOp::Max,
            ReduceDim::Last,
            empty_rows,
            (F32, ViewLayout::vector(4)),
        )
        .unwrap_err();
        assert!(
            err.to_string().contains("`input shape for max` = [4, 0]"),
            "{err}"
        );
        // No output elements: a no-op, even for max.
        let none = check(
            ReduceOp::Min,
            ReduceDim::First,
            (F32, rm(0, 0)),
            (F32, ViewLayout::vector(0)),
        );
        assert_eq!(none.unwrap().outputs, 0);
    }

    #[test]
    fn dim_must_be_minus_one_zero_or_one() {
        assert_eq!(dim_from_index(1).unwrap(), ReduceDim::Last);
        let err = dim_from_index(2).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid argument `dim` = 2: expected -1 or 1 (reduce each row), or 0 (reduce each column) of a 2-D tensor"
        );
    }

    #[test]
    fn map_scalars_are_counted_and_checked_finite_in_f32() {
        use crate::fusion::{scalar, Expr};
        let scaled = Expression::from_fn(|x: Expr| x * scalar(0));
        assert!(check_map(Some(&scaled), &[2.0], true).is_ok());
        let count = check_map(Some(&scaled), &[], true).unwrap_err();
        assert!(
            count.to_string().contains("`map scalars` = 0 value(s)"),
            "{count}"
        );
        let nan = check_map(Some(&scaled), &[f64::NAN], true).unwrap_err();
        assert!(matches!(nan, Error::InvalidArgument { .. }));
        assert!(nan.to_string().contains("`map scalars[0]` = NaN"), "{nan}");
        // Finite as an f64, infinite in the kernel's f32.
        let big = check_map(Some(&scaled), &[1e39], true).unwrap_err();
        assert!(big.to_string().contains("1e39"), "{big}");
        assert!(check_map(Some(&scaled), &[f64::INFINITY], false).is_ok());
        let pair = Expression::from_fn(|x: Expr, y: Expr| x + y);
        let arity = check_map(Some(&pair), &[], true).unwrap_err();
        assert!(arity.to_string().contains("`map arity` = 2"), "{arity}");
        assert!(check_map(None, &[], true).is_ok());
    }

    #[test]
    fn broadcast_output_is_rejected() {
        let out = ViewLayout::with_strides(&[3], &[0]).unwrap();
        let err = check(ReduceOp::Sum, ReduceDim::Last, (F32, rm(3, 5)), (F32, out)).unwrap_err();
        assert!(err.to_string().contains("`output strides`"), "{err}");
    }
}
