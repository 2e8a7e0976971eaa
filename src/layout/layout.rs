//! The `Layout`: a function from coordinates to indices, given by a shape and a stride.

use std::fmt;

use super::int_tuple::IntTuple;

/// A CuTe layout `shape:stride`, two congruent [`IntTuple`]s.
///
/// The layout maps a coordinate of `shape` (hierarchical, partial, or a linear
/// index) to the inner product of that coordinate with `stride`.
///
/// ```
/// use cutlet::layout::Layout;
/// let l: Layout = "(4,(2,2)):(2,(1,8))".parse().unwrap();
/// assert_eq!(l.size(), 16);
/// assert_eq!(l.cosize(), 16);
/// assert_eq!(l.at(5), 3); // index 5 is coordinate (1,(1,0)): 1*2 + 1*1
/// assert_eq!(l.to_string(), "(4,(2,2)):(2,(1,8))");
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: IntTuple,
    stride: IntTuple,
}

/// The side whose modes get the small strides in [`Layout::compact`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Major {
    /// Column-major, CuTe's `LayoutLeft`: mode 0 has stride 1.
    Left,
    /// Row-major, CuTe's `LayoutRight`: the last mode has stride 1.
    Right,
}

impl Layout {
    /// A layout from a shape and a congruent stride.
    ///
    /// Returns `None` when the two are not congruent.
    pub fn new(shape: IntTuple, stride: IntTuple) -> Option<Self> {
        shape.congruent(&stride).then_some(Layout { shape, stride })
    }

    /// A layout from a shape and a stride the caller knows to be congruent.
    ///
    /// # Panics
    /// If the two are not congruent.
    pub fn from_parts(shape: IntTuple, stride: IntTuple) -> Self {
        Layout::new(shape.clone(), stride.clone())
            .unwrap_or_else(|| panic!("shape {shape} and stride {stride} are not congruent"))
    }

    /// A compact column-major layout of `shape` (CuTe's `make_layout(shape)`).
    ///
    /// Modes of size 1 get stride 0, as CuTe does for static unit modes.
    ///
    /// ```
    /// use cutlet::layout::Layout;
    /// assert_eq!(Layout::col_major("(4,(2,3))".parse().unwrap()).to_string(), "(4,(2,3)):(1,(4,8))");
    /// assert_eq!(Layout::col_major("(1,8)".parse().unwrap()).to_string(), "(1,8):(0,1)");
    /// ```
    pub fn col_major(shape: IntTuple) -> Self {
        Layout::compact(shape, Major::Left)
    }

    /// A compact row-major layout of `shape` (CuTe's `make_layout(shape, LayoutRight{})`).
    ///
    /// ```
    /// use cutlet::layout::Layout;
    /// assert_eq!(Layout::row_major("(4,(2,3))".parse().unwrap()).to_string(), "(4,(2,3)):(6,(3,1))");
    /// ```
    pub fn row_major(shape: IntTuple) -> Self {
        Layout::compact(shape, Major::Right)
    }

    /// A compact layout of `shape` with the given major side.
    pub fn compact(shape: IntTuple, major: Major) -> Self {
        fn left(s: &IntTuple, acc: &mut i64) -> IntTuple {
            match s {
                IntTuple::Int(1) => IntTuple::Int(0),
                IntTuple::Int(n) => {
                    let d = *acc;
                    *acc *= n;
                    IntTuple::Int(d)
                }
                IntTuple::Tuple(m) => IntTuple::Tuple(m.iter().map(|x| left(x, acc)).collect()),
            }
        }
        fn right(s: &IntTuple, acc: &mut i64) -> IntTuple {
            match s {
                IntTuple::Int(1) => IntTuple::Int(0),
                IntTuple::Int(n) => {
                    let d = *acc;
                    *acc *= n;
                    IntTuple::Int(d)
                }
                IntTuple::Tuple(m) => {
                    let mut out: Vec<IntTuple> = m.iter().rev().map(|x| right(x, acc)).collect();
                    out.reverse();
                    IntTuple::Tuple(out)
                }
            }
        }
        let mut acc = 1;
        let stride = match major {
            Major::Left => left(&shape, &mut acc),
            Major::Right => right(&shape, &mut acc),
        };
        Layout { shape, stride }
    }

