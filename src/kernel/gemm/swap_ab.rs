//! Swap-AB: a GEMM D = A · B run as its transpose D^T = B^T · A^T over the
//! same buffers, so that a small M lands on the kernel's N, which wgmma
//! takes in steps of 8 (a 16-row problem then fills a 128x16 tile instead
//! of wasting 112 of a 128-row tile's rows). The transposed problem reads
//! B as its A and A as its B, each keeping its major (B's N is the new M,
//! A's M the new N), and writes D's bytes as a D^T of the other major;
//! row and column biases change places. Nothing moves in memory: only the
//! kernel's view of the buffers changes.

use super::GemmSpec;

impl GemmSpec {
    /// The spec of the transposed problem D^T = B^T · A^T: A's and B's
    /// types and majors exchanged, C's and D's majors transposed, the tile
    /// and cluster's M and N exchanged, bias axes transposed. Applying it
    /// twice gives the spec back. The kernel a swap-AB GEMM launches is
    /// the transpose of the problem's own view ([`transposed`](Self::transposed)
    /// of it is the view its argument checks read).
    ///
    /// ```
    /// use cutlet::gemm::{GemmMajors, GemmTypes, OperandMajor, OutputMajor};
    /// use cutlet::kernel::gemm::{sm90_spec, KernelSchedule};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// // A 16 x 4096 x 4096 problem's kernel: M' = 4096 rows of B, N' = 16.
    /// let kernel = sm90_spec(
    ///     GemmTypes::new(BF16, BF16, BF16, BF16, F32),
    ///     GemmMajors::new(OperandMajor::K, OperandMajor::K, OutputMajor::M),
    ///     KernelSchedule::TmaWarpSpecializedCooperative, [128, 16, 64], [1, 1],
    /// ).unwrap();
    /// let view = kernel.transposed();
    /// assert_eq!(view.majors.d, OutputMajor::N);
    /// assert_eq!(view.tile, [16, 128, 64]);
    /// assert_eq!(view.transposed(), kernel);
    /// ```
    pub fn transposed(&self) -> GemmSpec {
        let mut spec = self.clone();
        spec.types = self.types.transposed();
        spec.majors = self.majors.transposed();
        let [bm, bn, bk] = self.tile;
        spec.tile = [bn, bm, bk];
        spec.cluster = crate::gemm::ClusterShape::new(self.cluster.n, self.cluster.m);
        spec.epilogue.fusion = self.epilogue.fusion.transposed();
        spec
    }
}
