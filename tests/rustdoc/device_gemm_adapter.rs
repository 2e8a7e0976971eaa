use cutlet::device::gemm::{Arguments, DefaultBf16Sm80, GemmShape, GemmUniversalAdapter, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::half::bf16;
pub fn main() -> cutlet::Result<()> {
let device = Device::new(0)?;
let stream = device.default_stream();
let (m, n, k) = (256, 512, 128);
let a = stream.alloc_zeros::<bf16>(m * k).unwrap(); // row-major M x K
let b = stream.alloc_zeros::<bf16>(n * k).unwrap(); // column-major K x N
let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap(); // row-major M x N
let gemm = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
let mut args = Arguments::product(
    GemmShape::new(m, n, k, 1),
    Operand::new(a.as_view(), k, 0),
    Operand::new(b.as_view(), k, 0),
    OutputOperand::new(d.as_view_mut(), n, 0),
    1.0, // alpha
);
gemm.initialize(&args, None)?.wait_optimized()?; // compiled and final: ready to time
gemm.run(&mut args, &stream)?;
Ok(())
}
