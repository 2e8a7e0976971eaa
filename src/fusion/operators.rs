//! `+ - * /` and unary `-` on [`Expr`], with `Expr`, `&Expr`, `f32` and
//! `f64` on either side.

use std::ops::{Add, Div, Mul, Neg, Sub};

use super::node::{BinaryOp, Node, UnaryOp};
use super::Expr;

/// Implements one binary operator for every pair of operand kinds.
macro_rules! binary_operator {
    ($trait:ident, $method:ident, $op:expr) => {
        impl $trait<Expr> for Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                self.binary($op, rhs)
            }
        }
        impl $trait<&Expr> for Expr {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                self.binary($op, rhs.clone())
            }
        }
        impl $trait<Expr> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                self.binary($op, rhs)
            }
        }
        impl $trait<&Expr> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: &Expr) -> Expr {
                self.binary($op, rhs.clone())
            }
        }
        binary_operator!(@scalar $trait, $method, $op, f64);
        binary_operator!(@scalar $trait, $method, $op, f32);
    };
    (@scalar $trait:ident, $method:ident, $op:expr, $scalar:ty) => {
        impl $trait<$scalar> for Expr {
            type Output = Expr;
            fn $method(self, rhs: $scalar) -> Expr {
                self.binary($op, Expr::from(rhs))
            }
        }
        impl $trait<$scalar> for &Expr {
            type Output = Expr;
            fn $method(self, rhs: $scalar) -> Expr {
                self.binary($op, Expr::from(rhs))
            }
        }
        impl $trait<Expr> for $scalar {
            type Output = Expr;
            fn $method(self, rhs: Expr) -> Expr {
                Expr::from(self).binary($op, rhs)
            }
        }
        impl $trait<&Expr> for $scalar {
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
