use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::half::bf16;
pub fn main() -> cutlet::Result<()> {
let device = Device::new(0)?;
let stream = device.default_stream();
let (m, n, k) = (256, 512, 128);
let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
let gemm = Gemm::builder().tile([128, 128, 64]).build_typed::<bf16, bf16, bf16>(&device)?;
let mut args = Arguments::product(
    GemmShape::new(m, n, k, 1),
    Operand::new(a.as_view(), k, 0),
    Operand::new(b.as_view(), k, 0),
    OutputOperand::new(d.as_view_mut(), n, 0),
    1.0,
);
gemm.run(&mut args, &stream)?;
Ok(())
}
