pub fn main() -> cutlet::Result<()> {
use cutlet::device::Device;
use cutlet::tensor::{TensorArg, TensorMut, TensorRef};
let device = Device::new(0)?;
let stream = device.default_stream();
let a = stream.alloc_zeros::<half::f16>(64 * 80).unwrap();
let bias = stream.alloc_zeros::<f32>(64).unwrap();
let mut c = stream.alloc_zeros::<f32>(64 * 64).unwrap();
let inputs: [TensorArg; 2] = [
    TensorRef::with_strides(&a, &[64, 64], &[80, 1])?.into(), // leading dimension 80
    TensorRef::broadcast_row(&bias, 64, 64)?.into(),         // f32, stride 0 along rows
];
let out = TensorMut::row_major(&mut c, 64, 64)?;
let _ = (inputs, out); Ok(())
}
