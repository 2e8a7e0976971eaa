//! `+ - * /` and unary `-` on [`Expr`].
//!
//! The right operand is anything that converts into an `Expr` (an `Expr`,
//! `&Expr`, `f64` or `f32`), through one generic impl per operator, so the
//! compiler knows the result is an `Expr` before it has chosen a type for
//! an unsuffixed float literal: `(x.abs() + 0.5).log()` compiles, and the
//! literal becomes an `f64`. A number on the left is an `f64` (one impl
//! per operator, so `0.5 * x` infers the same way); an `f32` variable goes
//! on the right (`x * v`) or through [`Expr::from`] (examples on [`Expr`]).

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::node::{BinaryOp, Node, UnaryOp};
use super::Expr;

/// Implements one binary operator: `Expr` or `&Expr` on the left with any
/// `Into<Expr>` on the right, and `f64` on the left with `Expr` or `&Expr`
/// on the right.
macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:expr) => {
        impl<T: Into<Expr>> $trait<T> for Expr {
            type Output = Expr;
            fn $method(self, rhs: T) -> Expr {
                self.binary($op, rhs.into())
            }
        }
        impl<T: Into<Expr>> $trait<T> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: T) -> Expr {
                self.binary($op, rhs.into())
            }
        }
        impl $trait<Expr> for f64 {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                Expr::from(self).binary($op, rhs)
            }
        }
        impl $trait<&Expr> for f64 {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                Expr::from(self).binary($op, rhs.clone())
            }
        }
    };
}

binary_operator!(Add, add, BinaryOp::Add);
binary_operator!(Sub, sub, BinaryOp::Sub);
binary_operator!(Mul, mul, BinaryOp::Mul);
binary_operator!(Div, div, BinaryOp::Div);

impl Neg for Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::node(Node::Unary(UnaryOp::Neg, self))
    }
}

impl Neg for &Expr {
    type Output = Expr;
    fn neg(self) -> Expr {
        Expr::node(Node::Unary(UnaryOp::Neg, self.clone()))
    }
}
