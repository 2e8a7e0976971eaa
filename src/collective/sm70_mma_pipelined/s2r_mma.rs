//! The shared-to-register fragment loads and the MMAs of
//! [`Sm70MmaPipelined`]: per k-group (two k-steps), one 128-bit
//! `ld.shared` per atom of a K-major operand or one 64-bit `ld.shared` per
//! atom and k-step of an MN-major one ([`UniversalCopy`]), into two
//! fragment buffers, and the quad pairs' `mma.sync.m8n8k4` through
//! [`MmaAtom::emit`](crate::atom::MmaAtom::emit).

use super::{atom_error, Sm70MmaPipelined};
use crate::atom::{MemorySpace, UniversalCopy};
use crate::collective::MainloopInputs;
use crate::layout::{IntTuple, Layout};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::{emit_layout_offset, emit_swizzle, Operand, RegisterTensor};

/// One fragment load: which base, the XOR immediate into it and the
/// address immediate (bytes), and the fragment's local values it fills.
struct FragLoad {
    base: usize,
    xor: u32,
    add: u32,
    values: Vec<i64>,
}

/// Per-operand fragment state: load bases, the loads of each k-group and
/// the two fragment buffers `(FrgV, RestMN, 2)` of one k-group.
pub(super) struct FragState {
    bases: Vec<Reg>,
    loads: Vec<Vec<FragLoad>>,
    frags: [RegisterTensor; 2],
}

