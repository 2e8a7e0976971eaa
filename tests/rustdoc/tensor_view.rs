pub fn main() -> cutlet::Result<()> {
use cutlet::device::Device;
use cutlet::tensor::TensorRef;
let device = Device::new(0)?;
let stream = device.default_stream();
let a = stream.alloc_zeros::<f32>(12).unwrap();
let m = TensorRef::row_major(&a, 3, 4)?;       // (3,4):(4,1)
let t = TensorRef::col_major(&a, 4, 3)?;       // (4,3):(1,4), the same memory
let bias = TensorRef::broadcast_row(&a, 5, 4)?; // (5,4):(0,1): row a[0..4] five times
assert_eq!(bias.layout().strides(), [0, 1]);
let _ = (m, t); Ok(())
}
