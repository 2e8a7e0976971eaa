use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::float8::F8E4M3;
use cutlet::gemm::OperandMajor;
use cutlet::half::bf16;
use cutlet::kernel::gemm::ScaleGranularity;
use cutlet::numeric::ElementType;

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::new(0)?;
    let stream = device.default_stream();
    // D (bf16, M x N) = scale_a[m] * scale_b[n] * (A · B), A M x K and B N x K, both K-major.
    let (m, n, k) = (256, 512, 1024);
    let a = stream.clone_htod(&vec![F8E4M3::from_f32(0.5); m * k])?;
    let b = stream.clone_htod(&vec![F8E4M3::from_f32(0.25); n * k])?;
    let scale_a = stream.clone_htod(&vec![2.0f32; m])?;
    let scale_b = stream.clone_htod(&vec![0.5f32; n])?;
    let mut d = stream.alloc_zeros::<bf16>(m * n)?;
    let gemm = Gemm::builder()
        .a(ElementType::F8E4M3, OperandMajor::K)
        .b(ElementType::F8E4M3, OperandMajor::K)
        .scales(ScaleGranularity::RowCol)
        .build(&device)?;
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
    )
    .with_scales(scale_a.as_view(), scale_b.as_view());
    gemm.run(&mut args, &stream)?;
    drop(args);
    // Every sum is 1024 * 0.5 * 0.25 = 128, times 2.0 * 0.5.
    assert!(stream.clone_dtoh(&d)?.iter().all(|&x| x == bf16::from_f32(128.0)));
    Ok(())
}
