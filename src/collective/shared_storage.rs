//! [`SharedStorage`]: the dynamic shared memory a part of a kernel needs.

/// Bytes and alignment of the dynamic shared memory one part of a kernel
/// uses. Parts that run one after the other (a mainloop, then an epilogue
/// that reuses its stages) share one region: the kernel takes the larger
/// size and the stricter alignment ([`SharedStorage::overlap`]).
///
/// ```
/// use cutlet::collective::SharedStorage;
///
/// let mainloop = SharedStorage { bytes: 3 * 49152, align: 1024 };
/// let epilogue = SharedStorage { bytes: 135168, align: 16 };
/// assert_eq!(mainloop.overlap(epilogue), SharedStorage { bytes: 147456, align: 1024 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct SharedStorage {
    /// Bytes.
    pub bytes: u32,
    /// Alignment in bytes of the region's start (a power of two).
    pub align: u32,
}

impl SharedStorage {
    /// One region serving both parts, used one after the other: the larger
    /// size, the stricter alignment.
    pub const fn overlap(self, other: SharedStorage) -> SharedStorage {
        SharedStorage {
            bytes: if self.bytes > other.bytes {
                self.bytes
            } else {
                other.bytes
            },
            align: if self.align > other.align {
                self.align
            } else {
                other.align
            },
        }
    }
}
