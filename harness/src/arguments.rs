//! [`packed_product`]: the arguments of a GEMM over packed operands, as the
//! GPU tests of one problem build them.

use cudarc::driver::CudaSlice;
use cutlet::device::gemm::{Arguments, GemmShape, Operand, OutputOperand};

/// `D = alpha · A · B` for one batch (`m`, `n`, `k`) over packed K-major
/// A (M x K) and B (N x K) and a packed D whose leading dimension is `ldd`
/// (N for a row-major D, M for a column-major one).
pub fn packed_product<'a, A, B, D>(
    (m, n, k): (usize, usize, usize),
    a: &'a CudaSlice<A>,
    b: &'a CudaSlice<B>,
    d: &'a mut CudaSlice<D>,
    ldd: usize,
    alpha: f64,
) -> Arguments<'a, A, B, D, D> {
    Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), ldd, 0),
        alpha,
    )
}