    /// A layout whose modes are the given layouts (CuTe's `make_layout(L0, L1, ...)`).
    ///
    /// ```
    /// use cutlet::layout::Layout;
    /// let a: Layout = "4:1".parse().unwrap();
    /// let b: Layout = "(2,2):(8,4)".parse().unwrap();
    /// assert_eq!(Layout::from_modes([a, b]).to_string(), "(4,(2,2)):(1,(8,4))");
    /// ```
    pub fn from_modes(modes: impl IntoIterator<Item = Layout>) -> Self {
        let (shape, stride): (Vec<_>, Vec<_>) =
            modes.into_iter().map(|l| (l.shape, l.stride)).unzip();
        Layout {
            shape: IntTuple::Tuple(shape),
            stride: IntTuple::Tuple(stride),
        }
    }

    /// The shape.
    pub fn shape(&self) -> &IntTuple {
        &self.shape
    }

    /// The stride.
    pub fn stride(&self) -> &IntTuple {
        &self.stride
    }

    /// Number of top-level modes.
    pub fn rank(&self) -> usize {
        self.shape.rank()
    }

    /// Nesting depth of the shape.
    pub fn depth(&self) -> usize {
        self.shape.depth()
    }

    /// Size of the domain: the product of the shape.
    pub fn size(&self) -> i64 {
        self.shape.size()
    }

    /// Size of the codomain, as CuTe's `cosize`: `1 + sum((s-1) * |d|)` over
    /// the modes `s:d` (0 for an empty layout). With non-negative strides this
    /// is one past the largest index the layout reaches; a negative stride
    /// counts by its magnitude, so `4:-1` has cosize 4.
    pub fn cosize(&self) -> i64 {
        if self.size() == 0 {
            return 0;
        }
        let shape = self.shape.flatten();
        let stride = self.stride.flatten();
        shape
            .iter()
            .zip(&stride)
            .map(|(s, d)| (s - 1) * d.abs())
            .sum::<i64>()
            + 1
    }

    /// The index of the `i`-th element (linear coordinate, colexicographic).
    pub fn at(&self, i: i64) -> i64 {
        // In range, the hierarchical split of `i` equals the colexicographic
        // split over the flattened modes: one walk of the tree, no sizes
        // recomputed per level (generators evaluate layouts millions of times).
        if i >= 0 {
            let (mut rest, mut idx) = (i, 0);
            if walk_in_range(&self.shape, &self.stride, &mut rest, &mut idx) && rest == 0 {
                return idx;
            }
        }
        IntTuple::Int(i).crd2idx(&self.shape, &self.stride)
    }

    /// The index at a (hierarchical or partial) coordinate.
    ///
    /// # Panics
    /// If the coordinate does not fit the shape's structure.
    pub fn at_coord(&self, crd: &IntTuple) -> i64 {
        crd.crd2idx(&self.shape, &self.stride)
    }

    /// Top-level mode `i` as a layout (CuTe's `layout<i>`); `None` if out of range.
    pub fn mode(&self, i: usize) -> Option<Layout> {
        Some(Layout {
            shape: self.shape.mode(i)?.clone(),
            stride: self.stride.mode(i)?.clone(),
        })
    }

    /// The top-level modes as layouts.
    pub fn modes(&self) -> Vec<Layout> {
        self.shape
            .modes()
            .into_iter()
            .zip(self.stride.modes())
            .map(|(shape, stride)| Layout { shape, stride })
            .collect()
    }

