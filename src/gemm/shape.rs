//! [`GemmShape`]: the problem shape (M, N, K, L) of one GEMM.

/// The problem shape (M, N, K, L): D is M × N, the reduction runs over K, and
/// L independent batches are computed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GemmShape {
    /// Rows of A, C and D.
    pub m: usize,
    /// Columns of B, C and D.
    pub n: usize,
    /// Columns of A and rows of B (the reduction).
    pub k: usize,
    /// Batch count.
    pub l: usize,
}

impl GemmShape {
    /// The shape (M, N, K, L).
    pub fn new(m: usize, n: usize, k: usize, l: usize) -> GemmShape {
        GemmShape { m, n, k, l }
    }

    /// Whether D has no element (M, N or L is zero): running it does nothing.
    pub fn is_empty_output(&self) -> bool {
        self.m == 0 || self.n == 0 || self.l == 0
    }

    /// Floating-point operations of the whole problem, `2 · M · N · K · L`.
    ///
    /// ```
    /// # use cutlet::gemm::GemmShape;
    /// assert_eq!(GemmShape::new(4096, 4096, 4096, 1).flops(), 2.0 * 4096f64.powi(3));
    /// ```
    pub fn flops(&self) -> f64 {
        2.0 * self.m as f64 * self.n as f64 * self.k as f64 * self.l as f64
    }
}
