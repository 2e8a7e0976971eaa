//! Hierarchical integer tuples: the shapes, strides and coordinates of CuTe.
//!
//! An [`IntTuple`] is either an integer or a tuple of `IntTuple`s, so `(4,(2,2))`
//! is a rank-2, depth-2 tuple of size 16. Coordinates are mapped to indices
//! colexicographically (the leftmost mode varies fastest), as in CuTe.

use std::fmt;

/// An integer or a tuple of `IntTuple`s (CuTe's `IntTuple`).
///
/// ```
/// use cutlet::layout::IntTuple;
/// let s: IntTuple = "(4,(2,2))".parse().unwrap();
/// assert_eq!(s.rank(), 2);
/// assert_eq!(s.depth(), 2);
/// assert_eq!(s.size(), 16);
/// assert_eq!(s.to_string(), "(4,(2,2))");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum IntTuple {
    /// A single integer.
    Int(i64),
    /// A tuple of integer tuples (possibly empty).
    Tuple(Vec<IntTuple>),
}

impl IntTuple {
    /// A tuple from its modes.
    pub fn tuple(modes: impl IntoIterator<Item = IntTuple>) -> Self {
        IntTuple::Tuple(modes.into_iter().collect())
    }

    /// A flat tuple of integers.
    pub fn ints(values: &[i64]) -> Self {
        IntTuple::Tuple(values.iter().map(|&v| IntTuple::Int(v)).collect())
    }

    /// True for a single integer.
    pub fn is_int(&self) -> bool {
        matches!(self, IntTuple::Int(_))
    }

    /// The integer, if this is one.
    pub fn as_int(&self) -> Option<i64> {
        match self {
            IntTuple::Int(v) => Some(*v),
            IntTuple::Tuple(_) => None,
        }
    }

    /// Number of top-level modes; an integer has rank 1.
    pub fn rank(&self) -> usize {
        match self {
            IntTuple::Int(_) => 1,
            IntTuple::Tuple(m) => m.len(),
        }
    }

    /// Nesting depth: 0 for an integer, 1 for a flat tuple, and so on.
    pub fn depth(&self) -> usize {
        match self {
            IntTuple::Int(_) => 0,
            IntTuple::Tuple(m) => 1 + m.iter().map(IntTuple::depth).max().unwrap_or(0),
        }
    }

    /// Product of all integers (1 for an empty tuple).
    pub fn size(&self) -> i64 {
        match self {
            IntTuple::Int(v) => *v,
            IntTuple::Tuple(m) => m.iter().map(IntTuple::size).product(),
        }
    }

    /// Alias of [`IntTuple::size`], CuTe's `product`.
    pub fn product(&self) -> i64 {
        self.size()
    }

    /// Sum of all integers (CuTe's `sum`).
    pub fn sum(&self) -> i64 {
        match self {
            IntTuple::Int(v) => *v,
            IntTuple::Tuple(m) => m.iter().map(IntTuple::sum).sum(),
        }
    }

    /// Top-level mode `i`; an integer's only mode is itself.
    ///
    /// Returns `None` when `i` is out of range.
    pub fn mode(&self, i: usize) -> Option<&IntTuple> {
        match self {
            IntTuple::Int(_) if i == 0 => Some(self),
            IntTuple::Int(_) => None,
            IntTuple::Tuple(m) => m.get(i),
        }
    }

    /// The top-level modes as a slice (an integer is its own single mode).
    pub fn modes(&self) -> Vec<IntTuple> {
        match self {
            IntTuple::Int(_) => vec![self.clone()],
            IntTuple::Tuple(m) => m.clone(),
        }
    }

    /// All integers, left to right.
    pub fn flatten(&self) -> Vec<i64> {
        let mut out = Vec::new();
        self.flatten_into(&mut out);
        out
    }

    fn flatten_into(&self, out: &mut Vec<i64>) {
        match self {
            IntTuple::Int(v) => out.push(*v),
            IntTuple::Tuple(m) => m.iter().for_each(|x| x.flatten_into(out)),
        }
    }

    /// The flat form: an integer stays an integer, a tuple becomes a flat tuple.
    pub fn flattened(&self) -> IntTuple {
        match self {
            IntTuple::Int(_) => self.clone(),
            IntTuple::Tuple(_) => IntTuple::ints(&self.flatten()),
        }
    }

