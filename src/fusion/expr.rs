//! [`Expr`]: the symbolic per-element value a closure computes with.

use std::fmt;
use std::rc::Rc;

use super::node::{constant_bits, BinaryOp, CompareOp, Node, UnaryOp};
use super::Expression;
use crate::numeric::ElementType;

/// A symbolic per-element value: what a fusion closure receives and returns.
///
/// Arithmetic on `Expr`s records nodes instead of computing; the closure runs
/// once on the host and its result becomes an [`Expression`]. Cloning is
/// cheap (a reference count), and a node used twice is emitted once.
///
/// ```
/// use cutlet::fusion::{scalar, Expr, Expression};
///
/// let e = Expression::from_fn(|x: Expr, y: Expr| (x * scalar(0) + y).relu());
/// assert_eq!(e.key(), "|x0, x1| relu(add(mul(x0, s0), x1))");
/// assert_eq!(e.eval(&[2.0, -1.0], &[3.0]), 5.0);
/// ```
///
/// `+ - * /` take an `Expr`, `&Expr`, `f64` or `f32` on the right and an
/// `Expr`, `&Expr` or `f64` on the left; unsuffixed float literals work on
/// either side and in method chains (they are `f64`). An `f32` variable goes
/// on the right, or through `Expr::from`:
///
/// ```
/// use cutlet::fusion::{Expr, Expression};
///
/// let v: f32 = 0.25;
/// let e = Expression::from_fn(|x: Expr| {
///     (x.abs() + 0.5).log() + (0.5 * &x).exp() - (1.0 - &x) / 2.0 + x.clone() * v + Expr::from(v) * x
/// });
/// let x = -3.0f64;
/// let want = (x.abs() + 0.5).ln() + (0.5 * x).exp() - (1.0 - x) / 2.0 + 2.0 * x * 0.25;
/// assert!((e.eval(&[x], &[]) - want).abs() < 1e-12);
/// ```
#[derive(Clone)]
pub struct Expr(pub(crate) Rc<Node<Expr>>);

/// The runtime scalar parameter `index` (alpha, beta, a threshold...): the
/// same value for every element, given at launch in the compute type.
///
/// ```
/// use cutlet::fusion::{scalar, Expression};
///
/// let e = Expression::from_fn(|x| x * scalar(1));
/// assert_eq!(e.scalar_count(), 2);
/// ```
pub fn scalar(index: usize) -> Expr {
    Expr::node(Node::Scalar(index))
}

/// Per-element input `index`, for expressions built without a closure
/// (see [`Expression::new`]).
pub fn input(index: usize) -> Expr {
    Expr::node(Node::Input(index))
}

impl Expr {
    pub(crate) fn node(node: Node<Expr>) -> Expr {
        Expr(Rc::new(node))
    }

    /// A constant. Emitted as an exact hex immediate of the compute type
    /// (rounded to it).
    pub fn constant(v: f64) -> Expr {
        Expr::node(Node::Const(constant_bits(v)))
    }

    fn unary(&self, op: UnaryOp) -> Expr {
        Expr::node(Node::Unary(op, self.clone()))
    }

    pub(crate) fn binary(&self, op: BinaryOp, o: Expr) -> Expr {
        Expr::node(Node::Binary(op, self.clone(), o))
    }

    fn compare(&self, op: CompareOp, o: impl Into<Expr>) -> Expr {
        Expr::node(Node::Compare(op, self.clone(), o.into()))
    }

