//! Typed views ([`TensorRef`], [`TensorMut`]) and their type-erased argument
//! forms ([`TensorArg`], [`TensorArgMut`]).

use std::marker::PhantomData;

use cudarc::driver::{DevicePtr, DevicePtrMut};

use super::buffer::{ReadBuffer, WriteBuffer};
use super::layout::ViewLayout;
use crate::numeric::{Element, ElementType};
use crate::{Error, Result};

/// `layout` addresses only elements `0..len`, or an error naming the layout,
/// the length it needs and the length the buffer has.
fn check_fits(layout: &ViewLayout, len: usize) -> Result<()> {
    let needed = layout.required_len()?;
    if needed > len {
        return Err(Error::invalid_argument(
            "tensor view",
            format!("shape {:?} strides {:?}", layout.shape(), layout.strides()),
            format!("a layout whose elements fit the buffer: it needs {needed} elements, the buffer holds {len}"),
        ));
    }
    Ok(())
}

/// The constructors and accessor [`TensorRef`] and [`TensorMut`] share:
/// `typed_view!(View, DevicePtr trait, buffer trait, [mut])`, `mut` for a
/// view that borrows its buffer mutably.
macro_rules! typed_view {
    ($view:ident, $ptr:ident, $buffer:ident $(, $mutability:tt)?) => {
        impl<'a, T: Element> $view<'a, T> {
            /// A view of `buffer` with `layout`.
            ///
            /// Errors: [`Error::InvalidArgument`] naming the shape, strides,
            /// the length needed and the buffer's length when the layout
            /// reaches past the buffer.
            pub fn new<B: $ptr<T> + $buffer>(
                buffer: &'a $($mutability)? B,
                layout: ViewLayout,
            ) -> Result<Self> {
                check_fits(&layout, ReadBuffer::len(buffer))?;
                Ok($view {
                    buffer,
                    layout,
                    element: PhantomData,
                })
            }

            /// The whole buffer as a vector `(len):(1)`.
            pub fn vector<B: $ptr<T> + $buffer>(buffer: &'a $($mutability)? B) -> Self {
                let layout = ViewLayout::vector(ReadBuffer::len(buffer));
                $view {
                    buffer,
                    layout,
                    element: PhantomData,
                }
            }

            /// `rows x cols`, row-major, packed.
            pub fn row_major<B: $ptr<T> + $buffer>(
                buffer: &'a $($mutability)? B,
                rows: usize,
                cols: usize,
            ) -> Result<Self> {
                Self::new(buffer, ViewLayout::row_major(rows, cols))
            }

            /// `rows x cols`, column-major, packed.
            pub fn col_major<B: $ptr<T> + $buffer>(
                buffer: &'a $($mutability)? B,
                rows: usize,
                cols: usize,
            ) -> Result<Self> {
                Self::new(buffer, ViewLayout::col_major(rows, cols))
            }

            /// Any shape and strides of rank 1 or 2, in elements (a leading
            /// dimension larger than the row, a transpose, a stride-0
            /// broadcast).
            pub fn with_strides<B: $ptr<T> + $buffer>(
                buffer: &'a $($mutability)? B,
                shape: &[usize],
                strides: &[usize],
            ) -> Result<Self> {
                Self::new(buffer, ViewLayout::with_strides(shape, strides)?)
            }

            /// Shape and strides.
            pub fn layout(&self) -> ViewLayout {
                self.layout
            }
        }
    };
}

/// The accessors [`TensorArg`] and [`TensorArgMut`] share, and the
/// conversion from their typed view: `erased_view!(Erased, Typed)`.
macro_rules! erased_view {
    ($erased:ident, $typed:ident) => {
        impl $erased<'_> {
            /// The element type of the underlying buffer.
            pub fn element(&self) -> ElementType {
                self.buffer.element()
            }

            /// Shape and strides.
            pub fn layout(&self) -> ViewLayout {
                self.layout
            }

            /// Length of the underlying buffer in elements.
            pub fn buffer_len(&self) -> usize {
                self.buffer.len()
            }
        }

        impl<'a, T: Element> From<$typed<'a, T>> for $erased<'a> {
            fn from(view: $typed<'a, T>) -> Self {
                $erased {
                    buffer: view.buffer,
                    layout: view.layout,
                }
            }
        }
    };
}

