//! Architecture tags: which GPU generation a kernel is generated for.
//!
//! # Concept
//! An [`Arch`] is a zero-sized tag type ([`Sm70`], [`Sm80`], [`Sm90`]) that
//! configuration types name as a parameter; [`ArchKind`] is the same choice as
//! a runtime value, the one kernel specs carry. Every associated constant of a
//! tag equals the method of the same name on its [`ArchKind`].
//!
//! | item | meaning |
//! |---|---|
//! | `KIND` | the runtime [`ArchKind`] of the tag |
//! | `COMPUTE_CAPABILITY` | `(major, minor)` the PTX targets |
//! | `PTX_TARGET` | `.target` name: `sm_70`, `sm_80`, `sm_90a` (wgmma and setmaxnreg need the `a` target) |
//! | `PTX_VERSION` | `.version` `(major, minor)`: the lowest that every snippet of this arch needs |
//! | `MAX_DYNAMIC_SHARED_BYTES` | shared memory per block with the opt-in attribute |
//! | `SHARED_BYTES_WITHOUT_OPT_IN` | shared memory per block without it (48 KiB) |
//! | `MAX_REGISTERS_PER_THREAD`, `REGISTERS_PER_SM`, `MAX_THREADS_PER_BLOCK`, `WARP_SIZE` | per-thread, per-SM and per-block limits |
//!
//! Picking the arch of a device is [`ArchKind::from_compute_capability`].

mod arch_kind;
mod sm70;
mod sm80;
mod sm90;

pub use arch_kind::ArchKind;
pub use sm70::Sm70;
pub use sm80::Sm80;
pub use sm90::Sm90;

/// A GPU architecture tag: PTX target facts and hardware limits as constants.
///
/// ```
/// use cutlet::arch::{Arch, ArchKind, Sm90};
///
/// assert_eq!(Sm90::PTX_TARGET, "sm_90a");
/// assert_eq!(Sm90::KIND, ArchKind::Sm90);
/// assert_eq!(Sm90::MAX_DYNAMIC_SHARED_BYTES, 232_448);
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a cutlet architecture tag",
    note = "architecture tags are cutlet::arch::Sm70, Sm80 and Sm90"
)]
pub trait Arch: Copy + Default + Send + Sync + 'static {
    /// The runtime value of this tag.
    const KIND: ArchKind;
    /// Compute capability `(major, minor)` of the PTX target.
    const COMPUTE_CAPABILITY: (u32, u32) = Self::KIND.compute_capability();
    /// PTX `.target` name.
    const PTX_TARGET: &'static str = Self::KIND.ptx_target();
    /// PTX `.version` as `(major, minor)`.
    const PTX_VERSION: (u32, u32) = Self::KIND.ptx_version();
    /// Largest dynamic shared memory per block, in bytes, after opting in.
    const MAX_DYNAMIC_SHARED_BYTES: u32 = Self::KIND.max_dynamic_shared_bytes();
    /// Shared memory per block, in bytes, without opting in.
    const SHARED_BYTES_WITHOUT_OPT_IN: u32 = Self::KIND.shared_bytes_without_opt_in();
    /// Most registers one thread may use.
    const MAX_REGISTERS_PER_THREAD: u32 = Self::KIND.max_registers_per_thread();
    /// 32-bit registers in one SM's register file.
    const REGISTERS_PER_SM: u32 = Self::KIND.registers_per_sm();
    /// Most threads in one block.
    const MAX_THREADS_PER_BLOCK: u32 = Self::KIND.max_threads_per_block();
    /// Threads in one warp.
    const WARP_SIZE: u32 = Self::KIND.warp_size();
}