    /// True when `self` and `other` have the same tree structure (CuTe's `congruent`).
    pub fn congruent(&self, other: &IntTuple) -> bool {
        match (self, other) {
            (IntTuple::Int(_), IntTuple::Int(_)) => true,
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.congruent(y))
            }
            _ => false,
        }
    }

    /// Product of each top-level mode, as a flat tuple (CuTe's `product_each`);
    /// an integer `n` becomes the one-mode tuple `(n)`, as CuTe wraps it.
    ///
    /// ```
    /// use cutlet::layout::IntTuple;
    /// let s: IntTuple = "((2,4),(8,16))".parse().unwrap();
    /// assert_eq!(s.product_each().to_string(), "(8,128)");
    /// assert_eq!(IntTuple::Int(8).product_each().to_string(), "(8)");
    /// ```
    pub fn product_each(&self) -> IntTuple {
        IntTuple::Tuple(
            self.modes()
                .iter()
                .map(|x| IntTuple::Int(x.size()))
                .collect(),
        )
    }

    /// The exclusive prefix product of a shape (CuTe's `prefix_product`), congruent to it:
    /// the column-major (LayoutLeft) compact strides.
    ///
    /// ```
    /// use cutlet::layout::IntTuple;
    /// let s: IntTuple = "(4,(2,3))".parse().unwrap();
    /// assert_eq!(s.prefix_product(1).to_string(), "(1,(4,8))");
    /// ```
    pub fn prefix_product(&self, init: i64) -> IntTuple {
        match self {
            IntTuple::Int(_) => IntTuple::Int(init),
            IntTuple::Tuple(m) => {
                let mut acc = init;
                IntTuple::Tuple(
                    m.iter()
                        .map(|x| {
                            let r = x.prefix_product(acc);
                            acc *= x.size();
                            r
                        })
                        .collect(),
                )
            }
        }
    }

    /// Map a (possibly partial, hierarchical or linear) coordinate to an index
    /// through `shape` and `stride` (CuTe's `crd2idx`).
    ///
    /// An integer coordinate against a tuple shape is split colexicographically
    /// first. Coordinates out of the shape's range are extrapolated along the last mode.
    ///
    /// ```
    /// use cutlet::layout::IntTuple;
    /// let shape: IntTuple = "(4,(2,2))".parse().unwrap();
    /// let stride: IntTuple = "(2,(1,8))".parse().unwrap();
    /// assert_eq!(IntTuple::Int(5).crd2idx(&shape, &stride), 3);
    /// let crd: IntTuple = "(1,(0,1))".parse().unwrap();
    /// assert_eq!(crd.crd2idx(&shape, &stride), 10);
    /// ```
    ///
    /// # Panics
    /// If the coordinate's structure does not fit the shape (a tuple coordinate
    /// against an integer shape).
    pub fn crd2idx(&self, shape: &IntTuple, stride: &IntTuple) -> i64 {
        match (self, shape, stride) {
            (IntTuple::Tuple(c), IntTuple::Tuple(s), IntTuple::Tuple(d)) => c
                .iter()
                .zip(s)
                .zip(d)
                .map(|((c, s), d)| c.crd2idx(s, d))
                .sum(),
            (IntTuple::Int(c), IntTuple::Tuple(s), IntTuple::Tuple(d)) => {
                if s.is_empty() {
                    return 0;
                }
                let n_modes = s.len();
                let mut rest = *c;
                let mut idx = 0;
                for (i, (s, d)) in s.iter().zip(d).enumerate() {
                    let n = s.size();
                    let ci = if i + 1 == n_modes { rest } else { rest % n };
                    idx += IntTuple::Int(ci).crd2idx(s, d);
                    rest /= n;
                }
                idx
            }
            (IntTuple::Int(c), IntTuple::Int(_), IntTuple::Int(d)) => c * d,
            _ => panic!(
                "crd2idx: coordinate {self} does not match shape {shape} and stride {stride}"
            ),
        }
    }

    /// Map an index to the natural coordinate of `shape`, colexicographically
    /// (CuTe's `idx2crd` with compact column-major strides).
    ///
    /// ```
    /// use cutlet::layout::IntTuple;
    /// let shape: IntTuple = "(4,(2,2))".parse().unwrap();
    /// assert_eq!(shape.idx2crd(13).to_string(), "(1,(1,1))");
    /// ```
    pub fn idx2crd(&self, idx: i64) -> IntTuple {
        match self {
            IntTuple::Int(_) => IntTuple::Int(idx),
            IntTuple::Tuple(m) => {
                let mut rest = idx;
                let n = m.len();
                IntTuple::Tuple(
                    m.iter()
                        .enumerate()
                        .map(|(i, s)| {
                            let sz = s.size();
                            let c = if i + 1 == n { rest } else { rest % sz };
                            rest /= sz.max(1);
                            s.idx2crd(c)
                        })
                        .collect(),
                )
            }
        }
    }

    /// Apply `f` to every integer, keeping the structure.
    pub fn map(&self, f: &impl Fn(i64) -> i64) -> IntTuple {
        match self {
            IntTuple::Int(v) => IntTuple::Int(f(*v)),
            IntTuple::Tuple(m) => IntTuple::Tuple(m.iter().map(|x| x.map(f)).collect()),
        }
    }

    /// Element-wise combination of two congruent tuples.
    ///
    /// Returns `None` when the two are not congruent.
    pub fn zip_with(&self, other: &IntTuple, f: &impl Fn(i64, i64) -> i64) -> Option<IntTuple> {
        match (self, other) {
            (IntTuple::Int(a), IntTuple::Int(b)) => Some(IntTuple::Int(f(*a, *b))),
            (IntTuple::Tuple(a), IntTuple::Tuple(b)) if a.len() == b.len() => a
                .iter()
                .zip(b)
                .map(|(x, y)| x.zip_with(y, f))
                .collect::<Option<Vec<_>>>()
                .map(IntTuple::Tuple),
            _ => None,
        }
    }
}

impl From<i64> for IntTuple {
    fn from(v: i64) -> Self {
        IntTuple::Int(v)
    }
}

impl fmt::Display for IntTuple {
    /// CuTe notation: `4`, `(4,2)`, `(4,(2,2))`, `()`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntTuple::Int(v) => write!(f, "{v}"),
            IntTuple::Tuple(m) => {
                f.write_str("(")?;
                for (i, x) in m.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{x}")?;
                }
                f.write_str(")")
            }
        }
    }
}

impl fmt::Debug for IntTuple {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IntTuple({self})")
    }
}