/// A read-only 1-D or 2-D view of `T`s in device memory.
///
/// ```no_run
/// # fn main() -> cutlet::Result<()> {
/// use cutlet::device::Device;
/// use cutlet::tensor::TensorRef;
/// let device = Device::new(0)?;
/// let stream = device.default_stream();
/// let a = stream.alloc_zeros::<f32>(12).unwrap();
/// let m = TensorRef::row_major(&a, 3, 4)?;       // (3,4):(4,1)
/// let t = TensorRef::col_major(&a, 4, 3)?;       // (4,3):(1,4), the same memory
/// let bias = TensorRef::broadcast_row(&a, 5, 4)?; // (5,4):(0,1): row a[0..4] five times
/// assert_eq!(bias.layout().strides(), [0, 1]);
/// # let _ = (m, t); Ok(())
/// # }
/// ```
#[derive(Clone, Copy)]
pub struct TensorRef<'a, T> {
    buffer: &'a dyn ReadBuffer,
    layout: ViewLayout,
    element: PhantomData<T>,
}

typed_view!(TensorRef, DevicePtr, ReadBuffer);

impl<'a, T: Element> TensorRef<'a, T> {
    /// Another GPU's `buffer` as a vector `(len):(1)`.
    pub(crate) fn peer_vector(buffer: &'a super::buffer::PeerBuffer<T>) -> Self {
        TensorRef {
            buffer,
            layout: ViewLayout::vector(ReadBuffer::len(buffer)),
            element: PhantomData,
        }
    }

    /// The row `buffer[0..cols]` repeated `rows` times: `(rows,cols):(0,1)`.
    pub fn broadcast_row<B: DevicePtr<T> + ReadBuffer>(
        buffer: &'a B,
        rows: usize,
        cols: usize,
    ) -> Result<Self> {
        Self::with_strides(buffer, &[rows, cols], &[0, 1])
    }

    /// The column `buffer[0..rows]` repeated `cols` times: `(rows,cols):(1,0)`.
    pub fn broadcast_col<B: DevicePtr<T> + ReadBuffer>(
        buffer: &'a B,
        rows: usize,
        cols: usize,
    ) -> Result<Self> {
        Self::with_strides(buffer, &[rows, cols], &[1, 0])
    }

    /// `buffer[0]` everywhere in a `rows x cols` view: `(rows,cols):(0,0)`.
    pub fn scalar<B: DevicePtr<T> + ReadBuffer>(
        buffer: &'a B,
        rows: usize,
        cols: usize,
    ) -> Result<Self> {
        Self::with_strides(buffer, &[rows, cols], &[0, 0])
    }
}

/// A writable 1-D or 2-D view of `T`s in device memory.
pub struct TensorMut<'a, T> {
    buffer: &'a mut dyn WriteBuffer,
    layout: ViewLayout,
    element: PhantomData<T>,
}

typed_view!(TensorMut, DevicePtrMut, WriteBuffer, mut);

/// A read view with its element type erased: what elementwise and reduction
/// calls take, so that inputs of different types go in one slice.
#[derive(Clone, Copy)]
pub struct TensorArg<'a> {
    pub(crate) buffer: &'a dyn ReadBuffer,
    pub(crate) layout: ViewLayout,
}

erased_view!(TensorArg, TensorRef);

/// A write view with its element type erased.
pub struct TensorArgMut<'a> {
    pub(crate) buffer: &'a mut dyn WriteBuffer,
    pub(crate) layout: ViewLayout,
}

erased_view!(TensorArgMut, TensorMut);
