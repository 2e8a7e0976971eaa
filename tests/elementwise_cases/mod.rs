//! The expressions the elementwise GPU tests run, shared with the ptxas test
//! so that every kernel variant the GPU tests launch is also assembled.

#![allow(dead_code)]

use cutlet::arch::ArchKind;
use cutlet::fusion::{scalar, Expr, Expression};
use cutlet::kernel::elementwise::{Access, ElementwiseSpec, Operand, Schedule, Tiling};
use cutlet::numeric::ElementType;

/// `(name, expression, input range)`: every op of the expression language.
/// The range keeps each op in its domain (log and sqrt of positives).
pub fn ops() -> Vec<(&'static str, Expression, (f64, f64))> {
    let sym = (-3.0, 3.0);
    let pos = (0.1, 4.0);
    vec![
        ("add", Expression::from_fn(|a: Expr, b: Expr| a + b), sym),
        ("sub", Expression::from_fn(|a: Expr, b: Expr| a - b), sym),
        ("mul", Expression::from_fn(|a: Expr, b: Expr| a * b), sym),
        ("div", Expression::from_fn(|a: Expr, b: Expr| a / b), pos),
        ("neg", Expression::from_fn(|a: Expr| -a), sym),
        ("min", Expression::from_fn(|a: Expr, b: Expr| a.min(b)), sym),
        ("max", Expression::from_fn(|a: Expr, b: Expr| a.max(b)), sym),
        ("abs", Expression::from_fn(|a: Expr| a.abs()), sym),
        (
            "fma",
            Expression::from_fn(|a: Expr, b: Expr, c: Expr| a.fma(b, c)),
            sym,
        ),
        ("exp", Expression::from_fn(|a: Expr| a.exp()), sym),
        ("log", Expression::from_fn(|a: Expr| a.log()), pos),
        ("sqrt", Expression::from_fn(|a: Expr| a.sqrt()), pos),
        ("rsqrt", Expression::from_fn(|a: Expr| a.rsqrt()), pos),
        ("tanh", Expression::from_fn(|a: Expr| a.tanh()), sym),
        ("sigmoid", Expression::from_fn(|a: Expr| a.sigmoid()), sym),
        ("relu", Expression::from_fn(|a: Expr| a.relu()), sym),
        ("gelu", Expression::from_fn(|a: Expr| a.gelu()), sym),
        ("gelu_erf", Expression::from_fn(|a: Expr| a.gelu_erf()), sym),
        ("silu", Expression::from_fn(|a: Expr| a.silu()), sym),
        (
            "select_lt",
            Expression::from_fn(|a: Expr, b: Expr| a.lt(&b).select(&a, &b * 2.0)),
            sym,
        ),
        (
            "select_ge",
            Expression::from_fn(|a: Expr, b: Expr| a.ge(&b).select(1.0, -1.0)),
            sym,
        ),
        (
            "scalars",
            Expression::from_fn(|a: Expr, b: Expr| a * scalar(0) + b * scalar(1)),
            sym,
        ),
        ("gelu3", gelu3(), sym),
    ]
}

/// `(a * b + c).gelu()`: the three-input benchmark expression.
pub fn gelu3() -> Expression {
    Expression::from_fn(|a: Expr, b: Expr, c: Expr| (a * b + c).gelu())
}

/// `a + b`.
pub fn add() -> Expression {
    Expression::from_fn(|a: Expr, b: Expr| a + b)
}

/// Scalars each op of [`ops`] takes.
pub fn scalars_for(expression: &Expression) -> Vec<f64> {
    [0.75, -1.5]
        .iter()
        .copied()
        .take(expression.scalar_count())
        .collect()
}

/// The spec of `expression` over inputs and an output of one `element`
/// type and `access`, computing in f64 for f64 and i32 data and in f32
/// otherwise, with the default tiling of 16-byte vectors and schedule.
pub fn spec(
    arch: ArchKind,
    expression: cutlet::fusion::Expression,
    element: ElementType,
    access: Access,
) -> ElementwiseSpec {
    let operand = Operand {
        element,
        access,
        read_only: true,
    };
    let compute = if matches!(element, ElementType::F64 | ElementType::I32) {
        ElementType::F64
    } else {
        ElementType::F32
    };
    ElementwiseSpec {
        arch,
        inputs: vec![operand; expression.arity()],
        output: Operand {
            read_only: false,
            ..operand
        },
        expression,
        compute,
        tiling: Tiling::for_vector(16 / element.size_bytes()),
        schedule: Schedule::default(),
        flat: false,
    }
}
