//! The shared-to-register loads and MMAs of [`Sm80MmaMultistage`]:
//! `ldmatrix` x4 or x2 (atoms [`SM75_U32x4_LDSM_N`], [`SM75_U16x8_LDSM_T`],
//! [`SM75_U32x2_LDSM_N`], [`SM75_U16x4_LDSM_T`]) into
//! double-buffered fragments, or, for an MN-major tf32 operand, one 32-bit
//! `ld.shared` per fragment register ([`UniversalCopy<32>`]), and the warp
//! tile's `mma.sync` through [`MmaAtom::emit`](crate::atom::MmaAtom::emit).

use super::super::OperandSmem;
use super::{atom_error, Sm80MmaMultistage};
use crate::atom::{
    MemorySpace, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N,
    UniversalCopy,
};
use crate::collective::SMEM_ALIGN;
use crate::gemm::OperandMajor;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::{emit_layout_offset, emit_swizzle, Operand, RegisterTensor};

/// Per-operand fragment state: load bases and the fragment buffers.
pub(super) struct FragState {
    smem: OperandSmem,
    bases: Vec<Reg>,
    /// Per instruction (fragment registers of a k-step first, then k-step):
    /// which base, the XOR immediate into it and the address immediate, in
    /// bytes.
    instructions: Vec<(usize, u32, u32)>,
    /// The two buffers of one k-step's fragment, `(FrgV, RestMN)`.
    frags: [RegisterTensor; 2],
    /// Instructions per k-step.
    per_kstep: u32,
    /// Fragment registers one instruction fills: 4 (`ldmatrix` x4), 2
    /// (`ldmatrix` x2) or 1 (32-bit `ld.shared`).
    width: u32,
    /// Whether the loads are `ldmatrix` (else 32-bit `ld.shared`).
    ldmatrix: bool,
}

