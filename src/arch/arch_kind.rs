//! [`ArchKind`]: the architecture as a runtime value, and picking one for a device.

use std::fmt;

/// The architecture a kernel is generated for, as a runtime value.
///
/// Mirrors the tags [`Sm70`](super::Sm70), [`Sm80`](super::Sm80) and
/// [`Sm90`](super::Sm90); each method here is the constant of the same name
/// on the tag.
///
/// ```
/// use cutlet::arch::ArchKind;
///
/// assert_eq!(ArchKind::from_compute_capability(9, 0), Some(ArchKind::Sm90));
/// assert_eq!(ArchKind::from_compute_capability(8, 6), Some(ArchKind::Sm80));
/// assert_eq!(ArchKind::from_compute_capability(12, 0), Some(ArchKind::Sm80));
/// assert_eq!(ArchKind::from_compute_capability(6, 1), None);
/// assert!(!ArchKind::Sm90.can_run_on(10, 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ArchKind {
    /// Volta: `sm_70`.
    Sm70,
    /// Ampere: `sm_80`.
    Sm80,
    /// Hopper: `sm_90a`.
    Sm90,
}

impl ArchKind {
    /// Every architecture, oldest first.
    pub const ALL: [ArchKind; 3] = [ArchKind::Sm70, ArchKind::Sm80, ArchKind::Sm90];

    /// Compute capability `(major, minor)` of the PTX target.
    pub const fn compute_capability(self) -> (u32, u32) {
        match self {
            ArchKind::Sm70 => (7, 0),
            ArchKind::Sm80 => (8, 0),
            ArchKind::Sm90 => (9, 0),
        }
    }

    /// PTX `.target` name. Hopper uses the architecture-specific `sm_90a`,
    /// which `wgmma` and `setmaxnreg` require.
    pub const fn ptx_target(self) -> &'static str {
        match self {
            ArchKind::Sm70 => "sm_70",
            ArchKind::Sm80 => "sm_80",
            ArchKind::Sm90 => "sm_90a",
        }
    }

    /// PTX `.version` as `(major, minor)`: the lowest ISA version that every
    /// snippet family of the arch needs, so that the oldest possible driver
    /// can JIT it.
    ///
    /// - `Sm70`, `Sm80`: 7.0 (CUDA 11.0 drivers and later). 7.0 brings
    ///   `cp.async`, the bf16 and tf32 `mma` shapes and `.aligned` `mma`.
    /// - `Sm90`: 8.0 (CUDA 12.0 drivers, r525, and later). 8.0 brings `wgmma`,
    ///   `setmaxnreg`, TMA, `mbarrier.expect_tx` and `sm_90a`.
    ///
    /// A kernel that needs a newer instruction raises its module's version
    /// with [`Module::with_ptx_version`](crate::ptx::Module::with_ptx_version),
    /// up to [`MAX_PTX_VERSION`](Self::MAX_PTX_VERSION).
    pub const fn ptx_version(self) -> (u32, u32) {
        match self {
            ArchKind::Sm70 | ArchKind::Sm80 => (7, 0),
            ArchKind::Sm90 => (8, 0),
        }
    }

    /// The newest PTX `.version` cutlet emits: 8.8, the newest that ptxas
    /// 12.9 (the project's test assembler) reads.
    pub const MAX_PTX_VERSION: (u32, u32) = (8, 8);

    /// Largest dynamic shared memory per block, in bytes, after opting in with
    /// `CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES`: 96 KiB on sm_70,
    /// 163 KiB on sm_80, 227 KiB on sm_90.
    pub const fn max_dynamic_shared_bytes(self) -> u32 {
        match self {
            ArchKind::Sm70 => 96 * 1024,
            ArchKind::Sm80 => 163 * 1024,
            ArchKind::Sm90 => 227 * 1024,
        }
    }

    /// Shared memory per block, in bytes, without opting in: 48 KiB. This is
    /// also the limit on static (`.shared`) declarations.
    pub const fn shared_bytes_without_opt_in(self) -> u32 {
        48 * 1024
    }

    /// Most registers one thread may use: 255.
    pub const fn max_registers_per_thread(self) -> u32 {
        255
    }

    /// 32-bit registers in one SM's register file: 65536.
    pub const fn registers_per_sm(self) -> u32 {
        65536
    }

    /// Most threads in one block: 1024.
    pub const fn max_threads_per_block(self) -> u32 {
        1024
    }

    /// Threads in one warp: 32.
    pub const fn warp_size(self) -> u32 {
        32
    }

    /// The best architecture cutlet generates for a device of compute
    /// capability `major.minor`, or `None` below 7.0.
    ///
    /// - 9.0 → `Sm90`. `sm_90a` code runs on compute capability 9.0 exactly,
    ///   so `Sm90` is chosen for nothing else.
    /// - 8.x, 9.x other than 9.0, and 10.0 and later (Blackwell) → `Sm80`:
    ///   `sm_80` PTX is JIT-compiled forward by the driver.
    /// - 7.x (7.0, 7.2, 7.5) → `Sm70`. Turing (7.5) could run `ldmatrix`, but
    ///   cutlet keeps one Volta path for all of 7.x.
    pub const fn from_compute_capability(major: u32, minor: u32) -> Option<ArchKind> {
        match (major, minor) {
            (9, 0) => Some(ArchKind::Sm90),
            (8.., _) => Some(ArchKind::Sm80),
            (7, _) => Some(ArchKind::Sm70),
            _ => None,
        }
    }

    /// Whether PTX generated for this architecture runs on a device of
    /// compute capability `major.minor`: `Sm70` and `Sm80` on that
    /// capability or any later one, `Sm90` (`sm_90a`) on 9.0 only.
    pub const fn can_run_on(self, major: u32, minor: u32) -> bool {
        match self {
            ArchKind::Sm70 => major >= 7,
            ArchKind::Sm80 => major >= 8,
            ArchKind::Sm90 => major == 9 && minor == 0,
        }
    }
}

impl fmt::Display for ArchKind {
    /// Writes the PTX target name, e.g. `sm_90a`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx_target())
    }
}
