use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::half::bf16;
use cutlet::kernel::gemm::KernelSchedule;
pub fn main() -> cutlet::Result<()> {
let device = Device::new(0)?;
let stream = device.default_stream();
let gemm = Gemm::builder().build(&device)?;
let (m, n, k) = (8192, 8192, 1024);
let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
let args = Arguments::product(
    GemmShape::new(m, n, k, 1),
    Operand::new(a.as_view(), k, 0),
    Operand::new(b.as_view(), k, 0),
    OutputOperand::new(d.as_view_mut(), n, 0),
    1.0,
);
if device.compute_capability() == (9, 0) {
    // A short K: ping-pong hides each tile's epilogue.
    let spec = gemm.spec_for(&args);
    assert_eq!(spec.schedule, KernelSchedule::TmaWarpSpecializedPingpong);
}
Ok(())
}
