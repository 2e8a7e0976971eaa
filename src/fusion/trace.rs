//! [`IntoExpression`]: closures of 1 to 8 [`Expr`] arguments that trace
//! into an [`Expression`].

use super::{input, Expr, Expression};

/// A closure that traces into an [`Expression`]: any `FnOnce(Expr, ...) -> Expr`
/// of 1 to 8 arguments. `Args` is the tuple of
/// argument types; it only tells the impls apart.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be traced into a fusion expression",
    label = "expected a closure of 1 to 8 `Expr` arguments returning an `Expr`"
)]
pub trait IntoExpression<Args> {
    /// Runs the closure once on symbolic inputs and records what it computed.
    fn into_expression(self) -> Expression;
}

/// Implements [`IntoExpression`] for closures of the listed arity.
macro_rules! into_expression {
    ($arity:literal; $($arg:ident),+) => {
        impl<F> IntoExpression<($(into_expression!(@expr $arg),)+)> for F
        where
            F: FnOnce($(into_expression!(@expr $arg)),+) -> Expr,
        {
            fn into_expression(self) -> Expression {
                let mut index = 0..;
                $(let $arg = input(index.next().unwrap_or_default());)+
                let body = self($($arg),+);
                Expression::trace($arity, &body)
            }
        }
    };
    (@expr $arg:ident) => { Expr };
}

into_expression!(1; a);
into_expression!(2; a, b);
into_expression!(3; a, b, c);
into_expression!(4; a, b, c, d);
into_expression!(5; a, b, c, d, e);
into_expression!(6; a, b, c, d, e, f);
into_expression!(7; a, b, c, d, e, f, g);
into_expression!(8; a, b, c, d, e, f, g, h);
