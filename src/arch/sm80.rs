//! [`Sm80`]: the Ampere (A100) architecture tag.

use super::{Arch, ArchKind};

/// Tag for Ampere (A100), compute capability 8.0.
/// Adds `cp.async`, `ldmatrix` and the m16n8k16 / m16n8k8 `mma` shapes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sm80;

impl Arch for Sm80 {
    const KIND: ArchKind = ArchKind::Sm80;
}
