//! [`ReadBuffer`] and [`WriteBuffer`]: cudarc device memory with its element
//! type erased, so one call can take tensors of different element types.

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceSlice};

use crate::device::KernelArgs;
use crate::numeric::{Element, ElementType};

mod sealed {
    pub trait Sealed {}
}

/// Device memory a kernel may read: `CudaSlice<T>`, `CudaView<T>` or
/// `CudaViewMut<T>` of a cutlet [`Element`]. Sealed: implemented here only.
pub trait ReadBuffer: sealed::Sealed {
    /// The element type the buffer holds.
    fn element(&self) -> ElementType;
    /// Length in elements.
    fn len(&self) -> usize;
    /// Whether the buffer holds no element.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Pushes the buffer as a read argument (its `u64` address, with cudarc's
    /// stream ordering) and returns the address.
    fn push_input<'s>(&'s self, args: &mut KernelArgs<'s>) -> u64;
}

/// Device memory a kernel may write: `CudaSlice<T>` or `CudaViewMut<T>`.
pub trait WriteBuffer: ReadBuffer {
    /// Pushes the buffer as a written argument and returns its address.
    fn push_output<'s>(&'s mut self, args: &mut KernelArgs<'s>) -> u64;
}

macro_rules! read_buffer {
    ($($ty:ty),*) => {$(
        impl<T: Element> sealed::Sealed for $ty {}
        impl<T: Element> ReadBuffer for $ty {
            fn element(&self) -> ElementType {
                T::TYPE
            }
            fn len(&self) -> usize {
                DeviceSlice::len(self)
            }
            fn push_input<'s>(&'s self, args: &mut KernelArgs<'s>) -> u64 {
                args.input_address::<T, Self>(self)
            }
        }
    )*};
}

read_buffer!(CudaSlice<T>, CudaView<'_, T>, CudaViewMut<'_, T>);

macro_rules! write_buffer {
    ($($ty:ty),*) => {$(
        impl<T: Element> WriteBuffer for $ty {
            fn push_output<'s>(&'s mut self, args: &mut KernelArgs<'s>) -> u64 {
                args.output_address::<T, Self>(self)
            }
        }
    )*};
}

write_buffer!(CudaSlice<T>, CudaViewMut<'_, T>);
