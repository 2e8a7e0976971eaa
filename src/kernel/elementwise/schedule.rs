//! [`Schedule`]: how an elementwise kernel walks its tiles and which cache
//! hints its global accesses carry; part of the spec (the cache key), so
//! every variant is its own kernel.

use super::bulk::BulkCopy;
use crate::arch::ArchKind;

/// The L2 prefetch size a load may ask for (`.L2::64B` .. `.L2::256B`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Prefetch {
    /// No prefetch qualifier.
    #[default]
    None,
    /// `.L2::64B`.
    B64,
    /// `.L2::128B`.
    B128,
    /// `.L2::256B`.
    B256,
}

/// The cache operator of the output's stores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum StoreHint {
    /// `st.global.cs`: streaming, evict first.
    #[default]
    Streaming,
    /// Plain `st.global` (write-back).
    WriteBack,
    /// `st.global.L1::no_allocate`.
    NoAllocate,
}

/// Tile walk and cache hints of an elementwise kernel.
///
/// The default is the measured best on an H200 (see BENCHMARKS.md): one
/// tile per block, `ld.global.nc` with no further hint, `st.global.cs`.
///
/// ```
/// use cutlet::kernel::elementwise::{Prefetch, Schedule};
/// let s = Schedule { persistent: 4, prefetch: Prefetch::B256, ..Schedule::default() };
/// assert_eq!(s.load_qualifiers(cutlet::arch::ArchKind::Sm90), ".L2::256B");
/// assert_eq!(s.load_qualifiers(cutlet::arch::ArchKind::Sm70), ""); // sm_70 has no prefetch size
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Schedule {
    /// `0`: one tile per block, one block per tile. `k > 0`: a persistent
    /// grid of `k` blocks per SM (never more blocks than tiles) walks the
    /// tiles grid-stride, issuing the next tile's loads before the current
    /// tile's stores (two register sets: software pipelining). The launcher
    /// uses it only when no operand is [`Strided`](super::Access::Strided)
    /// (a strided operand holds one register per value, so two sets would
    /// spill).
    pub persistent: u32,
    /// Loads carry `.L1::no_allocate`.
    pub l1_no_allocate: bool,
    /// Loads ask L2 to prefetch this much (sm_75 and newer; ignored on sm_70).
    pub prefetch: Prefetch,
    /// The stores' cache operator.
    pub store: StoreHint,
    /// `0`: no directive; otherwise `.minnctapersm` (blocks per SM the
    /// register allocation must allow). A cap too low for the tile's
    /// values makes ptxas spill to local memory.
    pub min_blocks_per_sm: u32,
    /// `None` (the default): threads load from global memory. `Some`: the
    /// sm_90a bulk-copy schedule streams the inputs through a shared-memory
    /// ring where the problem allows it (see [`BulkCopy`]); with it,
    /// `persistent` selects its grid the same way.
    pub bulk: Option<BulkCopy>,
}

impl Schedule {
    /// The qualifiers after `ld.global[.nc]` and before the vector suffix.
    pub fn load_qualifiers(&self, arch: ArchKind) -> String {
        let mut q = String::new();
        if self.l1_no_allocate {
            q.push_str(".L1::no_allocate");
        }
        if arch != ArchKind::Sm70 {
            q.push_str(match self.prefetch {
                Prefetch::None => "",
                Prefetch::B64 => ".L2::64B",
                Prefetch::B128 => ".L2::128B",
                Prefetch::B256 => ".L2::256B",
            });
        }
        q
    }

    /// The qualifiers after `st.global` and before the vector suffix.
    pub fn store_qualifiers(&self) -> &'static str {
        match self.store {
            StoreHint::Streaming => ".cs",
            StoreHint::WriteBack => "",
            StoreHint::NoAllocate => ".L1::no_allocate",
        }
    }

    /// The PTX version the hints need: 7.4 for eviction priorities and
    /// prefetch sizes, else none beyond the arch's own.
    pub fn ptx_version(&self, arch: ArchKind) -> Option<(u32, u32)> {
        let hinted = !self.load_qualifiers(arch).is_empty() || self.store == StoreHint::NoAllocate;
        (hinted && arch.ptx_version() < (7, 4)).then_some((7, 4))
    }
}
