//! A through registers, for the `_RS` wgmma (CUTLASS's
//! `MainloopSm90TmaGmmaRmemAWarpSpecialized`): wgmma transposes only 16-bit
//! operands, so a tf32 A that is M-major in shared memory cannot be read
//! through a descriptor. Each consumer thread instead loads its A fragment
//! of every k-step from the stage with `ld.shared.b32` (one element per
//! register) and the wgmma reads it from registers.
//!
//! Where each value lies is derived, not written out: the atom's A layout
//! (thread, value) -> (m, k) composed with the stage's swizzled layout of A
//! ([`OperandTile::layout`]) gives every thread's byte offsets. The kernel
//! computes them from the thread index as the stage layout's un-swizzled
//! offset of the thread's bits (each bit of the warpgroup's thread index
//! moves the offset by a fixed stride), plus the value's offset, swizzled
//! at run time (`x ^ ((x & yyy) >> shift)`), plus a constant per 64-row
//! block and k-step. [`AFragment::new`] checks that this decomposition
//! gives the layout's offset for all 128 threads, every value, block and
//! k-step, and refuses the tile otherwise.

use crate::atom::MmaAtom;
use crate::collective::sm90_mma_tma_gmma_ss_warpspecialized::OperandTile;
use crate::layout::Swizzle;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Reg, RegClass};
use crate::tiled::emit_swizzle;

/// Threads of a warpgroup.
const THREADS: i64 = 128;

/// Where the threads of a consumer warpgroup read their A fragments in a
/// stage's A tile.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct AFragment {
    /// For each bit of the warpgroup's thread index: the un-swizzled
    /// element offset it adds.
    thread_bits: Vec<(u32, i64)>,
    /// Per fragment value: its un-swizzled element offset for thread 0.
    values: Vec<i64>,
    /// The stage layout's swizzle (on element offsets).
    swizzle: Swizzle,
    /// Bytes of an element.
    size: i64,
    /// Per 64-row block `mb` and k-step `kk` (block-major): the byte offset
    /// added to every value's address.
    steps: Vec<i64>,
    /// K-steps of a k-tile.
    k_steps: u32,
    /// 64-row blocks of a warpgroup.
    blocks: u32,
}

impl AFragment {
    /// The fragment plan of `atom` (an `_RS` atom of 32-bit A) over `tile`
    /// (A's tile in a stage), for a warpgroup of `blocks` 64-row blocks.
    ///
    /// # Errors
    /// [`crate::Error::Config`] where A is not 32-bit, or where the stage
    /// layout's offsets are not a per-thread base plus per-value,
    /// per-block and per-k-step constants.
    pub(crate) fn new(
        atom: MmaAtom,
        tile: &OperandTile,
        element: ElementType,
        blocks: u32,
    ) -> crate::Result<AFragment> {
        let refuse = |reason: String| crate::Error::Config {
            config: "SM90 mainloop's A fragment".to_string(),
            reason,
        };
        if element.size_bytes() != 4 {
            return Err(refuse(format!(
                "A of {element} through registers: expected a 32-bit element (one per register)"
            )));
        }
        let [atom_m, _, atom_k] = atom.shape_mnk();
        let frag = atom.a_layout();
        let values = frag.size() / THREADS;
        let stage = tile.layout(element)?;
        let k_steps = tile.bk / atom_k as u32;
        // (thread, value, block, k-step) -> the stage's linear index of its
        // element, through the atom's A layout.
        let index = |t: i64, v: i64, mb: u32, kk: u32| -> i64 {
            let idx = frag.at(t + THREADS * v);
            let m = idx % atom_m + atom_m * i64::from(mb);
            let k = idx / atom_m + atom_k * i64::from(kk);
            m + i64::from(tile.mn) * k
        };
        // Its element offset through the stage's layout, and without the swizzle.
        let offset = |t: i64, v: i64, mb: u32, kk: u32| stage.at(index(t, v, mb, kk));
        let unswizzled = |t: i64, v: i64| stage.layout().at(index(t, v, 0, 0));
        let base = unswizzled(0, 0);
        let thread_bits: Vec<(u32, i64)> = (0..THREADS.trailing_zeros())
            .map(|b| (b, unswizzled(1 << b, 0) - base))
            .filter(|&(_, stride)| stride != 0)
            .collect();
        let value_offsets: Vec<i64> = (0..values).map(|v| unswizzled(0, v)).collect();
        let swizzle = stage.swizzle();
        let size = i64::from(element.size_bytes());
        let mut steps = Vec::new();
        for mb in 0..blocks {
            for kk in 0..k_steps {
                steps.push((offset(0, 0, mb, kk) - offset(0, 0, 0, 0)) * size);
            }
        }
        let plan = AFragment {
            thread_bits,
            values: value_offsets,
            swizzle,
            size,
            steps,
            k_steps,
            blocks,
        };
        for t in 0..THREADS {
            for v in 0..values {
                for mb in 0..blocks {
                    for kk in 0..k_steps {
                        let want = offset(t, v, mb, kk) * size;
                        let got = plan.byte_offset(t, v as usize) + plan.step(mb, kk);
                        if want != got {
                            return Err(refuse(format!(
                                "thread {t}, value {v}, block {mb}, k-step {kk} of {stage:?} lies at byte {want}, not at the per-thread base plus constants ({got})"
                            )));
                        }
                    }
                }
            }
        }
        Ok(plan)
    }

