//! What the SM70 and SM80 mainloops share, both reading A and B through
//! global pointers in one body: the parameters they declare, their 16-byte
//! alignment, the prologue that works out a tile's operand addresses
//! ([`MainloopInputs`]), and the accumulators (the tiled MMA's C fragment
//! of the CTA tile, zeroed).

use super::sm80_mma_multistage::atom_error;
use super::{Accumulators, BlockContext, MainloopInputs, TileContext, VECTOR_BYTES};
use crate::atom::MmaAtom;
use crate::gemm::{GemmOperand, ParamRole};
use crate::layout::{IntTuple, Layout};
use crate::ptx::{Kernel, PtxError, RegClass};
use crate::tiled::{Operand, RegisterTensor, TiledMma};

/// A's and B's addresses, leading dimensions and batch strides.
pub(crate) fn pointer_params() -> Vec<ParamRole> {
    let (a, b) = (GemmOperand::A, GemmOperand::B);
    vec![
        ParamRole::Address(a),
        ParamRole::Address(b),
        ParamRole::Ld(a),
        ParamRole::Ld(b),
        ParamRole::BatchStride(a),
        ParamRole::BatchStride(b),
    ]
}

/// One 16-byte vector of A's and of B's type: the copies' width.
pub(crate) fn vector_alignment(ctx: &TileContext) -> [u32; 2] {
    [
        VECTOR_BYTES / ctx.types.a.size_bytes(),
        VECTOR_BYTES / ctx.types.b.size_bytes(),
    ]
}

/// Emits a tile's operand addresses and the registers the body reads.
///
/// # Errors
/// A parameter no part declared; the assembler's error.
pub(crate) fn emit_pointer_inputs(
    k: &mut Kernel,
    block: &BlockContext<'_>,
    ctx: &TileContext,
) -> Result<MainloopInputs, PtxError> {
    let a = block.operand(GemmOperand::A)?;
    let b = block.operand(GemmOperand::B)?;
    let a_tile = a.operand_tile(k, block.m0, ctx.majors.a, ctx.types.a.size_bytes());
    let b_tile = b.operand_tile(k, block.n0, ctx.majors.b, ctx.types.b.size_bytes());
    Ok(MainloopInputs {
        tid: block.tid,
        smem: block.smem,
        a_tile,
        b_tile,
        a_safe: a.base,
        b_safe: b.base,
        lda_bytes: a.ld_bytes,
        ldb_bytes: b.ld_bytes,
        m_rem: block.m_rem,
        n_rem: block.n_rem,
        k: block.k,
    })
}

/// The accumulators' layout: `tiled`'s C fragment of a `tile` (BM, BN),
/// `(FrgV, RestM, RestN)`, to value slots with the MMA tiles row by row
/// (an atom's values contiguous, then N, then M), the order the MMAs walk
/// them.
///
/// # Errors
/// The tiled MMA's, where it does not tile the CTA tile.
pub(crate) fn accumulator_layout(tiled: &TiledMma, tile: [u32; 3]) -> crate::Result<Layout> {
    let [bm, bn, _] = tile.map(i64::from);
    let shape = tiled.fragment(Operand::C, [bm, bn])?;
    let [frg, _, n_tiles] = shape.flatten()[..] else {
        unreachable!("a fragment shape has three modes");
    };
    Ok(Layout::from_parts(
        shape,
        IntTuple::ints(&[1, n_tiles * frg, frg]),
    ))
}

/// Emits the accumulators of `layout` in `mma`'s accumulator registers,
/// zeroed.
///
/// # Errors
/// The register tensor's, or the assembler's.
pub(crate) fn emit_zeroed_accumulators(
    k: &mut Kernel,
    mma: MmaAtom,
    layout: crate::Result<Layout>,
) -> Result<Accumulators, PtxError> {
    let regs = mma.regs();
    let layout = layout.map_err(atom_error)?;
    let acc =
        RegisterTensor::allocate(k, regs.c_class, layout, mma.types().c).map_err(atom_error)?;
    for r in acc.regs() {
        if regs.c_class == RegClass::F32 {
            k.push(format!("mov.f32 {r}, 0f00000000;"));
        } else {
            k.push(format!("mov.b32 {r}, 0;"));
        }
    }
    Ok(acc)
}