impl Sm80MmaMultistage {
    /// Load bases from the tiled MMA's `ldmatrix` partition of the
    /// operand's stage (or, without `ldmatrix`, its fragment partition for
    /// 32-bit loads): the thread part emitted once and swizzled, each
    /// instruction's value part an XOR immediate (the bits the swizzle
    /// reads or writes) and an address immediate (the bits above). Where a
    /// thread's bits meet an instruction's XOR bits, one base per distinct
    /// low part instead, swizzled at setup.
    pub(super) fn frag_setup(
        &self,
        k: &mut Kernel,
        op: Operand,
        tid: Reg,
        stage_offset: u32,
    ) -> Result<FragState, PtxError> {
        let smem = match op {
            Operand::A => self.a,
            _ => self.b,
        };
        let ldmatrix = self.uses_ldmatrix(op).map_err(atom_error)?;
        let regs_per_kstep = self.fragment_registers(op).map_err(atom_error)?;
        let (p, width) = if ldmatrix {
            (
                self.ldsm(op).map_err(atom_error)?,
                self.ldsm_matrices(op).map_err(atom_error)?,
            )
        } else {
            (self.fragment_loads(op).map_err(atom_error)?, 1)
        };
        let shift = smem.element_bytes.trailing_zeros();
        let to_bytes = |v: i64| {
            u32::try_from(v << shift).map_err(|_| PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: String::from("sm80 mainloop"),
                reason: format!(
                    "ldmatrix offset {v} of a stage: expected a non-negative 32-bit offset"
                ),
            })
        };
        let finish = |k: &mut Kernel, base: Reg| {
            k.push(format!("shl.b32 {base}, {base}, {shift};"));
            if stage_offset != 0 {
                k.push(format!("add.u32 {base}, {base}, {stage_offset};"));
            }
        };
        let mut bases = Vec::new();
        let mut instructions = Vec::new();
        // XOR into `stage + base` is XOR into `base` when every stage
        // address is a multiple of the swizzle's period (in bytes).
        let period_bytes = p.swizzle().period() << shift;
        let aligned = [stage_offset, self.stage_bytes(), SMEM_ALIGN]
            .iter()
            .all(|&b| i64::from(b) % period_bytes == 0);
        if let Some(split) = p.val_xor_add().filter(|_| aligned) {
            let base = p.emit_thread_base(k, tid).map_err(atom_error)?;
            finish(k, base);
            bases.push(base);
            for (xor, add) in split {
                instructions.push((0, to_bytes(xor)?, to_bytes(add)?));
            }
        } else {
            let thr = emit_layout_offset(k, p.thr(), tid).map_err(atom_error)?;
            let period = p.swizzle().period();
            let mut lows: Vec<i64> = Vec::new();
            for &v in p.val() {
                let (low, add) = (v.rem_euclid(period), v - v.rem_euclid(period));
                let at = match lows.iter().position(|&l| l == low) {
                    Some(at) => at,
                    None => {
                        let base = k.reg(RegClass::B32);
                        k.push(format!("add.s32 {base}, {thr}, {};", low + p.base_offset()));
                        emit_swizzle(k, base, p.swizzle());
                        finish(k, base);
                        bases.push(base);
                        lows.push(low);
                        lows.len() - 1
                    }
                };
                instructions.push((at, 0, to_bytes(add)?));
            }
        }
        let (class, element) = (self.mma.regs().ab_class, self.operand_atom_type(op));
        let layout = self.fragment_layout(op).map_err(atom_error)?;
        let mut buffer =
            || RegisterTensor::allocate(k, class, layout.clone(), element).map_err(atom_error);
        let frags = [buffer()?, buffer()?];
        Ok(FragState {
            smem,
            bases,
            instructions,
            frags,
            per_kstep: regs_per_kstep / width,
            width,
            ldmatrix,
        })
    }

    /// The fragment loads of k-step `kk` (`ldmatrix` x4 of every 16-wide
    /// block, or a 32-bit load of every register) into buffer `buf`.
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
        let mut xored = None;
        for i in 0..f.per_kstep {
            let (base, xor, imm) = f.instructions[(i + f.per_kstep * kk) as usize];
            if single {
                // The stage address is a multiple of the swizzle's period,
                // so XOR after adding it is XOR before.
                if xored != Some(xor) {
                    k.push(format!("xor.b32 {addr}, {stage_base}, {xor};"));
                    xored = Some(xor);
                }
            } else {
                k.push(format!("add.u32 {addr}, {stage_r}, {};", f.bases[base]));
            }
            let r = &f.frags[buf].regs()[(i * f.width) as usize..((i + 1) * f.width) as usize];
            let at = format!("{addr}+{imm}");
            match (f.ldmatrix, f.smem.major, f.width) {
                (false, _, _) => UniversalCopy::<32>::emit_load(k, MemorySpace::Shared, r, &at),
                (true, OperandMajor::K, 2) => SM75_U32x2_LDSM_N::emit(k, r, &at),
                (true, OperandMajor::MN, 2) => SM75_U16x4_LDSM_T::emit(k, r, &at),
                (true, OperandMajor::K, _) => SM75_U32x4_LDSM_N::emit(k, r, &at),
                (true, OperandMajor::MN, _) => SM75_U16x8_LDSM_T::emit(k, r, &at),
            }
            .map_err(atom_error)?;
            if self.mma.types().a == ElementType::TF32 {
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
        acc: &RegisterTensor,
        fa: &FragState,
        fb: &FragState,
        buf: usize,
    ) -> Result<(), PtxError> {
        let atom = self.mma;
        let [_, m_tiles, n_tiles] = acc.mode_sizes()[..] else {
            unreachable!("the accumulators are (FrgV, RestM, RestN)");
        };
        for mi in 0..m_tiles {
            for step in 0..n_tiles {
                // Serpentine over n so consecutive MMAs share an operand.
                let ni = if mi % 2 == 0 {
                    step
                } else {
                    n_tiles - 1 - step
                };
                let a = fa.frags[buf].atom_regs(&[mi]);
                let b = fb.frags[buf].atom_regs(&[ni]);
                let d = acc.atom_regs(&[mi, ni]);
                atom.emit(k, &d, &a, &b, &d).map_err(atom_error)?;
            }
        }
        Ok(())
    }
}
