//! [`ReadBuffer`] and [`WriteBuffer`]: cudarc device memory with its element
//! type erased, so one call can take tensors of different element types.

use cudarc::driver::{
    CudaSlice, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut, DeviceSlice, SyncOnDrop,
};

use std::marker::PhantomData;

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
    /// The buffer's device address for a read on `stream`, with cudarc's
    /// stream ordering: the read waits for earlier writes, and the guard
    /// records it when it drops (after the launch is queued).
    fn read_address<'s>(&'s self, stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>);
}

/// Device memory a kernel may write: `CudaSlice<T>` or `CudaViewMut<T>`.
pub trait WriteBuffer: ReadBuffer {
    /// The buffer's device address for a write on `stream` (the write waits
    /// for earlier reads and writes; the guard records it when it drops).
    fn write_address<'s>(&'s mut self, stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>);
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
            fn read_address<'s>(&'s self, stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>) {
                DevicePtr::<T>::device_ptr(self, stream)
            }
        }
    )*};
}

read_buffer!(CudaSlice<T>, CudaView<'_, T>, CudaViewMut<'_, T>);

macro_rules! write_buffer {
    ($($ty:ty),*) => {$(
        impl<T: Element> WriteBuffer for $ty {
            fn write_address<'s>(&'s mut self, stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>) {
                DevicePtrMut::<T>::device_ptr_mut(self, stream)
            }
        }
    )*};
}

write_buffer!(CudaSlice<T>, CudaViewMut<'_, T>);

/// Another GPU's memory, read by its unified address over the GPUs' link
/// (a tensor-parallel rank reading a peer's partial sums in place). No
/// stream ordering comes with it: the reader orders its reads after the
/// peer's writes (events) and keeps the memory alive past them.
pub(crate) struct PeerBuffer<T> {
    address: u64,
    len: usize,
    element: PhantomData<T>,
}

impl<T: Element> PeerBuffer<T> {
    /// `len` elements of `T` at `address`.
    ///
    /// # Safety
    /// The range holds `len` elements of `T` in memory that the device of
    /// every stream reading it may access (peer access enabled, the
    /// allocation's pool open to it); it stays live, and unwritten, until
    /// those reads complete; and the reads are ordered after its writes.
    pub(crate) unsafe fn new(address: u64, len: usize) -> Self {
        PeerBuffer {
            address,
            len,
            element: PhantomData,
        }
    }
}

impl<T: Element> sealed::Sealed for PeerBuffer<T> {}
impl<T: Element> ReadBuffer for PeerBuffer<T> {
    fn element(&self) -> ElementType {
        T::TYPE
    }
    fn len(&self) -> usize {
        self.len
    }
    fn read_address<'s>(&'s self, _stream: &'s CudaStream) -> (u64, SyncOnDrop<'s>) {
        // The constructor's contract orders the reads; nothing to record.
        (self.address, SyncOnDrop::Sync(None))
    }
}
