//! [`PartialTile`]: how a K-splitting scheduler ([`SplitK`](super::SplitK),
//! [`StreamK`](super::StreamK)) keeps a work unit's partial tile in its
//! workspace: the consumer threads' f32 accumulators in a slot, stored by
//! one unit and added by the unit that finishes the tile.
//!
//! Value `v` of consumer thread `t` lies at byte `((v / 4) * threads + t) *
//! 16 + (v % 4) * 4` of the slot where each thread holds a multiple of 4
//! values: every access is a 16-byte vector and a warp's 32 accesses are
//! 512 contiguous bytes. Otherwise value `v` lies at `(v * threads + t) *
//! 4`. Only the same thread of another unit reads a value back, so any
//! fixed layout gives the same sums; this one takes a quarter of the
//! instructions of one value per access.

use crate::ptx::{Kernel, Reg, RegClass};

/// A slot's layout for `values` f32 accumulators in each of `threads`
/// consumer threads.
///
/// ```
/// use cutlet::kernel::gemm::PartialTile;
///
/// // 128 x 128 over 256 threads: 64 values each, in 16-byte vectors.
/// let slot = PartialTile { threads: 256, values: 64 };
/// assert_eq!(slot.bytes(), 128 * 128 * 4);
/// assert_eq!(slot.offset(0, 0), 0);
/// assert_eq!(slot.offset(0, 3), 12);
/// assert_eq!(slot.offset(1, 3), 16 + 12);
/// assert_eq!(slot.offset(5, 4), (256 + 5) * 16);
/// // 6 values a thread: one value per access.
/// assert_eq!(PartialTile { threads: 256, values: 6 }.offset(5, 4), (4 * 256 + 5) * 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PartialTile {
    /// Consumer threads that hold the tile together.
    pub threads: u32,
    /// f32 accumulators each thread holds.
    pub values: u32,
}

impl PartialTile {
    /// Values per access: 4 where every thread holds a multiple of 4.
    pub const fn vector(&self) -> u32 {
        if self.values.is_multiple_of(4) {
            4
        } else {
            1
        }
    }

    /// Bytes of one slot: every thread's values.
    pub const fn bytes(&self) -> u32 {
        4 * self.threads * self.values
    }

    /// Byte offset of value `value` of thread `thread` in a slot.
    pub const fn offset(&self, thread: u32, value: u32) -> u32 {
        let v = self.vector();
        ((value / v) * self.threads + thread) * 4 * v + (value % v) * 4
    }

    /// Emits the thread's first value's offset in a slot (`.b32`) from its
    /// index among the consumer threads.
    pub fn emit_thread_offset(&self, k: &mut Kernel, thread: Reg) -> Reg {
        let offset = k.reg(RegClass::B32);
        k.push(format!(
            "mul.lo.u32 {offset}, {thread}, {};",
            4 * self.vector()
        ));
        offset
    }

    /// The byte offset of access `group` (values `group * vector ..`)
    /// from the thread's first value.
    fn group_offset(&self, group: u32) -> u32 {
        group * self.threads * 4 * self.vector()
    }

    /// Emits the stores of `regs` (the thread's values) at `at` (`.b64`: the
    /// slot's address plus [`emit_thread_offset`](Self::emit_thread_offset))
    /// plus `bytes`.
    pub fn emit_store(&self, k: &mut Kernel, at: Reg, bytes: u32, regs: &[Reg]) {
        self.emit_writes(k, "st.global", at, bytes, regs);
    }

    /// Emits `op` (a store or a reduction, `st.global` or
    /// `red.relaxed.gpu.global.add`) of `regs` at `at` plus `bytes`, in the
    /// slot's layout: a 16-byte vector per group where the thread holds a
    /// multiple of 4 values, else one value per access.
    fn emit_writes(&self, k: &mut Kernel, op: &str, at: Reg, bytes: u32, regs: &[Reg]) {
        let v = self.vector() as usize;
        for (group, chunk) in regs.chunks(v).enumerate() {
            let offset = bytes + self.group_offset(group as u32);
            match chunk {
                [a, b, c, d] => k.push(format!(
                    "{op}.v4.f32 [{at}+{offset}], {{{a}, {b}, {c}, {d}}};"
                )),
                _ => {
                    for (i, reg) in chunk.iter().enumerate() {
                        k.push(format!("{op}.f32 [{at}+{}], {reg};", offset + 4 * i as u32));
                    }
                }
            }
        }
    }

    /// Emits `red.global.add` of `regs` (the thread's values) into the
    /// slot at `at` (as [`emit_store`](Self::emit_store) lays them out):
    /// the atomic reduction's hand-over.
    pub fn emit_red_add(&self, k: &mut Kernel, at: Reg, regs: &[Reg]) {
        self.emit_writes(k, "red.relaxed.gpu.global.add", at, 0, regs);
    }

