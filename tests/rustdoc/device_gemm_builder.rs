use cutlet::device::gemm::Gemm;
use cutlet::device::Device;
use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;
pub fn main() -> cutlet::Result<()> {
let device = Device::new(0)?;
let gemm = Gemm::builder()
    .a(ElementType::BF16, OperandMajor::K)
    .b(ElementType::BF16, OperandMajor::K)
    .d(ElementType::BF16, OutputMajor::N)
    .build(&device)?;
assert_eq!(gemm.spec().tile, [128, 256, 64]);
Ok(())
}
