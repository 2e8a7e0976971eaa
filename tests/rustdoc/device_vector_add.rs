pub fn main() -> cutlet::Result<()> {
use cutlet::device::{vector_add, Device};
let device = Device::new(0)?;
let stream = device.default_stream();
let a = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
let b = stream.clone_htod(&[10.0f32, 20.0, 30.0]).unwrap();
let mut c = stream.alloc_zeros::<f32>(3).unwrap();
vector_add(&device, &a, &b, &mut c, &stream)?;
assert_eq!(stream.clone_dtoh(&c).unwrap(), [11.0, 22.0, 33.0]);
Ok(())
}
