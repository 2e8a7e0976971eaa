//! [`AtomLayout`]: an atom's fixed layout as `const` data, so that tables of
//! atoms (and `const fn` generators of them, such as wgmma's N = 8..256) can
//! hold their layouts without parsing or allocating.

use crate::layout::{IntTuple, Layout};

/// Most (shape, stride) pairs one mode of an atom layout holds.
const MAX_PARTS: usize = 4;

/// One mode of an [`AtomLayout`]: 1 to 4 (shape, stride) pairs; a plain
/// integer `shape:stride` when it has one, else the tuple
/// `(s0,s1,..):(d0,d1,..)`.
///
/// ```
/// use cutlet::atom::{AtomLayout, AtomMode};
///
/// let thr = AtomMode::of([4, 8], [32, 1]);
/// let val = AtomMode::of([2, 2], [16, 8]);
/// assert_eq!(AtomLayout::tv(thr, val).layout().to_string(), "((4,8),(2,2)):((32,1),(16,8))");
/// assert_eq!(AtomLayout::single(AtomMode::int(32, 1)).layout().to_string(), "32:1");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomMode {
    len: usize,
    shape: [i64; MAX_PARTS],
    stride: [i64; MAX_PARTS],
}

impl AtomMode {
    /// The one-integer mode `shape:stride`.
    pub const fn int(shape: i64, stride: i64) -> AtomMode {
        AtomMode::of([shape], [stride])
    }

    /// The tuple mode `(shape..):(stride..)` of `N` (1 to 4) pairs; one pair
    /// is the plain integer mode. More than 4 fails to compile in a `const`.
    pub const fn of<const N: usize>(shape: [i64; N], stride: [i64; N]) -> AtomMode {
        assert!(
            N >= 1 && N <= MAX_PARTS,
            "an atom layout mode holds 1 to 4 (shape, stride) pairs"
        );
        let mut mode = AtomMode {
            len: N,
            shape: [1; MAX_PARTS],
            stride: [0; MAX_PARTS],
        };
        let mut i = 0;
        while i < N {
            mode.shape[i] = shape[i];
            mode.stride[i] = stride[i];
            i += 1;
        }
        mode
    }

    /// The number of elements the mode covers (the product of its shape).
    pub const fn size(&self) -> i64 {
        let (mut size, mut i) = (1, 0);
        while i < self.len {
            size *= self.shape[i];
            i += 1;
        }
        size
    }

    fn parts(&self) -> (IntTuple, IntTuple) {
        let (shape, stride) = (&self.shape[..self.len], &self.stride[..self.len]);
        if self.len == 1 {
            (IntTuple::Int(shape[0]), IntTuple::Int(stride[0]))
        } else {
            (IntTuple::ints(shape), IntTuple::ints(stride))
        }
    }
}

/// A fixed layout of an atom: one mode (a thread id layout such as `32:1`)
/// or two, (thread, value), as CuTe's `ThrID`, `ALayout`, `BLayout` and
/// `CLayout` are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AtomLayout {
    modes: [AtomMode; 2],
    two: bool,
}

impl AtomLayout {
    /// A one-mode layout.
    pub const fn single(mode: AtomMode) -> AtomLayout {
        AtomLayout {
            modes: [mode, AtomMode::int(1, 0)],
            two: false,
        }
    }

    /// A (thread, value) layout.
    pub const fn tv(thr: AtomMode, val: AtomMode) -> AtomLayout {
        AtomLayout {
            modes: [thr, val],
            two: true,
        }
    }

    /// Elements of the domain: threads times values.
    pub const fn size(&self) -> i64 {
        if self.two {
            self.modes[0].size() * self.modes[1].size()
        } else {
            self.modes[0].size()
        }
    }

    /// The layout, for the layout algebra.
    pub fn layout(&self) -> Layout {
        if !self.two {
            let (shape, stride) = self.modes[0].parts();
            return Layout::from_parts(shape, stride);
        }
        let (thr_shape, thr_stride) = self.modes[0].parts();
        let (val_shape, val_stride) = self.modes[1].parts();
        Layout::from_parts(
            IntTuple::tuple([thr_shape, val_shape]),
            IntTuple::tuple([thr_stride, val_stride]),
        )
    }
}
