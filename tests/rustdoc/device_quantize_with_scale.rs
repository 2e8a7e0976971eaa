pub fn main() -> cutlet::Result<()> {
use cutlet::device::{quantize_with_scale, Device};
use cutlet::float8::F8E4M3;
let device = Device::new(0)?;
let stream = device.default_stream();
let (rows, cols) = (4, 32);
let x: Vec<half::bf16> = (0..rows * cols).map(|i| half::bf16::from_f32(i as f32 - 60.0)).collect();
let x = stream.clone_htod(&x).unwrap();
let mut q = stream.alloc_zeros::<F8E4M3>(rows * cols).unwrap();
// The scale of an earlier step, whose amax was 56: 56 / 448.
let scale = stream.clone_htod(&[56.0f32 / 448.0]).unwrap();
let mut amax = stream.alloc_zeros::<f32>(1).unwrap();
quantize_with_scale(&device, &x, [rows, cols], &mut q, &scale, Some(&mut amax), &stream)?;
// -60 times 448 / 56 saturates to -448; the amax for the next step is 67.
assert_eq!(stream.clone_dtoh(&q).unwrap()[0].to_f32(), -448.0);
assert_eq!(stream.clone_dtoh(&amax).unwrap()[0], 67.0);
Ok(())
}