impl Sm70MmaPipelined {
    /// Load bases from the tiled MMA's partition of the operand's stage:
    /// the thread part emitted once and swizzled, each load's value part an
    /// XOR immediate and an address immediate where the thread's and the
    /// value's bits never meet, else one base per distinct part below the
    /// swizzle's period. Every load's values are checked to be contiguous
    /// in shared memory for every thread.
    pub(super) fn frag_setup(
        &self,
        k: &mut Kernel,
        op: Operand,
        inp: &MainloopInputs,
        operand_offset: u32,
    ) -> Result<FragState, PtxError> {
        let (smem, element) = self.operand(op).map_err(atom_error)?;
        let p = self.fragment_partition(op).map_err(atom_error)?;
        let along = self.atoms_along(op).map_err(atom_error)?;
        let shift = smem.element_bytes.trailing_zeros();
        let unsupported = |reason: String| PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::from("sm70 mainloop"),
            reason,
        };
        let to_bytes = |v: i64| {
            u32::try_from(v << shift).map_err(|_| {
                unsupported(format!(
                    "fragment offset {v} of a stage: expected a non-negative 32-bit offset"
                ))
            })
        };
        let finish = |k: &mut Kernel, base: Reg| {
            k.push(format!("shl.b32 {base}, {base}, {shift};"));
            k.push(format!("add.u32 {base}, {base}, {};", inp.smem));
            if operand_offset != 0 {
                k.push(format!("add.u32 {base}, {base}, {operand_offset};"));
            }
        };
        let split = p.val_xor_add();
        let mut bases = Vec::new();
        let mut lows: Vec<i64> = Vec::new();
        let thr = match &split {
            Some(_) => {
                let base = p.emit_thread_base(k, inp.tid).map_err(atom_error)?;
                finish(k, base);
                bases.push(base);
                None
            }
            None => Some(emit_layout_offset(k, p.thr(), inp.tid).map_err(atom_error)?),
        };
        let period = p.swizzle().period();
        let mut loads = Vec::new();
        for g in 0..self.k_groups() as i64 {
            let mut group = Vec::new();
            for values in self.fragment_loads(op, g).map_err(atom_error)? {
                let v0 = values[0];
                for t in 0..p.threads() {
                    let first = p.offset(t, v0);
                    if values
                        .iter()
                        .enumerate()
                        .any(|(i, &v)| p.offset(t, v) != first + i as i64)
                        || first % values.len() as i64 != 0
                    {
                        return Err(unsupported(format!(
                            "thread {t}'s fragment values {values:?} of operand {op:?} are not {} contiguous aligned elements of the stage",
                            values.len()
                        )));
                    }
                }
                let (base, xor, add) = match (&split, thr) {
                    (Some(split), _) => (0, split[v0].0, split[v0].1),
                    (None, Some(thr)) => {
                        let value = p.val()[v0];
                        let (low, add) =
                            (value.rem_euclid(period), value - value.rem_euclid(period));
                        let at = match lows.iter().position(|&l| l == low) {
                            Some(at) => at,
                            None => {
                                let base = k.reg(RegClass::B32);
                                k.push(format!(
                                    "add.s32 {base}, {thr}, {};",
                                    low + p.base_offset()
                                ));
                                emit_swizzle(k, base, p.swizzle());
                                finish(k, base);
                                bases.push(base);
                                lows.push(low);
                                lows.len() - 1
                            }
                        };
                        (at, 0, add)
                    }
                    (None, None) => unreachable!("the thread offset exists without a split"),
                };
                let local = 8 * along * g;
                group.push(FragLoad {
                    base,
                    xor: to_bytes(xor)?,
                    add: to_bytes(add)?,
                    values: values.iter().map(|&v| v as i64 - local).collect(),
                });
            }
            loads.push(group);
        }
        let layout = Layout::from_parts(
            IntTuple::ints(&[4, along, 2]),
            IntTuple::ints(&[1, 4, 4 * along]),
        );
        let class = self.mma.regs().ab_class;
        let mut buffer =
            || RegisterTensor::allocate(k, class, layout.clone(), element).map_err(atom_error);
        let frags = [buffer()?, buffer()?];
        Ok(FragState {
            bases,
            loads,
            frags,
        })
    }

    /// The fragment loads of k-group `g` from the stage at byte offset
    /// `stage` into buffer `buf`.
    pub(super) fn load_frags(
        &self,
        k: &mut Kernel,
        f: &mut FragState,
        g: u32,
        buf: usize,
        stage: u32,
    ) -> Result<(), PtxError> {
        let addr = k.reg(RegClass::B32);
        for load in &f.loads[g as usize] {
            let base = f.bases[load.base];
            let at = if load.xor != 0 {
                k.push(format!("xor.b32 {addr}, {base}, {};", load.xor));
                format!("{addr}+{}", load.add + stage)
            } else {
                format!("{base}+{}", load.add + stage)
            };
            let mut regs: Vec<Reg> = Vec::new();
            for &v in &load.values {
                let (reg, _) = f.frags[buf].value(v);
                if !regs.contains(&reg) {
                    regs.push(reg);
                }
            }
            match regs.len() {
                4 => UniversalCopy::<128>::emit_load(k, MemorySpace::Shared, &regs, &at),
                _ => UniversalCopy::<64>::emit_load(k, MemorySpace::Shared, &regs, &at),
            }
            .map_err(atom_error)?;
        }
        Ok(())
    }

    /// The MMAs of one k-group: both k-steps, every (m8, n8) atom of the
    /// quad pair's tile, serpentine over N.
    pub(super) fn mmas(
        &self,
        k: &mut Kernel,
        acc: &RegisterTensor,
        fa: &FragState,
        fb: &FragState,
        buf: usize,
    ) -> Result<(), PtxError> {
        let [_, m_tiles, n_tiles] = acc.mode_sizes()[..] else {
            unreachable!("the accumulators are (FrgV, RestM, RestN)");
        };
        for kk in 0..2 {
            for mi in 0..m_tiles {
                for step in 0..n_tiles {
                    let ni = if mi % 2 == 0 {
                        step
                    } else {
                        n_tiles - 1 - step
                    };
                    let a = fa.frags[buf].atom_regs(&[mi, kk]);
                    let b = fb.frags[buf].atom_regs(&[ni, kk]);
                    let d = acc.atom_regs(&[mi, ni]);
                    self.mma.emit(k, &d, &a, &b, &d).map_err(atom_error)?;
                }
            }
        }
        Ok(())
    }
}
