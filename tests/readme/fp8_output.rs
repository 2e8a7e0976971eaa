use cutlet::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::device::Device;
use cutlet::float8::F8E4M3;
use cutlet::gemm::{OperandMajor, OutputMajor};
use cutlet::numeric::ElementType;

pub fn main() -> Result<(), Box<dyn std::error::Error>> {
    let device = Device::new(0)?;
    let stream = device.default_stream();
    // D (e4m3, M x N) = convert(d_scale * (A · B)), and amax = max |A · B|.
    let (m, n, k) = (256, 512, 1024);
    let a = stream.clone_htod(&vec![F8E4M3::from_f32(0.5); m * k])?;
    let b = stream.clone_htod(&vec![F8E4M3::from_f32(0.25); n * k])?;
    let d_scale = stream.clone_htod(&[2.0f32])?;
    let mut amax = stream.alloc_zeros::<f32>(1)?;
    let mut d = stream.alloc_zeros::<F8E4M3>(m * n)?;
    let gemm = Gemm::builder()
        .a(ElementType::F8E4M3, OperandMajor::K)
        .b(ElementType::F8E4M3, OperandMajor::K)
        .d(ElementType::F8E4M3, OutputMajor::N)
        .d_scale(true)
        .d_amax(true)
        .build(&device)?;
    let mut args = Arguments::product(
        GemmShape::new(m, n, k, 1),
        Operand::new(a.as_view(), k, 0),
        Operand::new(b.as_view(), k, 0),
        OutputOperand::new(d.as_view_mut(), n, 0),
        1.0,
    )
    .with_d_scale(d_scale.as_view())
    .with_d_amax(amax.as_view_mut());
    gemm.run(&mut args, &stream)?;
    drop(args);
    // Every product is 0.125 * 1024 = 128: the amax is 128, D holds 256.
    assert_eq!(stream.clone_dtoh(&amax)?[0], 128.0);
    Ok(())
}
