use cutlet::device::gemm::{Arguments, DefaultBf16Sm80, Gemm, GemmShape, GemmUniversalAdapter, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::half::bf16;
pub fn main() -> cutlet::Result<()> {
let device = Device::new(0)?;
let stream = device.default_stream();
let (m, n, k) = (512, 512, 256);
let a = stream.alloc_zeros::<bf16>(m * k).unwrap();
let b = stream.alloc_zeros::<bf16>(n * k).unwrap();
let mut d = stream.alloc_zeros::<bf16>(m * n).unwrap();
let mut args = Arguments::product(
    GemmShape::new(m, n, k, 1),
    Operand::new(a.as_view(), k, 0),
    Operand::new(b.as_view(), k, 0),
    OutputOperand::new(d.as_view_mut(), n, 0),
    1.0,
);
let adapter = GemmUniversalAdapter::<DefaultBf16Sm80>::new(&device);
let typed = Gemm::builder().build_typed::<bf16, bf16, bf16>(&device)?;
let runtime = Gemm::builder().build(&device)?;
adapter.can_implement(&args)?;
assert_eq!(typed.workspace_size(&args), 0);
runtime.initialize(&args, None)?.wait_optimized()?;
typed.wait_optimized()?;
adapter.run(&mut args, &stream)?;
typed.run(&mut args, &stream)?;
runtime.run(&mut args, &stream)?;
Ok(())
}
