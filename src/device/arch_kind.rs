//! Which cutlet architecture a device runs.
//!
//! Note: `crate::arch::ArchKind` (with `from_compute_capability` and a
//! `Display` of the PTX target) is written on the `ptx` branch (commit
//! fcf435d) and has not reached `main` yet. Until it does, this file holds
//! the same enum and mapping so the runtime and `cutlet info` can name the
//! architecture. When `ptx` is merged: delete this file and change the
//! re-export in `device/mod.rs` to `pub use crate::arch::ArchKind;` (the rest
//! of the device layer names it as `super::ArchKind`).

use std::fmt;

/// The code-generation family cutlet uses on a device.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ArchKind {
    /// Volta and Turing (cc 7.x): `mma.m8n8k4`, PTX target `sm_70`.
    Sm70,
    /// Ampere and Ada (cc 8.x), and any newer device that is not cc 9.0:
    /// `mma.m16n8k16`, `cp.async`, `ldmatrix`, PTX target `sm_80`.
    Sm80,
    /// Hopper (cc 9.0 exactly): `wgmma`, TMA, clusters, PTX target `sm_90a`.
    Sm90,
}

impl ArchKind {
    /// The architecture cutlet uses on a device of compute capability
    /// `major.minor`; `None` below cc 7.0.
    ///
    /// `sm_90a` code is not forward compatible, so only cc 9.0 gets
    /// [`ArchKind::Sm90`]; later devices run the `sm_80` kernels, which the
    /// driver JIT-compiles for them.
    pub fn from_compute_capability(major: u32, minor: u32) -> Option<ArchKind> {
        match (major, minor) {
            (0..=6, _) => None,
            (7, _) => Some(ArchKind::Sm70),
            (8, _) => Some(ArchKind::Sm80),
            (9, 0) => Some(ArchKind::Sm90),
            _ => Some(ArchKind::Sm80),
        }
    }

    /// The PTX `.target` this architecture's kernels are written for.
    pub fn ptx_target(self) -> &'static str {
        match self {
            ArchKind::Sm70 => "sm_70",
            ArchKind::Sm80 => "sm_80",
            ArchKind::Sm90 => "sm_90a",
        }
    }
}

impl fmt::Display for ArchKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx_target())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_capabilities_map_to_architectures() {
        assert_eq!(ArchKind::from_compute_capability(6, 1), None);
        assert_eq!(
            ArchKind::from_compute_capability(7, 0),
            Some(ArchKind::Sm70)
        );
        assert_eq!(
            ArchKind::from_compute_capability(7, 5),
            Some(ArchKind::Sm70)
        );
        assert_eq!(
            ArchKind::from_compute_capability(8, 0),
            Some(ArchKind::Sm80)
        );
        assert_eq!(
            ArchKind::from_compute_capability(8, 9),
            Some(ArchKind::Sm80)
        );
        assert_eq!(
            ArchKind::from_compute_capability(9, 0),
            Some(ArchKind::Sm90)
        );
        assert_eq!(
            ArchKind::from_compute_capability(10, 0),
            Some(ArchKind::Sm80)
        );
        assert_eq!(ArchKind::Sm90.to_string(), "sm_90a");
    }
}
