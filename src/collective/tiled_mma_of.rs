//! [`context_tiled_mma`]: the tiled MMA of a kernel, chosen by its
//! [`TileContext`]: the mainloop multiplies with it and the epilogue reads
//! the accumulators through its C partition, so both ask here.

use super::{sm70_mma_pipelined, sm80_mma_multistage, TileContext};
use crate::arch::ArchKind;
use crate::atom::MmaAtom;
use crate::tiled::TiledMma;
use crate::{Error, Result};

/// The tiled MMA of a kernel with context `ctx`: for `Sm70` the quad-pair
/// tiled MMA of the SM70 mainloop
/// ([`Sm70MmaPipelined::tiled_mma`](super::Sm70MmaPipelined::tiled_mma)),
/// else the warp-tiled MMA of the SM80 mainloop
/// ([`Sm80MmaMultistage::tiled_mma`](super::Sm80MmaMultistage::tiled_mma)).
///
/// # Errors
/// [`Error::InvalidArgument`] when the element types have no MMA atom on
/// the arch, or the tile does not divide over the warps.
pub(crate) fn context_tiled_mma(ctx: &TileContext) -> Result<TiledMma> {
    let types = ctx.types;
    let no_atom = || {
        Error::invalid_argument(
            "element types",
            format!(
                "{}/{}/{} on {}",
                types.a,
                types.b,
                types.acc,
                ctx.arch.ptx_target()
            ),
            "types with an mma",
        )
    };
    match ctx.arch {
        ArchKind::Sm70 => sm70_mma_pipelined::tiled_mma_of(ctx),
        _ => {
            let atom = MmaAtom::for_types(types.a, types.b, types.acc).ok_or_else(no_atom)?;
            sm80_mma_multistage::tiled_mma_of(ctx, atom)
        }
    }
}
