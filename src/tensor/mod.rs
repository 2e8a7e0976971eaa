//! Tensor views: 1-D and 2-D views over cudarc device memory, with shape and
//! strides in elements, in read and write forms, typed and type-erased.
//!
//! | item | file | what it is |
//! |---|---|---|
//! | [`ViewLayout`] | `layout.rs` | shape and strides of rank 1 or 2; required buffer length (overflow-checked), broadcasting, transpose |
//! | [`TensorRef`], [`TensorMut`] | `view.rs` | a typed view of a `CudaSlice<T>`/`CudaView<T>` (read) or `CudaSlice<T>`/`CudaViewMut<T>` (write) |
//! | [`TensorArg`], [`TensorArgMut`] | `view.rs` | the same with the element type erased (`.into()` from the typed forms); what kernels take |
//! | [`ReadBuffer`], [`WriteBuffer`] | `buffer.rs` | sealed traits over cudarc's buffers: element type, length, the device address for a read or a write on a stream |
//!
//! # Contract for kernels that take views
//!
//! - A view is checked when it is built: every element it addresses lies in
//!   its buffer (the error names shape, strides, the length needed and the
//!   length held). Strides are non-negative; stride 0 broadcasts.
//! - Rank 1 is stored as the 2-D view `(1, n):(0, s)`, so a kernel handles
//!   two modes only; [`ViewLayout::broadcast_to`] stretches extent-1 modes.
//! - Building a view touches no device: validation can run before any
//!   driver call. A kernel gets the address by pushing the buffer into its
//!   [`KernelArgs`](crate::device::KernelArgs) (`read_buffer`,
//!   `write_buffer`, through [`ReadBuffer::read_address`] and
//!   [`WriteBuffer::write_address`]), which also orders the launch on the
//!   stream after earlier work on the buffer, as cudarc does.
//!
//! ```no_run
//! # fn main() -> cutlet::Result<()> {
//! use cutlet::device::Device;
//! use cutlet::tensor::{TensorArg, TensorMut, TensorRef};
//! let device = Device::new(0)?;
//! let stream = device.default_stream();
//! let a = stream.alloc_zeros::<half::f16>(64 * 80).unwrap();
//! let bias = stream.alloc_zeros::<f32>(64).unwrap();
//! let mut c = stream.alloc_zeros::<f32>(64 * 64).unwrap();
//! let inputs: [TensorArg; 2] = [
//!     TensorRef::with_strides(&a, &[64, 64], &[80, 1])?.into(), // leading dimension 80
//!     TensorRef::broadcast_row(&bias, 64, 64)?.into(),         // f32, stride 0 along rows
//! ];
//! let out = TensorMut::row_major(&mut c, 64, 64)?;
//! # let _ = (inputs, out); Ok(())
//! # }
//! ```

mod buffer;
mod layout;
mod view;

pub(crate) use buffer::PeerBuffer;
pub use buffer::{ReadBuffer, WriteBuffer};
pub use layout::ViewLayout;
pub use view::{TensorArg, TensorArgMut, TensorMut, TensorRef};