    /// Registers of one k-step's fragments: values per thread times blocks.
    pub(crate) fn regs_per_k_step(&self) -> usize {
        self.values.len() * self.blocks as usize
    }

    /// K-steps of a k-tile.
    pub(crate) fn k_steps(&self) -> u32 {
        self.k_steps
    }

    /// The byte offset of value `v` of thread `t` (block 0, k-step 0), as
    /// the kernel computes it.
    fn byte_offset(&self, t: i64, v: usize) -> i64 {
        let thread: i64 = self
            .thread_bits
            .iter()
            .filter(|(b, _)| t >> b & 1 == 1)
            .map(|(_, stride)| stride)
            .sum();
        self.swizzle.apply(thread + self.values[v]) * self.size
    }

    /// The byte offset of block `mb`, k-step `kk`.
    fn step(&self, mb: u32, kk: u32) -> i64 {
        self.steps[(mb * self.k_steps + kk) as usize]
    }

    /// Emits this thread's byte offset of every value in the tile (block 0,
    /// k-step 0), from `tid` (the thread index; its low 7 bits are the
    /// thread's place in its warpgroup) plus `rows_offset` (`.b32`, the
    /// warpgroup's first row's bytes): one `.b32` register per value.
    pub(crate) fn emit_offsets(&self, k: &mut Kernel, tid: Reg, rows_offset: Reg) -> Vec<Reg> {
        let thread = k.reg(RegClass::B32);
        let bit = k.reg(RegClass::B32);
        k.push(format!("mov.u32 {thread}, 0;"));
        for &(b, stride) in &self.thread_bits {
            k.push(format!("bfe.u32 {bit}, {tid}, {b}, 1;"));
            k.push(format!("mad.lo.u32 {thread}, {bit}, {stride}, {thread};"));
        }
        self.values
            .iter()
            .map(|&value| {
                let x = k.reg(RegClass::B32);
                k.push(format!("add.u32 {x}, {thread}, {value};"));
                let x = emit_swizzle(k, x, self.swizzle);
                k.push(format!(
                    "mad.lo.u32 {x}, {x}, {}, {rows_offset};",
                    self.size
                ));
                x
            })
            .collect()
    }

    /// Emits the loads of k-step `kk`'s fragments from the A tile at
    /// `tile` (`.b32` shared address) into `regs` (block-major, values
    /// inner), given the offsets of [`emit_offsets`](Self::emit_offsets).
    pub(crate) fn emit_loads(&self, k: &mut Kernel, addresses: &[Reg], kk: u32, regs: &[Reg]) {
        let values = self.values.len();
        for mb in 0..self.blocks {
            let step = self.step(mb, kk);
            for (v, address) in addresses.iter().enumerate() {
                let reg = regs[mb as usize * values + v];
                k.push(format!("ld.shared.b32 {reg}, [{address}+{step}];"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::atom::{gmma_atom, MmaSource};
    use crate::gemm::OperandMajor;
    use crate::numeric::ElementType::{BF16, F32, TF32};

    fn a_tile(mn: u32) -> OperandTile {
        OperandTile {
            major: OperandMajor::MN,
            mn,
            bk: 32,
            size: 4,
            offset: 0,
            slice_rows: 64,
        }
    }

    fn atom() -> MmaAtom {
        gmma_atom(TF32, TF32, F32, 256, MmaSource::RegisterShared).unwrap()
    }

    #[test]
    fn m_major_tf32_fragments_follow_the_swizzled_stage() {
        let tile = a_tile(128);
        let plan = AFragment::new(atom(), &tile, TF32, 2).unwrap();
        assert_eq!((plan.k_steps(), plan.regs_per_k_step()), (4, 8));
        // Thread 5 is lane 5 of warp 0: group 1, thread-in-group 1, so its
        // value 0 is (m 1, k 1) (PTX ISA, the m64nNk8 tf32 A fragment):
        // byte 1 x 4 + 1 x 128 = 132 before the 128-byte swizzle, whose
        // row bits (7-9: 1) flip the 16-byte chunk bits (4-6): 148.
        assert_eq!(plan.byte_offset(5, 0), 148);
        let stage = tile.layout(TF32).unwrap();
        assert_eq!(stage.at(1 + 128) * 4, 148);
        // Value 3 of thread 5 is (m 9, k 5): 9 x 4 + 5 x 128 = 676, chunk
        // 2 xor row 5 = chunk 7: 676 - 32 + 112 = 756.
        assert_eq!(plan.byte_offset(5, 3), 756);
        // Block 1 starts two 32-row atoms of 32 k-rows in; k-step 2 sixteen
        // rows of 128 bytes.
        assert_eq!(plan.step(1, 2), 2 * 32 * 128 + 2 * 8 * 128);
    }

    #[test]
    fn a_16_bit_a_through_registers_is_refused() {
        let tile = OperandTile {
            size: 2,
            bk: 64,
            ..a_tile(128)
        };
        let atom16 = gmma_atom(BF16, BF16, F32, 256, MmaSource::RegisterShared).unwrap();
        let e = AFragment::new(atom16, &tile, BF16, 1).unwrap_err();
        assert!(e.to_string().contains("32-bit"), "{e}");
    }
}