    /// The smaller of `self` and `o`; a NaN operand gives the other one, as
    /// PTX `min.f32` and Rust's `f64::min` do.
    pub fn min(&self, o: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Min, o.into())
    }

    /// The larger of `self` and `o`; NaN-ignoring like [`min`](Self::min).
    pub fn max(&self, o: impl Into<Expr>) -> Expr {
        self.binary(BinaryOp::Max, o.into())
    }

    /// `|self|`.
    pub fn abs(&self) -> Expr {
        self.unary(UnaryOp::Abs)
    }

    /// `self·b + c` with one rounding.
    pub fn fma(&self, b: impl Into<Expr>, c: impl Into<Expr>) -> Expr {
        Expr::node(Node::Fma(self.clone(), b.into(), c.into()))
    }

    /// `e^self` (f32: `ex2.approx.ftz` of `self·log2 e`).
    pub fn exp(&self) -> Expr {
        self.unary(UnaryOp::Exp)
    }

    /// `ln self` (f32: `lg2.approx` times `ln 2`).
    pub fn log(&self) -> Expr {
        self.unary(UnaryOp::Log)
    }

    /// `√self`, correctly rounded.
    pub fn sqrt(&self) -> Expr {
        self.unary(UnaryOp::Sqrt)
    }

    /// `1/√self` (f32: `rsqrt.approx`).
    pub fn rsqrt(&self) -> Expr {
        self.unary(UnaryOp::Rsqrt)
    }

    /// `tanh self` (f32: `tanh.approx` on sm_75+, an `ex2`-based formula on sm_70).
    pub fn tanh(&self) -> Expr {
        self.unary(UnaryOp::Tanh)
    }

    /// `1/(1+e^-self)`.
    pub fn sigmoid(&self) -> Expr {
        self.unary(UnaryOp::Sigmoid)
    }

    /// `max(self, 0)`; NaN gives 0.
    pub fn relu(&self) -> Expr {
        self.unary(UnaryOp::Relu)
    }

    /// GELU, tanh form: `0.5x(1+tanh(0.7978845608(x+0.044715x³)))`.
    pub fn gelu(&self) -> Expr {
        self.unary(UnaryOp::Gelu)
    }

    /// GELU, erf form: `0.5x(1+erf(x/√2))`, erf by Abramowitz & Stegun 7.1.26
    /// on the GPU (see [`host::erf_as7126`](super::host::erf_as7126)).
    pub fn gelu_erf(&self) -> Expr {
        self.unary(UnaryOp::GeluErf)
    }

    /// SiLU: `self·sigmoid(self)`.
    pub fn silu(&self) -> Expr {
        self.unary(UnaryOp::Silu)
    }

    /// `self < o`: a boolean for [`select`](Self::select) (1.0/0.0 as a number).
    pub fn lt(&self, o: impl Into<Expr>) -> Expr {
        self.compare(CompareOp::Lt, o)
    }

    /// `self <= o`.
    pub fn le(&self, o: impl Into<Expr>) -> Expr {
        self.compare(CompareOp::Le, o)
    }

    /// `self > o`.
    pub fn gt(&self, o: impl Into<Expr>) -> Expr {
        self.compare(CompareOp::Gt, o)
    }

    /// `self >= o`.
    pub fn ge(&self, o: impl Into<Expr>) -> Expr {
        self.compare(CompareOp::Ge, o)
    }

    /// `self == o` (false when either is NaN).
    pub fn eq(&self, o: impl Into<Expr>) -> Expr {
        self.compare(CompareOp::Eq, o)
    }

    /// `self != o` (true when either is NaN).
    pub fn ne(&self, o: impl Into<Expr>) -> Expr {
        self.compare(CompareOp::Ne, o)
    }

    /// `if_true` where `self` holds, else `if_false`. `self` is normally a
    /// comparison; any other value counts as true when it is non-zero (NaN
    /// included).
    ///
    /// ```
    /// use cutlet::fusion::{Expr, Expression};
    ///
    /// let leaky = Expression::from_fn(|x: Expr| x.gt(0.0).select(&x, &x * 0.01));
    /// assert_eq!(leaky.eval(&[-2.0], &[]), -0.02);
    /// ```
    pub fn select(&self, if_true: impl Into<Expr>, if_false: impl Into<Expr>) -> Expr {
        Expr::node(Node::Select(self.clone(), if_true.into(), if_false.into()))
    }

    /// Rounds to the values of `to` (f16, bf16, f32, f64 or i32; i32 rounds
    /// toward zero and saturates, NaN gives 0), then goes on in the compute
    /// type. A cast to a type wider than the compute type changes nothing.
    pub fn cast(&self, to: ElementType) -> Expr {
        Expr::node(Node::Cast(to, self.clone()))
    }
}

impl Drop for Expr {
    /// Frees a chain of nodes iteratively: the default recursive drop would
    /// overflow the stack on a deep expression (a fold over 100 000 terms).
    fn drop(&mut self) {
        let mut pending: Vec<Expr> = Vec::new();
        let take = |expr: &mut Expr, pending: &mut Vec<Expr>| {
            if let Some(node) = Rc::get_mut(&mut expr.0) {
                let node = std::mem::replace(node, Node::Const(0));
                pending.extend(node.into_operands());
            }
        };
        take(self, &mut pending);
        while let Some(mut expr) = pending.pop() {
            take(&mut expr, &mut pending);
        }
    }
}

impl fmt::Debug for Expr {
    /// Writes the canonical text of the expression this value ends.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let traced = Expression::trace(0, self);
        write!(f, "Expr({})", traced.body_text())
    }
}

impl From<f64> for Expr {
    fn from(v: f64) -> Expr {
        Expr::constant(v)
    }
}

impl From<f32> for Expr {
    fn from(v: f32) -> Expr {
        Expr::constant(f64::from(v))
    }
}

impl From<&Expr> for Expr {
    fn from(v: &Expr) -> Expr {
        v.clone()
    }
}
