//! [`Sm70`]: the Volta (V100) architecture tag.

use super::{Arch, ArchKind};

/// Tag for Volta (V100), compute capability 7.0. Tensor cores run `mma.m8n8k4`; no `cp.async`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sm70;

impl Arch for Sm70 {
    const KIND: ArchKind = ArchKind::Sm70;
}
