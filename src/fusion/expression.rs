//! [`Expression`]: a traced expression, flat and hash-consed.

use std::collections::HashMap;
use std::fmt;
use std::fmt::Write as _;
use std::rc::Rc;
use std::sync::Arc;

use super::error::FusionError;
use super::node::Node;
use super::{scalar, Expr, IntoExpression};

/// A traced expression: per-element inputs `x0..x{arity-1}`, runtime scalars
/// `s0..`, and the operations between them, as a flat list in evaluation
/// order whose last node is the result.
///
/// Tracing hash-conses: structurally equal subexpressions become one node,
/// whether the closure shared an `Expr` or built it twice, so equal
/// expressions compare equal, hash equal and have equal [`key`](Self::key)s,
/// and every node is emitted once. `Display` writes the key.
///
/// ```
/// use cutlet::fusion::{Expr, Expression};
///
/// let shared = Expression::from_fn(|x: Expr| { let e = x.exp(); &e + &e });
/// let twice = Expression::from_fn(|x: Expr| x.exp() + x.exp());
/// assert_eq!(shared, twice);
/// assert_eq!(shared.key(), "|x0| let t0 = exp(x0); add(t0, t0)");
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Expression {
    arity: usize,
    nodes: Arc<[Node<usize>]>,
}

impl Expression {
    /// Traces a closure of 1 to 8 [`Expr`] arguments: it runs once, here,
    /// on symbolic inputs `x0, x1, ...`. Annotate the arguments `Expr` when the
    /// body calls a method on one (`|x: Expr| x.exp()`): Rust types closure
    /// arguments before it picks the arity impl, so only operator-only
    /// bodies (`|a, b| a + b`) infer. The arity is the closure's (or
    /// higher, if the closure also used [`input`](super::input)`(i)` with a
    /// larger `i`).
    ///
    /// ```
    /// use cutlet::fusion::{Expr, Expression};
    ///
    /// let e = Expression::from_fn(|a: Expr, b: Expr, c: Expr| (a * b + c).gelu());
    /// assert_eq!(e.arity(), 3);
    /// let sum = Expression::from_fn(|a, b| a + b);
    /// assert_eq!(sum.key(), "|x0, x1| add(x0, x1)");
    /// assert_eq!(e.key(), "|x0, x1, x2| gelu(add(mul(x0, x1), x2))");
    /// ```
    pub fn from_fn<Args, F: IntoExpression<Args>>(f: F) -> Expression {
        f.into_expression()
    }

    /// The expression `body` over `arity` per-element inputs; an error if
    /// `body` reads an input `>= arity`.
    ///
    /// ```
    /// use cutlet::fusion::{input, Expression};
    ///
    /// let sum = (0..4).map(input).reduce(|a, b| a + b).unwrap();
    /// assert_eq!(Expression::new(4, &sum).unwrap().arity(), 4);
    /// assert!(Expression::new(3, &sum).is_err());
    /// ```
    pub fn new(arity: usize, body: &Expr) -> Result<Expression, FusionError> {
        let traced = Expression::trace(arity, body);
        if traced.arity > arity {
            return Err(FusionError::InputOutOfRange {
                index: traced.arity - 1,
                arity,
            });
        }
        Ok(traced)
    }

    /// The CUTLASS default epilogue, `D = alpha·acc + beta·C`:
    /// `|acc, c| acc * scalar(0) + c * scalar(1)`.
    ///
    /// ```
    /// use cutlet::fusion::Expression;
    ///
    /// let lc = Expression::linear_combination();
    /// assert_eq!(lc.key(), "|x0, x1| add(mul(x0, s0), mul(x1, s1))");
    /// assert_eq!(lc.eval(&[2.0, 10.0], &[3.0, 0.5]), 11.0);
    /// ```
    pub fn linear_combination() -> Expression {
        Expression::from_fn(|acc: Expr, c: Expr| acc * scalar(0) + c * scalar(1))
    }

