//! [`Expression::eval`]: the host reference, in f64.

use super::error::FusionError;
use super::host::{erf, round_to};
use super::node::{BinaryOp, CompareOp, Node, UnaryOp};
use super::Expression;

/// `√(2/π)`, the GELU tanh-form constant.
pub(crate) const GELU_K: f64 = 0.797_884_560_802_865_4;
/// The cubic coefficient of the GELU tanh form.
pub(crate) const GELU_C: f64 = 0.044_715;

impl Expression {
    /// The expression on one element, in f64: the host reference the GPU is
    /// tested against. Comparisons give 1.0/0.0; casts round to the target
    /// type ([`round_to`]); `min`/`max` ignore a NaN operand (as PTX
    /// `min.f32` does; the sign of a zero result of `min(-0, +0)` is not
    /// specified by PTX); transcendentals are exact (erf included), not the
    /// GPU's approximations. A missing input or scalar reads as NaN; use
    /// [`try_eval`](Self::try_eval) to get an error instead.
    ///
    /// ```
    /// use cutlet::fusion::{scalar, Expr, Expression};
    ///
    /// let e = Expression::from_fn(|x: Expr, y| x.max(y) * scalar(0));
    /// assert_eq!(e.eval(&[1.0, f64::NAN], &[2.0]), 2.0);
    /// ```
    pub fn eval(&self, inputs: &[f64], scalars: &[f64]) -> f64 {
        let mut values: Vec<f64> = Vec::with_capacity(self.nodes().len());
        for node in self.nodes() {
            let v = |i: &usize| values[*i];
            let value = match node {
                Node::Input(i) => inputs.get(*i).copied().unwrap_or(f64::NAN),
                Node::Scalar(i) => scalars.get(*i).copied().unwrap_or(f64::NAN),
                Node::Const(bits) => f64::from_bits(*bits),
                Node::Unary(op, a) => unary(*op, v(a)),
                Node::Binary(op, a, b) => binary(*op, v(a), v(b)),
                Node::Fma(a, b, c) => v(a).mul_add(v(b), v(c)),
                Node::Compare(op, a, b) => {
                    if compare(*op, v(a), v(b)) {
                        1.0
                    } else {
                        0.0
                    }
                }
                Node::Select(c, t, f) => {
                    if truthy(v(c)) {
                        v(t)
                    } else {
                        v(f)
                    }
                }
                Node::Cast(ty, a) => round_to(*ty, v(a)),
            };
            values.push(value);
        }
        values.last().copied().unwrap_or(f64::NAN)
    }

    /// As [`eval`](Self::eval), but an error when `inputs` is not the arity
    /// long or `scalars` is shorter than [`scalar_count`](Self::scalar_count).
    pub fn try_eval(&self, inputs: &[f64], scalars: &[f64]) -> Result<f64, FusionError> {
        self.check_counts(inputs.len(), scalars.len())?;
        Ok(self.eval(inputs, scalars))
    }

    pub(crate) fn check_counts(&self, inputs: usize, scalars: usize) -> Result<(), FusionError> {
        if inputs != self.arity() {
            return Err(FusionError::InputCount {
                expression: self.key(),
                expected: self.arity(),
                got: inputs,
            });
        }
        if scalars < self.scalar_count() {
            return Err(FusionError::ScalarCount {
                expression: self.key(),
                expected: self.scalar_count(),
                got: scalars,
            });
        }
        Ok(())
    }
}

/// Whether a select condition holds: non-zero, NaN included.
fn truthy(c: f64) -> bool {
    c != 0.0
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

fn unary(op: UnaryOp, x: f64) -> f64 {
    match op {
        UnaryOp::Neg => -x,
        UnaryOp::Abs => x.abs(),
        UnaryOp::Exp => x.exp(),
        UnaryOp::Log => x.ln(),
        UnaryOp::Sqrt => x.sqrt(),
        UnaryOp::Rsqrt => 1.0 / x.sqrt(),
        UnaryOp::Tanh => x.tanh(),
        UnaryOp::Sigmoid => sigmoid(x),
        UnaryOp::Relu => x.max(0.0),
        UnaryOp::Gelu => 0.5 * x * (1.0 + (GELU_K * (x + GELU_C * x * x * x)).tanh()),
        UnaryOp::GeluErf => 0.5 * x * (1.0 + erf(x * std::f64::consts::FRAC_1_SQRT_2)),
        UnaryOp::Silu => x * sigmoid(x),
    }
}

fn binary(op: BinaryOp, a: f64, b: f64) -> f64 {
    match op {
        BinaryOp::Add => a + b,
        BinaryOp::Sub => a - b,
        BinaryOp::Mul => a * b,
        BinaryOp::Div => a / b,
        BinaryOp::Min => a.min(b),
        BinaryOp::Max => a.max(b),
    }
}

/// IEEE comparisons: ordered (false with a NaN) except `ne`.
fn compare(op: CompareOp, a: f64, b: f64) -> bool {
    match op {
        CompareOp::Lt => a < b,
        CompareOp::Le => a <= b,
        CompareOp::Gt => a > b,
        CompareOp::Ge => a >= b,
        CompareOp::Eq => a == b,
        CompareOp::Ne => a != b,
    }
}
