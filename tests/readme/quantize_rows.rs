use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::{quantize, Device};
use cutlet::float8::F8E4M3;
use cutlet::gemm::OperandMajor;
use cutlet::half::bf16;
use cutlet::kernel::gemm::ScaleGranularity;
use cutlet::kernel::quantize::QuantizeScale;
use cutlet::numeric::ElementType;

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::new(0)?;
    let stream = device.default_stream();
    let (m, n, k) = (256, 512, 1024);
    let a = stream.clone_htod(&vec![bf16::from_f32(0.3); m * k])?; // activations, M x K
    let b = stream.clone_htod(&vec![bf16::from_f32(-0.7); n * k])?; // weights, N x K
    let (mut qa, mut qb) = (stream.alloc_zeros::<F8E4M3>(m * k)?, stream.alloc_zeros::<F8E4M3>(n * k)?);
    let (mut sa, mut sb) = (stream.alloc_zeros::<f32>(m)?, stream.alloc_zeros::<f32>(n)?);
    quantize(&device, &a, [m, k], &mut qa, &mut sa, QuantizeScale::Row, &stream)?;
    quantize(&device, &b, [n, k], &mut qb, &mut sb, QuantizeScale::Row, &stream)?;
    let gemm = Gemm::builder()
        .a(ElementType::F8E4M3, OperandMajor::K)
        .b(ElementType::F8E4M3, OperandMajor::K)
        .scales(ScaleGranularity::RowCol)
        .build(&device)?;
    let mut d = stream.alloc_zeros::<bf16>(m * n)?;
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(qa.as_view(), k, 0),
        Operand::new(qb.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
    )
    .with_scales(sa.as_view(), sb.as_view());
    gemm.run(&mut args, &stream)?;
    drop(args);
    // Each sum is 1024 * 0.3 * -0.7 = -215.04, give or take the roundings.
    assert!(stream.clone_dtoh(&d)?.iter().all(|x| (x.to_f32() + 215.04).abs() < 2.0));
    Ok(())
}
