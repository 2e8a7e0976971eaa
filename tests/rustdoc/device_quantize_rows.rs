pub fn main() -> cutlet::Result<()> {
use cutlet::device::{quantize, Device};
use cutlet::float8::F8E4M3;
use cutlet::kernel::quantize::QuantizeScale;
let device = Device::new(0)?;
let stream = device.default_stream();
let (rows, cols) = (4, 32);
let x: Vec<half::bf16> = (0..rows * cols).map(|i| half::bf16::from_f32(i as f32 - 60.0)).collect();
let x = stream.clone_htod(&x).unwrap();
let mut q = stream.alloc_zeros::<F8E4M3>(rows * cols).unwrap();
let mut scales = stream.alloc_zeros::<f32>(rows).unwrap();
quantize(&device, &x, [rows, cols], &mut q, &mut scales, QuantizeScale::Row, &stream)?;
// Row 0 holds -60..=-29: its amax 60 maps to 448.
assert_eq!(stream.clone_dtoh(&scales).unwrap()[0], 60.0 / 448.0);
Ok(())
}