    /// Emits the addition of the slot at `at` (plus the thread's offset)
    /// into `regs`, `total + reg` for each value, the loads of 4 groups
    /// ahead of their additions: a slot that already holds the other
    /// units' sum (the spread reduction's).
    pub fn emit_add_slot(&self, k: &mut Kernel, at: Reg, regs: &[Reg]) {
        let groups: Vec<_> = self.groups().collect();
        for batch in groups.chunks(4) {
            let sums: Vec<Vec<Reg>> = batch
                .iter()
                .map(|group| self.emit_load_group(k, at, 0, group.clone(), true))
                .collect();
            for (group, sum) in batch.iter().zip(&sums) {
                for (reg, total) in regs[group.clone()].iter().zip(sum) {
                    k.push(format!("add.f32 {reg}, {total}, {reg};"));
                }
            }
        }
    }

    /// Emits the atomic reduction's finish: the slot at `at` (the other
    /// units' sum) added into `regs`, then the slot set back to 0 for the
    /// next launch.
    pub fn emit_take_and_zero(&self, k: &mut Kernel, at: Reg, regs: &[Reg]) {
        self.emit_add_slot(k, at, regs);
        let zero = k.reg(RegClass::F32);
        k.push(format!("mov.f32 {zero}, 0f00000000;"));
        self.emit_store(k, at, 0, &vec![zero; regs.len()]);
    }

    /// The thread's values in groups of one access each: the indices of
    /// the values of each group.
    pub fn groups(&self) -> impl Iterator<Item = std::ops::Range<usize>> {
        let v = self.vector() as usize;
        (0..self.values as usize / v).map(move |g| g * v..(g + 1) * v)
    }

    /// Emits the load of the values of `group` (one of
    /// [`groups`](Self::groups)) at `at` plus `bytes` into fresh registers,
    /// in one access where `vector` (else a value per access: a reduction
    /// that holds many slots' values at once leaves the assembler free to
    /// place each in any register).
    pub fn emit_load_group(
        &self,
        k: &mut Kernel,
        at: Reg,
        bytes: u32,
        group: std::ops::Range<usize>,
        vector: bool,
    ) -> Vec<Reg> {
        let values: Vec<Reg> = group.clone().map(|_| k.reg(RegClass::F32)).collect();
        let offset = bytes + self.group_offset((group.start / self.vector() as usize) as u32);
        match values.as_slice() {
            [a, b, c, d] if vector => k.push(format!(
                "ld.global.v4.f32 {{{a}, {b}, {c}, {d}}}, [{at}+{offset}];"
            )),
            _ => {
                for (i, reg) in values.iter().enumerate() {
                    k.push(format!(
                        "ld.global.f32 {reg}, [{at}+{}];",
                        offset + 4 * i as u32
                    ));
                }
            }
        }
        values
    }

    /// Emits a unit's hand-over of its partial tile: every consumer
    /// thread's `regs` stored at `at` (its slot plus the thread's offset),
    /// the consumer threads' named barrier `barrier`, then one release
    /// arrival on the tile's counter at `counter` by the `leader` thread.
    /// With [`Reduction::Atomic`](crate::kernel::gemm::Reduction::Atomic)
    /// the values are added into the slot ([`emit_red_add`](Self::emit_red_add))
    /// instead of stored.
    #[allow(clippy::too_many_arguments)]
    pub fn emit_store_and_arrive(
        &self,
        k: &mut Kernel,
        at: Reg,
        regs: &[Reg],
        barrier: u32,
        leader: Reg,
        counter: Reg,
        reduction: crate::kernel::gemm::Reduction,
    ) {
        match reduction {
            crate::kernel::gemm::Reduction::Deterministic => self.emit_store(k, at, 0, regs),
            crate::kernel::gemm::Reduction::Atomic => self.emit_red_add(k, at, regs),
        }
        self.emit_arrive(k, barrier, leader, counter);
    }

    /// Emits one arrival after the consumer threads' writes: the named
    /// barrier `barrier`, then a release addition of 1 to the counter at
    /// `counter` by the `leader` thread.
    pub fn emit_arrive(&self, k: &mut Kernel, barrier: u32, leader: Reg, counter: Reg) {
        k.push(format!("bar.sync {barrier}, {};", self.threads));
        k.push(format!("@{leader} fence.acq_rel.gpu;"));
        k.push(format!(
            "@{leader} red.release.gpu.global.add.u32 [{counter}], 1;"
        ));
    }

