//! Elementwise validation without a GPU: every check that runs before the
//! device is touched, on tensor descriptions (element type + layout),
//! through the public checks `Elementwise::validate` and `run` are made of.

mod elementwise_cases;

use cutlet::device::{check_arguments, check_overlap, plan_problem, Problem, TensorDesc};
use cutlet::fusion::{scalar, Expr, Expression};
use cutlet::kernel::elementwise::Tiling;
use cutlet::numeric::ElementType::{F16, F32, F64, I8};
use cutlet::tensor::ViewLayout;
use cutlet::Error;

/// What `Elementwise::validate` checks for `expression` with the default
/// f32 tiling (4 elements a thread) and scalar checks on, in f32.
fn validate(
    expression: &Expression,
    inputs: &[TensorDesc],
    output: &TensorDesc,
    scalars: &[f64],
) -> cutlet::Result<Problem> {
    check_arguments(
        expression.arity(),
        expression.scalar_count(),
        inputs,
        output,
        scalars,
        Some(F32),
    )?;
    plan_problem(inputs, output, &Tiling::for_vector(4).plan()?)
}

fn desc(layout: ViewLayout) -> TensorDesc {
    TensorDesc {
        element: F32,
        layout,
    }
}

fn message(err: Error) -> String {
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    err.to_string()
}

#[test]
fn mismatched_shapes_name_the_tensor_and_both_shapes() {
    let add = elementwise_cases::add();
    let out = desc(ViewLayout::row_major(3, 4));
    let text =
        message(validate(&add, &[out, desc(ViewLayout::row_major(4, 3))], &out, &[]).unwrap_err());
    assert!(
        text.contains("inputs[1]") && text.contains("[4, 3]") && text.contains("[3, 4]"),
        "{text}"
    );
}

#[test]
fn wrong_input_and_scalar_counts_are_errors() {
    let out = desc(ViewLayout::vector(8));
    let add = elementwise_cases::add();
    assert!(message(validate(&add, &[out], &out, &[]).unwrap_err()).contains("arity"));
    let nine = Expression::from_fn(
        |a: Expr, b: Expr, c: Expr, d: Expr, e: Expr, f: Expr, g: Expr, h: Expr| {
            a + b + c + d + e + f + g + h
        },
    );
    let text = message(validate(&nine, &[out; 9], &out, &[]).unwrap_err());
    assert!(
        text.contains("9 tensors") && text.contains("at most 8"),
        "{text}"
    );
    let scaled = Expression::from_fn(|a: Expr| a * scalar(0));
    let text = message(validate(&scaled, &[out], &out, &[]).unwrap_err());
    assert!(text.contains("0 values") && text.contains('1'), "{text}");
}

#[test]
fn non_finite_scalars_are_errors_naming_the_scalar_unless_unchecked() {
    let out = desc(ViewLayout::vector(8));
    let scaled = Expression::from_fn(|a: Expr| a * scalar(0));
    let text = message(validate(&scaled, &[out], &out, &[f64::INFINITY]).unwrap_err());
    assert!(
        text.contains("scalars[0]") && text.contains("inf"),
        "{text}"
    );
    let text = message(validate(&scaled, &[out], &out, &[f64::NAN]).unwrap_err());
    assert!(text.contains("`scalars[0]` = NaN"), "{text}");
    // Finite as an f64, infinite in the f32 the kernel computes in; fine in f64.
    let arity = (scaled.arity(), scaled.scalar_count());
    let big = check_arguments(arity.0, arity.1, &[out], &out, &[1e300], Some(F32));
    assert!(message(big.unwrap_err()).contains("1e300"));
    assert!(check_arguments(arity.0, arity.1, &[out], &out, &[1e300], Some(F64)).is_ok());
    // Checks off (`check_scalars(false)`): passed on as given.
    assert!(check_arguments(arity.0, arity.1, &[out], &out, &[f64::NAN], None).is_ok());
}

#[test]
fn self_overlapping_output_and_unsupported_types_are_errors() {
    let add = elementwise_cases::add();
    let input = desc(ViewLayout::row_major(4, 8));
    let broadcast_out = desc(ViewLayout::with_strides(&[4, 8], &[0, 1]).unwrap());
    assert!(
        message(validate(&add, &[input, input], &broadcast_out, &[]).unwrap_err())
            .contains("(4,8):(0,1)")
    );
    let bytes = TensorDesc {
        element: I8,
        layout: ViewLayout::row_major(4, 8),
    };
    assert!(
        message(validate(&add, &[bytes, input], &input, &[]).unwrap_err())
            .contains("inputs[0] element type")
    );
}

#[test]
fn empty_tensors_validate_to_a_no_op() {
    let add = elementwise_cases::add();
    let empty = desc(ViewLayout::row_major(0, 8));
    assert!(validate(&add, &[empty, empty], &empty, &[]).unwrap().empty);
}

#[test]
fn overlap_is_allowed_only_in_place() {
    let out = TensorDesc {
        element: F16,
        layout: ViewLayout::row_major(4, 8),
    };
    assert_eq!(
        check_overlap(&out, 0x1000, &[out, out], &[0x1000, 0x2000]).unwrap(),
        [false, true]
    );
    let text = message(check_overlap(&out, 0x1000, &[out], &[0x1002]).unwrap_err());
    assert!(
        text.contains("inputs[0]") && text.contains("0x1002") && text.contains("0x1000"),
        "{text}"
    );
    let transposed = TensorDesc {
        element: F16,
        layout: ViewLayout::col_major(4, 8),
    };
    assert!(check_overlap(&out, 0x1000, &[transposed], &[0x1000]).is_err());
}

#[test]
fn user_layouts_that_do_not_cover_the_tile_are_errors() {
    let tiling = Tiling {
        thr: "(4,8):(8,1)".parse().unwrap(),
        val: "(2,2):(1,1)".parse().unwrap(),
    };
    let err = tiling.plan().unwrap_err();
    assert!(err.to_string().contains("(2,2):(1,1)"), "{err}");
}
