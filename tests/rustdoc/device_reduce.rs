pub fn main() -> cutlet::Result<()> {
use cutlet::device::{Device, Reduce, ReduceWorkspace};
use cutlet::kernel::reduce::ReduceOp;
use cutlet::tensor::{TensorMut, TensorRef};
let device = Device::new(0)?;
let stream = device.default_stream();
let x = stream.clone_htod(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
let mut sums = stream.alloc_zeros::<f32>(2).unwrap();
let mut workspace = ReduceWorkspace::new();
Reduce::along(&device, ReduceOp::Sum, -1)?.run(
    TensorRef::row_major(&x, 2, 3)?.into(),
    TensorMut::vector(&mut sums).into(),
    &mut workspace,
    &stream,
)?;
assert_eq!(stream.clone_dtoh(&sums).unwrap(), [6.0, 15.0]);
Ok(())
}
