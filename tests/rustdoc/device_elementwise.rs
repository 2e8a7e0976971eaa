pub fn main() -> cutlet::Result<()> {
use cutlet::device::{Device, Elementwise};
use cutlet::fusion::{Expr, Expression};
use cutlet::tensor::{TensorMut, TensorRef};
let device = Device::new(0)?;
let stream = device.default_stream();
let a = stream.clone_htod(&[1.0f32, 2.0, 3.0]).unwrap();
let b = stream.clone_htod(&[10.0f32, 20.0, 30.0]).unwrap();
let mut c = stream.alloc_zeros::<f32>(3).unwrap();
let add = Elementwise::new(&device, Expression::from_fn(|a: Expr, b: Expr| a + b));
add.run(&[TensorRef::vector(&a).into(), TensorRef::vector(&b).into()],
        TensorMut::vector(&mut c).into(), &[], &stream)?;
assert_eq!(stream.clone_dtoh(&c).unwrap(), [11.0, 22.0, 33.0]);
Ok(())
}