    /// The sublayout at a path of mode indices (`sub(&[1, 0])` is mode 0 of mode 1).
    pub fn sub(&self, path: &[usize]) -> Option<Layout> {
        path.iter().try_fold(self.clone(), |l, &i| l.mode(i))
    }

    /// The flat layout: every mode of depth 0 (CuTe's `flatten`).
    ///
    /// ```
    /// use cutlet::layout::Layout;
    /// let l: Layout = "((2,3),(4,5)):((1,2),(6,24))".parse().unwrap();
    /// assert_eq!(l.flatten().to_string(), "(2,3,4,5):(1,2,6,24)");
    /// ```
    pub fn flatten(&self) -> Layout {
        Layout {
            shape: self.shape.flattened(),
            stride: self.stride.flattened(),
        }
    }

    /// The layout with `other` appended as a new last mode (CuTe's `append`).
    pub fn append(&self, other: &Layout) -> Layout {
        let mut modes = self.modes_of_tuple();
        modes.push(other.clone());
        Layout::from_modes(modes)
    }

    /// The layout with `other` prepended as a new first mode (CuTe's `prepend`).
    pub fn prepend(&self, other: &Layout) -> Layout {
        let mut modes = vec![other.clone()];
        modes.extend(self.modes_of_tuple());
        Layout::from_modes(modes)
    }

    /// Pads with `1:0` modes up to rank `n` (CuTe's `append<N>`); a layout of
    /// rank `n` or more is returned as a tuple unchanged.
    pub fn append_to_rank(&self, n: usize) -> Layout {
        let mut modes = self.modes_of_tuple();
        while modes.len() < n {
            modes.push(Layout::unit());
        }
        Layout::from_modes(modes)
    }

    /// Groups modes `begin..end` into one mode (CuTe's `group<B,E>`).
    ///
    /// Returns `None` if the range is empty or out of bounds.
    ///
    /// ```
    /// use cutlet::layout::Layout;
    /// let l: Layout = "(2,3,4,5):(1,2,6,24)".parse().unwrap();
    /// assert_eq!(l.group(1, 3).unwrap().to_string(), "(2,(3,4),5):(1,(2,6),24)");
    /// ```
    pub fn group(&self, begin: usize, end: usize) -> Option<Layout> {
        let modes = self.modes_of_tuple();
        if begin >= end || end > modes.len() {
            return None;
        }
        let mut out: Vec<Layout> = modes[..begin].to_vec();
        out.push(Layout::from_modes(modes[begin..end].iter().cloned()));
        out.extend(modes[end..].iter().cloned());
        Some(Layout::from_modes(out))
    }

    /// The layout `1:0`.
    pub fn unit() -> Layout {
        Layout {
            shape: IntTuple::Int(1),
            stride: IntTuple::Int(0),
        }
    }

    /// The modes of this layout when it is seen as a tuple: an integer layout
    /// is the one-mode tuple of itself.
    fn modes_of_tuple(&self) -> Vec<Layout> {
        self.modes()
    }
}

impl fmt::Display for Layout {
    /// CuTe notation, `shape:stride`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.shape, self.stride)
    }
}

impl fmt::Debug for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Layout({self})")
    }
}

/// Splits `rest` colexicographically over the flattened modes of `shape`,
/// adding each coordinate times its stride to `idx`; `false` for a mode of
/// extent 0 or a shape and stride of different structure (the caller then
/// takes the general path).
fn walk_in_range(shape: &IntTuple, stride: &IntTuple, rest: &mut i64, idx: &mut i64) -> bool {
    match (shape, stride) {
        (IntTuple::Int(n), IntTuple::Int(d)) => {
            if *n <= 0 {
                return false;
            }
            *idx += (*rest % n) * d;
            *rest /= n;
            true
        }
        (IntTuple::Tuple(s), IntTuple::Tuple(d)) if s.len() == d.len() => {
            s.iter().zip(d).all(|(s, d)| walk_in_range(s, d, rest, idx))
        }
        _ => false,
    }
}
