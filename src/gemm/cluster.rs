//! [`ClusterShape`]: a thread-block cluster's shape, the one value that
//! travels from the builder through the spec, the rules, the mainloop and
//! the tile scheduler to the launch.

use std::fmt;

/// A thread-block cluster: `m` CTAs along M times `n` along N (CUTLASS's
/// `ClusterShape`, `Shape<_m,_n,_1>`; a cluster never spans K). The CTAs
/// of a cluster share A's tile along N and B's along M through TMA
/// multicast (SM90).
///
/// The arrays a user writes convert to it: `[m, n]` (what
/// [`GemmBuilder::cluster`](crate::device::gemm::GemmBuilder::cluster) takes) and
/// `[m, n, 1]` (CuTe's 3-D shape); it compares equal to both.
///
/// ```
/// use cutlet::gemm::ClusterShape;
///
/// let c = ClusterShape::new(2, 1);
/// assert_eq!((c.ctas(), c.to_string()), (2, String::from("2x1")));
/// assert_eq!(c, [2, 1, 1]);
/// assert_eq!(ClusterShape::from([1, 2]), ClusterShape::new(1, 2));
/// // The kernels launch a one-dimensional grid of persistent CTAs: a
/// // cluster is `m * n` consecutive CTAs.
/// assert_eq!(c.launch_dims(), [2, 1, 1]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClusterShape {
    /// CTAs along M.
    pub m: u32,
    /// CTAs along N.
    pub n: u32,
}

impl ClusterShape {
    /// One CTA: no cluster.
    pub const ONE: ClusterShape = ClusterShape { m: 1, n: 1 };

    /// `m` CTAs along M times `n` along N.
    pub const fn new(m: u32, n: u32) -> ClusterShape {
        ClusterShape { m, n }
    }

    /// CTAs of one cluster.
    pub const fn ctas(self) -> u32 {
        self.m * self.n
    }

    /// Whether the cluster is one CTA.
    pub const fn is_one(self) -> bool {
        self.m == 1 && self.n == 1
    }

    /// `[m, n]`.
    pub const fn mn(self) -> [u32; 2] {
        [self.m, self.n]
    }

    /// `[m, n, 1]`, CuTe's 3-D shape.
    pub const fn mnk(self) -> [u32; 3] {
        [self.m, self.n, 1]
    }

    /// The cluster dimensions of the launch: `[m * n, 1, 1]`. The
    /// kernels launch a one-dimensional grid of CTAs, so a cluster is
    /// `m * n` consecutive CTAs, CTA rank `r` at `(r % m, r / m)` of the
    /// cluster.
    pub const fn launch_dims(self) -> [u32; 3] {
        [self.m * self.n, 1, 1]
    }
}

impl Default for ClusterShape {
    fn default() -> Self {
        ClusterShape::ONE
    }
}

impl From<[u32; 2]> for ClusterShape {
    fn from([m, n]: [u32; 2]) -> Self {
        ClusterShape { m, n }
    }
}

impl From<ClusterShape> for [u32; 3] {
    fn from(c: ClusterShape) -> Self {
        c.mnk()
    }
}

impl PartialEq<[u32; 3]> for ClusterShape {
    fn eq(&self, other: &[u32; 3]) -> bool {
        self.mnk() == *other
    }
}

impl PartialEq<[u32; 2]> for ClusterShape {
    fn eq(&self, other: &[u32; 2]) -> bool {
        self.mn() == *other
    }
}

impl fmt::Display for ClusterShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x{}", self.m, self.n)
    }
}