    /// Emits a unit's wait: the `leader` thread spins with acquire loads
    /// until the counter at `counter` reads `expected` (a register or a
    /// literal), sets it back to 0 where `reset` (the finishing unit: no
    /// other unit touches it again in this launch; without it other units
    /// still arrive, as at the spread reduction's first wait), and the
    /// consumer threads meet at `barrier`.
    ///
    /// # Errors
    /// The assembler's error (labels).
    pub fn emit_wait(
        &self,
        k: &mut Kernel,
        leader: Reg,
        counter: Reg,
        expected: &str,
        barrier: u32,
        reset: bool,
    ) -> Result<(), crate::ptx::PtxError> {
        let spun = k.new_label("fixup_spun")?;
        let spin = k.new_label("fixup_spin")?;
        k.push(format!("@!{leader} bra {};", spun.name()));
        let (count, wait) = (k.reg(RegClass::B32), k.reg(RegClass::Pred));
        k.place_label(&spin);
        k.push(format!("ld.acquire.gpu.global.u32 {count}, [{counter}];"));
        k.push(format!("setp.lt.u32 {wait}, {count}, {expected};"));
        k.push(format!("@{wait} bra {};", spin.name()));
        if reset {
            k.push(format!("st.relaxed.gpu.global.u32 [{counter}], 0;"));
        }
        k.place_label(&spun);
        k.push(format!("bar.sync {barrier}, {};", self.threads));
        Ok(())
    }

    /// Emits one unit's share of a reduction spread over `parts` units:
    /// chunk `chunk` (`.b32`, 0 to `parts - 1`) of the first `parts` slots
    /// of a record, whose slot 0 starts at `slots` (`.b64`), added slot by
    /// slot in order and stored over the chunk of slot 0. The slots are
    /// summed as 16-byte vectors, whatever their layout: chunk `c` is vectors
    /// `c * V / parts .. (c + 1) * V / parts` of a slot's `V`, and consumer
    /// thread `thread` takes every `threads`-th of them from its index on,
    /// in a loop (one vector of every slot in flight per thread, in batches
    /// of 8 slots: a bounded number of registers whatever `parts` is).
    /// Each value's sum runs in the order [`SplitK`](super::SplitK)'s
    /// finisher adds the slots, so spreading the reduction changes no bit.
    ///
    /// # Errors
    /// The assembler's error (labels).
    pub fn emit_chunk_sum(
        &self,
        k: &mut Kernel,
        slots: Reg,
        parts: u32,
        chunk: Reg,
        thread: Reg,
    ) -> Result<(), crate::ptx::PtxError> {
        let vectors = self.bytes() / 16;
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (index, end) = (r(k), r(k));
        k.push(format!("mul.lo.u32 {index}, {chunk}, {vectors};"));
        k.div_u32_by(index, index, parts);
        k.push(format!("add.u32 {index}, {index}, {thread};"));
        k.push(format!("add.u32 {end}, {chunk}, 1;"));
        k.push(format!("mul.lo.u32 {end}, {end}, {vectors};"));
        k.div_u32_by(end, end, parts);
        let top = k.new_label("chunk_sum")?;
        let exit = k.new_label("chunk_sum_done")?;
        let (at, wide, past) = (
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::Pred),
        );
        k.place_label(&top);
        k.push(format!("setp.ge.u32 {past}, {index}, {end};"));
        k.push(format!("@{past} bra {};", exit.name()));
        k.push(format!("mul.wide.u32 {wide}, {index}, 16;"));
        k.push(format!("add.u64 {at}, {slots}, {wide};"));
        let slot_bytes = self.bytes();
        let load = |k: &mut Kernel, slot: u32| -> [Reg; 4] {
            let v = [0; 4].map(|_| k.reg(RegClass::F32));
            k.push(format!(
                "ld.global.v4.f32 {{{}, {}, {}, {}}}, [{at}+{}];",
                v[0],
                v[1],
                v[2],
                v[3],
                slot * slot_bytes
            ));
            v
        };
        let sum = load(k, 0);
        let mut slot = 1;
        while slot < parts {
            let batch: Vec<[Reg; 4]> = (slot..parts.min(slot + 8)).map(|s| load(k, s)).collect();
            for value in &batch {
                for (total, v) in sum.iter().zip(value) {
                    k.push(format!("add.f32 {total}, {total}, {v};"));
                }
            }
            slot += batch.len() as u32;
        }
        k.push(format!(
            "st.global.v4.f32 [{at}], {{{}, {}, {}, {}}};",
            sum[0], sum[1], sum[2], sum[3]
        ));
        k.push(format!("add.u32 {index}, {index}, {};", self.threads));
        k.push(format!("bra.uni {};", top.name()));
        k.place_label(&exit);
        Ok(())
    }
}
