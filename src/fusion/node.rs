//! The operations of an expression, generic over how a node names its
//! operands: [`Expr`](super::Expr) handles while tracing, indices into the
//! flat list of an [`Expression`](super::Expression) afterwards.

use std::fmt;

use crate::numeric::ElementType;

/// An operation of one operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum UnaryOp {
    /// `-x`.
    Neg,
    /// `|x|`.
    Abs,
    /// `e^x`.
    Exp,
    /// `ln x`.
    Log,
    /// `√x`.
    Sqrt,
    /// `1/√x`.
    Rsqrt,
    /// `tanh x`.
    Tanh,
    /// `1/(1+e^-x)`.
    Sigmoid,
    /// `max(x, 0)` (NaN gives 0, as `max` ignores NaN).
    Relu,
    /// GELU, tanh form: `0.5x(1+tanh(√(2/π)(x+0.044715x³)))`.
    Gelu,
    /// GELU, erf form: `0.5x(1+erf(x/√2))`.
    GeluErf,
    /// SiLU (swish): `x·sigmoid(x)`.
    Silu,
}

/// An operation of two operands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BinaryOp {
    /// `a + b`.
    Add,
    /// `a - b`.
    Sub,
    /// `a · b`.
    Mul,
    /// `a / b`, correctly rounded.
    Div,
    /// The smaller operand; NaN-ignoring (a NaN operand gives the other one).
    Min,
    /// The larger operand; NaN-ignoring.
    Max,
}

/// A comparison; its result is a boolean (1.0 or 0.0 when used as a number).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CompareOp {
    /// `a < b` (false if either is NaN).
    Lt,
    /// `a <= b` (false if either is NaN).
    Le,
    /// `a > b` (false if either is NaN).
    Gt,
    /// `a >= b` (false if either is NaN).
    Ge,
    /// `a == b` (false if either is NaN).
    Eq,
    /// `a != b` (true if either is NaN, as IEEE 754 and Rust say).
    Ne,
}

impl UnaryOp {
    /// The op's name in canonical text, e.g. `gelu_erf`.
    pub const fn name(self) -> &'static str {
        match self {
            UnaryOp::Neg => "neg",
            UnaryOp::Abs => "abs",
            UnaryOp::Exp => "exp",
            UnaryOp::Log => "log",
            UnaryOp::Sqrt => "sqrt",
            UnaryOp::Rsqrt => "rsqrt",
            UnaryOp::Tanh => "tanh",
            UnaryOp::Sigmoid => "sigmoid",
            UnaryOp::Relu => "relu",
            UnaryOp::Gelu => "gelu",
            UnaryOp::GeluErf => "gelu_erf",
            UnaryOp::Silu => "silu",
        }
    }

    /// Every unary op.
    pub const ALL: [UnaryOp; 12] = [
        UnaryOp::Neg,
        UnaryOp::Abs,
        UnaryOp::Exp,
        UnaryOp::Log,
        UnaryOp::Sqrt,
        UnaryOp::Rsqrt,
        UnaryOp::Tanh,
        UnaryOp::Sigmoid,
        UnaryOp::Relu,
        UnaryOp::Gelu,
        UnaryOp::GeluErf,
        UnaryOp::Silu,
    ];
}

impl BinaryOp {
    /// The op's name in canonical text, e.g. `add`.
    pub const fn name(self) -> &'static str {
        match self {
            BinaryOp::Add => "add",
            BinaryOp::Sub => "sub",
            BinaryOp::Mul => "mul",
            BinaryOp::Div => "div",
            BinaryOp::Min => "min",
            BinaryOp::Max => "max",
        }
    }

    /// Every binary op.
    pub const ALL: [BinaryOp; 6] = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Min,
        BinaryOp::Max,
    ];
}

impl CompareOp {
    /// The op's name in canonical text, e.g. `lt`; also its PTX `setp`
    /// comparison, except `ne`, which is the unordered `neu` in PTX.
    pub const fn name(self) -> &'static str {
        match self {
            CompareOp::Lt => "lt",
            CompareOp::Le => "le",
            CompareOp::Gt => "gt",
            CompareOp::Ge => "ge",
            CompareOp::Eq => "eq",
            CompareOp::Ne => "ne",
        }
    }

    /// Every comparison.
    pub const ALL: [CompareOp; 6] = [
        CompareOp::Lt,
        CompareOp::Le,
        CompareOp::Gt,
        CompareOp::Ge,
        CompareOp::Eq,
        CompareOp::Ne,
    ];
}

impl fmt::Display for UnaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for BinaryOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl fmt::Display for CompareOp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One node of an expression; `C` names an operand.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Node<C> {
    /// Per-element input `i`.
    Input(usize),
    /// Runtime scalar parameter `i`.
    Scalar(usize),
    /// A constant, as the bits of an f64 (NaN canonicalized).
    Const(u64),
    Unary(UnaryOp, C),
    Binary(BinaryOp, C, C),
    /// `a·b + c`, one rounding.
    Fma(C, C, C),
    Compare(CompareOp, C, C),
    /// `cond ? if_true : if_false`; `cond` is true when it is non-zero
    /// (NaN included) or a true comparison.
    Select(C, C, C),
    /// Round to the values of a type, then go on in the compute type.
    Cast(ElementType, C),
}

impl<C> Node<C> {
    /// The operands, in order.
    pub(crate) fn operands(&self) -> Vec<&C> {
        match self {
            Node::Input(_) | Node::Scalar(_) | Node::Const(_) => Vec::new(),
            Node::Unary(_, a) | Node::Cast(_, a) => vec![a],
            Node::Binary(_, a, b) | Node::Compare(_, a, b) => vec![a, b],
            Node::Fma(a, b, c) | Node::Select(a, b, c) => vec![a, b, c],
        }
    }

    /// The operands, moved out, in order.
    pub(crate) fn into_operands(self) -> Vec<C> {
        match self {
            Node::Input(_) | Node::Scalar(_) | Node::Const(_) => Vec::new(),
            Node::Unary(_, a) | Node::Cast(_, a) => vec![a],
            Node::Binary(_, a, b) | Node::Compare(_, a, b) => vec![a, b],
            Node::Fma(a, b, c) | Node::Select(a, b, c) => vec![a, b, c],
        }
    }

    /// The same node with each operand mapped through `f`.
    pub(crate) fn map<D>(&self, mut f: impl FnMut(&C) -> D) -> Node<D> {
        match self {
            Node::Input(i) => Node::Input(*i),
            Node::Scalar(i) => Node::Scalar(*i),
            Node::Const(bits) => Node::Const(*bits),
            Node::Unary(op, a) => Node::Unary(*op, f(a)),
            Node::Cast(ty, a) => Node::Cast(*ty, f(a)),
            Node::Binary(op, a, b) => {
                let a = f(a);
                Node::Binary(*op, a, f(b))
            }
            Node::Compare(op, a, b) => {
                let a = f(a);
                Node::Compare(*op, a, f(b))
            }
            Node::Fma(a, b, c) => {
                let (a, b) = (f(a), f(b));
                Node::Fma(a, b, f(c))
            }
            Node::Select(a, b, c) => {
                let (a, b) = (f(a), f(b));
                Node::Select(a, b, f(c))
            }
        }
    }
}

/// The bits a constant is stored as: every NaN becomes the one quiet NaN,
/// so that equal-looking expressions are equal.
pub(crate) fn constant_bits(v: f64) -> u64 {
    if v.is_nan() {
        f64::NAN.to_bits()
    } else {
        v.to_bits()
    }
}
