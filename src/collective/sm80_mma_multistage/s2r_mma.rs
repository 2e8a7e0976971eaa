//! The shared-to-register loads and MMAs of [`Sm80MmaMultistage`]:
//! `ldmatrix` x4 (atoms [`SM75_U32x4_LDSM_N`], [`SM75_U16x8_LDSM_T`]) into
//! double-buffered fragments, and the warp tile's `mma.sync` through
//! [`MmaAtom::emit`](crate::atom::MmaAtom::emit).

use super::super::smem_layout::{emit_swizzled_offset, LINE_BYTES};
use super::super::{MmaKind, OperandSmem};
use super::{atom_error, Accumulators, Sm80MmaMultistage};
use crate::atom::{SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N};
use crate::kernel::gemm::OperandMajor;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// Per-operand fragment state: ldmatrix bases and the fragment buffers.
pub(super) struct FragState {
    smem: OperandSmem,
    bases: Vec<Reg>,
    frags: [Vec<Reg>; 2],
    blocks: u32,
}

impl Sm80MmaMultistage {
    /// ldmatrix bases: per k-step (K-major) or per 16-wide MN block
    /// (MN-major), the offset of this lane's row address in a stage.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn frag_setup(
        &self,
        k: &mut Kernel,
        smem: OperandSmem,
        is_a: bool,
        lane: Reg,
        warp_mn: Reg,
        warp_extent: u32,
        stage_offset: u32,
    ) -> FragState {
        let blocks = warp_extent / 16;
        let (mn_l, k_l) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        let t = k.reg(RegClass::B32);
        // Lane part of the (mn, k) coordinate, in elements (K-major: k in chunks).
        match (smem.major, is_a) {
            (OperandMajor::K, true) => {
                k.push(format!("and.b32 {mn_l}, {lane}, 15;"));
                k.push(format!("shr.u32 {k_l}, {lane}, 4;"));
            }
            (OperandMajor::K, false) => {
                k.push(format!("and.b32 {mn_l}, {lane}, 7;"));
                k.push(format!("shr.u32 {t}, {lane}, 4;"));
                k.push(format!("shl.b32 {t}, {t}, 3;"));
                k.push(format!("add.u32 {mn_l}, {mn_l}, {t};"));
                k.push(format!("bfe.u32 {k_l}, {lane}, 3, 1;"));
            }
            (OperandMajor::MN, true) => {
                k.push(format!("and.b32 {k_l}, {lane}, 7;"));
                k.push(format!("shr.u32 {t}, {lane}, 4;"));
                k.push(format!("shl.b32 {t}, {t}, 3;"));
                k.push(format!("add.u32 {k_l}, {k_l}, {t};"));
                k.push(format!("bfe.u32 {mn_l}, {lane}, 3, 1;"));
                k.push(format!("shl.b32 {mn_l}, {mn_l}, 3;"));
            }
            (OperandMajor::MN, false) => {
                k.push(format!("and.b32 {k_l}, {lane}, 7;"));
                k.push(format!("bfe.u32 {t}, {lane}, 3, 1;"));
                k.push(format!("shl.b32 {t}, {t}, 3;"));
                k.push(format!("add.u32 {k_l}, {k_l}, {t};"));
                k.push(format!("shr.u32 {mn_l}, {lane}, 4;"));
                k.push(format!("shl.b32 {mn_l}, {mn_l}, 3;"));
            }
        }
        let mn = k.reg(RegClass::B32);
        k.push(format!(
            "mad.lo.u32 {mn}, {warp_mn}, {warp_extent}, {mn_l};"
        ));
        // One base whose chunk bits the other k-steps (K-major) or 16-wide
        // blocks (MN-major, warp tile a multiple of a 128-byte line) reach by
        // XOR with 2j chunks; otherwise one base per block.
        let xor_steps =
            smem.major == OperandMajor::K || warp_extent.is_multiple_of(smem.line_elements());
        let nbases = if xor_steps { 1 } else { blocks };
        let mut bases = Vec::new();
        for j in 0..nbases {
            let (line, chunk) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
            match smem.major {
                OperandMajor::K => {
                    k.mov(line, mn);
                    k.mov(chunk, k_l);
                }
                OperandMajor::MN => {
                    let r = smem.line_elements();
                    let m = k.reg(RegClass::B32);
                    k.push(format!("add.u32 {m}, {mn}, {};", 16 * j));
                    k.push(format!("div.u32 {line}, {m}, {r};"));
                    k.push(format!("mad.lo.u32 {line}, {line}, {}, {k_l};", smem.bk));
                    k.push(format!("rem.u32 {chunk}, {m}, {r};"));
                    k.push(format!("shr.u32 {chunk}, {chunk}, 3;"));
                }
            }
            let base = k.reg(RegClass::B32);
            emit_swizzled_offset(k, base, line, chunk);
            if stage_offset != 0 {
                k.push(format!("add.u32 {base}, {base}, {stage_offset};"));
            }
            bases.push(base);
        }
        let frags = [
            k.regs(RegClass::B32, (blocks * 4) as usize),
            k.regs(RegClass::B32, (blocks * 4) as usize),
        ];
        FragState {
            smem,
            bases,
            frags,
            blocks,
        }
    }

    /// ldmatrix x4 of every 16-wide block of k-step `kk` into buffer `buf`.
    pub(super) fn load_frags(
        &self,
        k: &mut Kernel,
        f: &mut FragState,
        kk: u32,
        buf: usize,
        stage_r: Reg,
    ) -> Result<(), PtxError> {
        let (stage_base, addr) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        let single = f.bases.len() == 1;
        if single {
            k.push(format!("add.u32 {stage_base}, {stage_r}, {};", f.bases[0]));
        }
        for blk in 0..f.blocks {
            // (which 2-chunk step to XOR in, immediate line offset)
            let (step, imm) = match f.smem.major {
                OperandMajor::K => (kk, blk * 16 * LINE_BYTES),
                OperandMajor::MN => (blk, kk * 16 * LINE_BYTES),
            };
            if single {
                if blk == 0 || f.smem.major == OperandMajor::MN {
                    k.push(format!("xor.b32 {addr}, {stage_base}, {};", step * 32));
                }
            } else {
                k.push(format!(
                    "add.u32 {addr}, {stage_r}, {};",
                    f.bases[blk as usize]
                ));
            }
            let r = &f.frags[buf][(blk * 4) as usize..(blk * 4 + 4) as usize];
            let at = format!("{addr}+{imm}");
            match f.smem.major {
                OperandMajor::K => SM75_U32x4_LDSM_N::emit(k, r, &at),
                OperandMajor::MN => SM75_U16x8_LDSM_T::emit(k, r, &at),
            }
            .map_err(atom_error)?;
            if self.mma == MmaKind::Tf32 {
                for reg in r {
                    k.push(format!("cvt.rna.tf32.f32 {reg}, {reg};"));
                }
            }
        }
        Ok(())
    }

    /// The MMAs of one k-step: every (m16, n8) tile of the warp tile.
    pub(super) fn mmas(
        &self,
        k: &mut Kernel,
        acc: &Accumulators,
        fa: &FragState,
        fb: &FragState,
        buf: usize,
    ) -> Result<(), PtxError> {
        let atom = self.mma.atom();
        for mi in 0..acc.m_tiles {
            for step in 0..acc.n_tiles {
                // Serpentine over n so consecutive MMAs share an operand.
                let ni = if mi % 2 == 0 {
                    step
                } else {
                    acc.n_tiles - 1 - step
                };
                let a = &fa.frags[buf][(mi * 4) as usize..(mi * 4 + 4) as usize];
                let b0 = ((ni / 2) * 4 + (ni % 2) * 2) as usize;
                let b = &fb.frags[buf][b0..b0 + 2];
                let d = acc.tile(mi, ni);
                atom.emit(k, d, a, b, d).map_err(atom_error)?;
            }
        }
        Ok(())
    }
}