    /// Flattens the graph under `root`, interning nodes so that structurally
    /// equal ones become one; the arity is at least `arity`, raised to cover
    /// every input the graph reads. Iterative, so deep chains cannot
    /// overflow the stack; memoized by node identity, so shared nodes are
    /// visited once.
    pub(crate) fn trace(arity: usize, root: &Expr) -> Expression {
        let mut by_identity: HashMap<*const Node<Expr>, usize> = HashMap::new();
        let mut interned: HashMap<Node<usize>, usize> = HashMap::new();
        let mut nodes: Vec<Node<usize>> = Vec::new();
        let mut stack: Vec<(&Expr, bool)> = vec![(root, false)];
        while let Some((expr, expanded)) = stack.pop() {
            let id = Rc::as_ptr(&expr.0);
            if by_identity.contains_key(&id) {
                continue;
            }
            if !expanded {
                stack.push((expr, true));
                for operand in expr.0.operands().into_iter().rev() {
                    stack.push((operand, false));
                }
                continue;
            }
            let flat = expr.0.map(|operand| {
                let id = Rc::as_ptr(&operand.0);
                by_identity[&id]
            });
            let index = *interned.entry(flat.clone()).or_insert_with(|| {
                nodes.push(flat);
                nodes.len() - 1
            });
            by_identity.insert(id, index);
        }
        let highest_input = nodes
            .iter()
            .filter_map(|n| match n {
                Node::Input(i) => Some(i + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        Expression {
            arity: arity.max(highest_input),
            nodes: nodes.into(),
        }
    }

    /// The expression applied to `inputs` (input `i` replaced by
    /// `inputs[i]`; scalars stay), as a graph to trace into another
    /// expression. Needs `inputs.len() >= self.arity()`.
    pub(crate) fn apply_to(&self, inputs: &[Expr]) -> Expr {
        let mut built: Vec<Expr> = Vec::with_capacity(self.nodes.len());
        for node in self.nodes.iter() {
            let expr = match node {
                Node::Input(i) => inputs[*i].clone(),
                other => Expr::node(other.map(|&j| built[j].clone())),
            };
            built.push(expr);
        }
        // The root is traced last (every other node is one of its operands').
        built.pop().unwrap_or_else(|| Expr::constant(0.0))
    }

    /// Per-element inputs the expression takes.
    pub fn arity(&self) -> usize {
        self.arity
    }

    /// One more than the highest scalar index used; 0 if none.
    pub fn scalar_count(&self) -> usize {
        self.nodes
            .iter()
            .filter_map(|n| match n {
                Node::Scalar(i) => Some(i + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0)
    }

    /// Nodes after hash-consing (inputs, scalars and constants included).
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// The canonical text: equal expressions give equal keys, different ones
    /// different keys; part of kernel cache keys. Nodes used more than once
    /// are bound with `let` (`|x0| let t0 = exp(x0); add(t0, t0)`).
    pub fn key(&self) -> String {
        self.to_string()
    }

    pub(crate) fn nodes(&self) -> &[Node<usize>] {
        &self.nodes
    }

    /// The body of the key, without the `|x0, ...|` head.
    pub(crate) fn body_text(&self) -> String {
        let mut uses = vec![0usize; self.nodes.len()];
        for node in self.nodes.iter() {
            for &operand in node.operands() {
                uses[operand] += 1;
            }
        }
        let mut lets = String::new();
        let mut texts: Vec<String> = Vec::with_capacity(self.nodes.len());
        let mut bound = 0;
        for (i, node) in self.nodes.iter().enumerate() {
            let arg = |j: &usize| texts[*j].as_str();
            let text = match node {
                Node::Input(i) => format!("x{i}"),
                Node::Scalar(i) => format!("s{i}"),
                Node::Const(bits) => format!("{:?}", f64::from_bits(*bits)),
                Node::Unary(op, a) => format!("{op}({})", arg(a)),
                Node::Cast(ty, a) => format!("cast<{ty}>({})", arg(a)),
                Node::Binary(op, a, b) => format!("{op}({}, {})", arg(a), arg(b)),
                Node::Compare(op, a, b) => format!("{op}({}, {})", arg(a), arg(b)),
                Node::Fma(a, b, c) => format!("fma({}, {}, {})", arg(a), arg(b), arg(c)),
                Node::Select(c, t, f) => {
                    format!("select({}, {}, {})", arg(c), arg(t), arg(f))
                }
            };
            let leaf = node.operands().is_empty();
            if uses[i] > 1 && !leaf && i + 1 != self.nodes.len() {
                let name = format!("t{bound}");
                bound += 1;
                let _ = write!(lets, "let {name} = {text}; ");
                texts.push(name);
            } else {
                texts.push(text);
            }
        }
        lets + texts.last().map(String::as_str).unwrap_or("")
    }
}

impl fmt::Display for Expression {
    /// Writes the canonical text, e.g. `|x0, x1| relu(add(x0, x1))`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let inputs: Vec<String> = (0..self.arity).map(|i| format!("x{i}")).collect();
        write!(f, "|{}| {}", inputs.join(", "), self.body_text())
    }
}
