//! [`Schedule`]: how an elementwise kernel walks its tiles and which cache
//! hints its global accesses carry; part of the spec (the cache key), so
//! every variant is its own kernel.

use std::fmt;

use super::bulk::{BulkCopy, BulkStore};
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

impl fmt::Display for Schedule {
    /// The schedule as a person reads it, e.g. `one tile per block,
    /// streaming stores` or `persistent (2 blocks per SM), loads with L2
    /// 128-byte prefetch, write-back stores, bulk copies of 3 stages x 2
    /// tiles, output stored from registers`.
    ///
    /// ```
    /// use cutlet::kernel::elementwise::{Prefetch, Schedule, StoreHint};
    ///
    /// assert_eq!(Schedule::default().to_string(), "one tile per block, streaming stores");
    /// let tuned = Schedule { persistent: 2, prefetch: Prefetch::B128, store: StoreHint::WriteBack, ..Schedule::default() };
    /// assert_eq!(
    ///     tuned.to_string(),
    ///     "persistent (2 blocks per SM), loads with L2 128-byte prefetch, write-back stores"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.persistent {
            0 => f.write_str("one tile per block")?,
            k => write!(f, "persistent ({k} blocks per SM)")?,
        }
        let mut loads = Vec::new();
        if self.l1_no_allocate {
            loads.push("L1 no-allocate".to_string());
        }
        let prefetch = match self.prefetch {
            Prefetch::None => None,
            Prefetch::B64 => Some(64),
            Prefetch::B128 => Some(128),
            Prefetch::B256 => Some(256),
        };
        if let Some(bytes) = prefetch {
            loads.push(format!("L2 {bytes}-byte prefetch"));
        }
        if !loads.is_empty() {
            write!(f, ", loads with {}", loads.join(" and "))?;
        }
        f.write_str(match self.store {
            StoreHint::Streaming => ", streaming stores",
            StoreHint::WriteBack => ", write-back stores",
            StoreHint::NoAllocate => ", L1 no-allocate stores",
        })?;
        if self.min_blocks_per_sm > 0 {
            write!(f, ", at least {} blocks per SM", self.min_blocks_per_sm)?;
        }
        if let Some(bulk) = self.bulk {
            write!(
                f,
                ", bulk copies of {} stages x {} tiles, output stored {}",
                bulk.stages,
                bulk.tiles_per_stage,
                match bulk.store {
                    BulkStore::Registers => "from registers",
                    BulkStore::Bulk => "through shared memory",
                }
            )?;
        }
        Ok(())
    }
}
