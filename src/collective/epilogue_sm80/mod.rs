//! [`EpilogueSm80`]: D = alpha * acc + beta * C, staged through shared
//! memory so that C is read and D written in coalesced 16-byte vectors.
//!
//! 1. Every thread writes its accumulators (as f32) into a staging tile of
//!    the whole CTA tile in shared memory, laid out with D's contiguous
//!    dimension innermost and rows padded against bank conflicts; where
//!    each accumulator goes is the tiled MMA's C partition of that tile.
//! 2. After `bar.sync`, each thread takes 16-byte vectors of D: a fixed
//!    column of vectors, rows `rows_per_pass` apart. For each it reads the
//!    staged accumulators, reads C's vector at the same place (only when
//!    beta is not 0), computes `alpha * acc + beta * c` in f32, converts and
//!    stores. Each element of C is read by the thread that then writes the
//!    same element of D, so D may alias C.
//! 3. Ragged edges: rows past the edge are skipped; a vector that straddles
//!    the contiguous edge is read and written element by element.
//!
//! Step 1 is unrolled (the accumulators are registers); step 2 is a loop
//! over the passes, unrolled up to 2 passes per iteration, and the threads
//! whose vector the contiguous edge cuts run their own pass loop around a
//! rolled loop over the vector's elements inside the edge, so the driver's
//! assembler schedules short bodies (it spends its time on the mainloop;
//! every epilogue instruction adds to a new configuration's first run).
//!
//! Every load and store is a [`UniversalCopy`] atom: the staging tile's
//! f32 pairs, singles and 16-byte reads at [`CopyValue::F32`], C's and D's
//! 16-byte vectors as `.b32` words, and the cut vectors' elements and the
//! biases at the element's own type (`.f32`, `.b16`, or a bf16 as `.u16`).
//!
//! A fused [`Epilogue`] replaces
//! `alpha * acc + beta * c` by its expression over (acc, c, bias...), with
//! the bias vectors read as `epilogue_fusion.rs` says.

mod contract;

mod edge;
mod store;
mod values;

use super::sm80_mma_multistage::Accumulators;
use super::tiled_mma_of::context_tiled_mma;
use super::{EpilogueSpec, TileContext};
use crate::arch::ArchKind;
use crate::atom::{CopyValue, MemorySpace, UniversalCopy};
use crate::collective::VECTOR_BYTES;
use crate::gemm::OutputMajor;
use crate::gemm::{Epilogue, GemmMajors, GemmTypes};

use crate::layout::{IntTuple, Layout};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};
use crate::tiled::{emit_layout_offset, Operand, RegisterTensor, ThreadPartition};

/// f32 elements of padding per row of the epilogue's staging tile (N-major
/// staging: rows of BN, M-major staging: rows of BM), so that the
/// accumulator fragments store without bank conflicts.
pub(crate) const fn epilogue_pad(major: OutputMajor) -> u32 {
    match major {
        OutputMajor::N => 8,
        OutputMajor::M => 4,
    }
}

/// Bytes of the staging tile of a `tile` with D `major`: the f32
/// accumulators of the whole CTA tile, rows padded by [`epilogue_pad`].
/// The one formula the epilogue's shared storage and the const
/// configuration rules use.
pub(crate) const fn staging_bytes(tile: [u32; 3], major: OutputMajor) -> u32 {
    let [bm, bn, _] = tile;
    let pad = epilogue_pad(major);
    match major {
        OutputMajor::N => bm * (bn + pad) * 4,
        OutputMajor::M => bn * (bm + pad) * 4,
    }
}

/// Registers the kernel hands to the epilogue.
#[derive(Clone, Debug)]
pub struct EpilogueInputs {
    /// `%tid.x`.
    pub tid: Reg,
    /// Shared-window address of the dynamic shared memory.
    pub smem: Reg,
    /// Global address of D's element (m0, n0) in this batch.
    pub d_tile: Reg,
    /// Global address of C's element (m0, n0) in this batch.
    pub c_tile: Reg,
    /// D's leading dimension in bytes (`.b64`).
    pub ldd_bytes: Reg,
    /// C's leading dimension in bytes (`.b64`).
    pub ldc_bytes: Reg,
    /// `M - m0` (`.b32`).
    pub m_rem: Reg,
    /// `N - n0` (`.b32`).
    pub n_rem: Reg,
    /// alpha (`.f32`).
    pub alpha: Reg,
    /// beta (`.f32`).
    pub beta: Reg,
    /// Per bias vector of the spec's epilogue: the global address (`.b64`)
    /// of its element at the tile's origin along its axis (m0 for a row
    /// bias, n0 for a column bias).
    pub biases: Vec<Reg>,
    /// The epilogue's extra scalars s2, s3, ... (`.f32`).
    pub scalars: Vec<Reg>,
}

/// How the threads of a block take the 16-byte vectors of D's staging
/// tile ([`EpilogueSm80::vector_mapping`]): thread `t < threads` takes
/// vector column `t % along` of each segment of `along` vectors, rows
/// `t / along + p * rows_per_pass`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VectorMapping {
    /// Threads along a row.
    pub along: u32,
    /// Rows one pass covers.
    pub rows_per_pass: u32,
    /// Column segments of `along` vectors in a row.
    pub segments: u32,
    /// Threads that store (`along * rows_per_pass`); the rest are idle.
    pub threads: u32,
}

fn gcd(a: u32, b: u32) -> u32 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// What the SM80 epilogue is generated from: the kernel's [`TileContext`]
/// and the fusion expression of its [`EpilogueSpec`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct EpilogueFacts {
    pub(crate) arch: ArchKind,
    pub(crate) types: GemmTypes,
    pub(crate) majors: GemmMajors,
    pub(crate) tile: [u32; 3],
    pub(crate) warps: [u32; 3],
    pub(crate) epilogue: Epilogue,
}

impl EpilogueFacts {
    pub(crate) fn block_threads(&self) -> u32 {
        self.warps.iter().product::<u32>() * 32
    }

    pub(crate) fn context(&self) -> TileContext {
        TileContext {
            arch: self.arch,
            types: self.types,
            majors: self.majors,
            tile: self.tile,
            warps: self.warps,
        }
    }
}

/// The SM80 epilogue: the accumulators staged through shared memory, then
/// the fusion expression and vector stores of D.
#[derive(Clone, Debug)]
pub struct EpilogueSm80 {
    spec: EpilogueFacts,
}

impl EpilogueSm80 {
    /// The epilogue of a kernel with context `ctx` and epilogue `spec`.
    pub fn new(ctx: &TileContext, spec: &EpilogueSpec) -> Self {
        EpilogueSm80 {
            spec: EpilogueFacts {
                arch: ctx.arch,
                types: ctx.types,
                majors: ctx.majors,
                tile: ctx.tile,
                warps: ctx.warps,
                epilogue: spec.fusion.clone(),
            },
        }
    }

    /// Elements of D in one 16-byte vector.
    pub fn vector_elements(&self) -> u32 {
        VECTOR_BYTES / self.spec.types.d.size_bytes()
    }

    /// (rows, row length) of the staging tile: rows along D's strided
    /// dimension, each row D's contiguous dimension.
    fn staging_shape(&self) -> (u32, u32) {
        let [bm, bn, _] = self.spec.tile;
        match self.spec.majors.d {
            OutputMajor::N => (bm, bn),
            OutputMajor::M => (bn, bm),
        }
    }

    /// How the block's threads take the 16-byte vectors of the staging
    /// tile (CuTe's `make_tiled_copy` of a 16-byte atom from a thread count
    /// and the tile): threads along a row (`gcd(threads, vectors per
    /// row)`), rows per pass (`gcd` of the threads left and the rows), the
    /// column segments each thread takes of a row (vectors per row over the
    /// threads along it), and the threads that store (the rest stay idle).
    ///
    /// ```
    /// use cutlet::collective::{EpilogueSm80, VectorMapping};
    /// use cutlet::kernel::gemm::sm80_default_spec;
    /// use cutlet::kernel::gemm::{OperandMajor, OutputMajor};
    /// use cutlet::numeric::ElementType::{BF16, F32};
    ///
    /// let mut spec = sm80_default_spec(BF16, BF16, BF16, F32, OperandMajor::K, OperandMajor::K, OutputMajor::N).unwrap();
    /// // 128x256 of bf16 over 256 threads: 32 vectors a row, 8 rows a pass.
    /// assert_eq!(EpilogueSm80::new(&spec.context(), &spec.epilogue).vector_mapping(),
    ///            VectorMapping { along: 32, rows_per_pass: 8, segments: 1, threads: 256 });
    /// // 32x256 on one warp: each thread takes one vector of each 32-vector segment of a row.
    /// (spec.tile, spec.mainloop.warps) = ([32, 256, 64], [1, 1, 1]);
    /// assert_eq!(EpilogueSm80::new(&spec.context(), &spec.epilogue).vector_mapping(),
    ///            VectorMapping { along: 32, rows_per_pass: 1, segments: 1, threads: 32 });
    /// ```
    pub fn vector_mapping(&self) -> VectorMapping {
        let (rows, len) = self.staging_shape();
        let vpr = (len / self.vector_elements()).max(1);
        let threads = self.spec.block_threads().max(1);
        let along = gcd(threads, vpr);
        let rows_per_pass = gcd(threads / along, rows.max(1));
        VectorMapping {
            along,
            rows_per_pass,
            segments: vpr / along,
            threads: along * rows_per_pass,
        }
    }

    /// Emits the epilogue.
    pub fn emit(
        &self,
        k: &mut Kernel,
        inp: &EpilogueInputs,
        acc: &Accumulators,
    ) -> Result<(), PtxError> {
        self.stage_accumulators(k, inp, acc)?;
        k.push("bar.sync 0;");
        self.store_vectors(k, inp)
    }

    /// Emits the epilogue over a staging tile a mainloop has already
    /// filled (every value at [`staging_offset`](Self::staging_offset),
    /// the block synchronized): the fusion expression and vector stores of
    /// D, as [`emit`](Self::emit) does after staging accumulators. The
    /// staging tile starts at `inp.smem`.
    ///
    /// # Errors
    /// The assembler's error.
    pub fn emit_staged(&self, k: &mut Kernel, inp: &EpilogueInputs) -> Result<(), PtxError> {
        self.store_vectors(k, inp)
    }

    /// Bytes of the staging tile (the shared memory [`emit`](Self::emit)
    /// and [`emit_staged`](Self::emit_staged) read).
    pub fn staging_bytes(&self) -> u32 {
        staging_bytes(self.spec.tile, self.spec.majors.d)
    }

    /// Byte offset in the staging tile of the value at row `m`, column `n`
    /// of the CTA tile: rows of D's contiguous dimension, each
    /// padded (8 f32 a row for an N-major D, 4 for an M-major one).
    pub fn staging_offset(&self, m: u32, n: u32) -> u32 {
        let (_, len) = self.staging_shape();
        let pitch = (len + epilogue_pad(self.spec.majors.d)) * 4;
        match self.spec.majors.d {
            OutputMajor::N => m * pitch + n * 4,
            OutputMajor::M => n * pitch + m * 4,
        }
    }

    /// The staging tile's layout: (m, n) of the CTA tile -> f32 element
    /// offset, D's contiguous dimension innermost, rows padded.
    pub fn staging_layout(&self) -> Layout {
        let (_, len) = self.staging_shape();
        let pitch = i64::from(len + epilogue_pad(self.spec.majors.d));
        let [bm, bn, _] = self.spec.tile.map(i64::from);
        let stride = match self.spec.majors.d {
            OutputMajor::N => [pitch, 1],
            OutputMajor::M => [1, pitch],
        };
        Layout::from_parts(IntTuple::ints(&[bm, bn]), IntTuple::ints(&stride))
    }

    /// Each thread's accumulators in the staging tile: the C partition of
    /// the kernel's tiled MMA
    /// ([`Sm80MmaMultistage::tiled_mma`](super::Sm80MmaMultistage::tiled_mma),
    /// or [`Sm70MmaPipelined::tiled_mma`](super::Sm70MmaPipelined::tiled_mma)
    /// for `Sm70`).
    /// Value `i` is the accumulators' logical coordinate `i`, the
    /// `(FrgV, RestM, RestN)` fragment indexed column-major: its register is
    /// [`RegisterTensor::value`]`(i)`, through the layout the mainloop
    /// wrote it with.
    pub fn acc_partition(&self) -> crate::Result<ThreadPartition> {
        let [bm, bn, _] = self.spec.tile.map(i64::from);
        context_tiled_mma(&self.spec.context())?.partition(
            Operand::C,
            [bm, bn],
            &self.staging_layout(),
        )
    }

    fn stage_accumulators(
        &self,
        k: &mut Kernel,
        inp: &EpilogueInputs,
        acc: &Accumulators,
    ) -> Result<(), PtxError> {
        let err = |e: crate::Error| PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::from("sm80 epilogue"),
            reason: e.to_string(),
        };
        let p = self.acc_partition().map_err(err)?;
        let base = emit_layout_offset(k, p.thr(), inp.tid).map_err(err)?;
        k.push(format!("shl.b32 {base}, {base}, 2;"));
        k.push(format!("add.u32 {base}, {base}, {};", inp.smem));
        // A pair of values stored as one 8-byte vector when adjacent and
        // 8-byte aligned for every thread.
        let threads_even = (0..p.threads()).all(|t| p.thr().at(t) % 2 == 0);
        let [frg, m_tiles, n_tiles] = acc.mode_sizes()[..] else {
            unreachable!("the accumulators are (FrgV, RestM, RestN)");
        };
        // One MMA tile's values as f32, and the two f16 halves of a packed
        // accumulator register.
        let vals = k.regs(RegClass::F32, frg as usize);
        let halves = k.regs(RegClass::B16, 2);
        for mi in 0..m_tiles {
            for ni in 0..n_tiles {
                // The tile's values are logical coordinates first..first+frg,
                // in the partition's order and the accumulators' alike.
                let first = frg * (mi + m_tiles * ni);
                let v = self.tile_values_f32(k, acc, first, frg, (&vals, &halves));
                let first = first as usize;
                for half in 0..(frg / 2) as usize {
                    let (x, y) = (v[2 * half], v[2 * half + 1]);
                    let (ox, oy) = (p.val()[first + 2 * half], p.val()[first + 2 * half + 1]);
                    let at = |offset: i64| format!("{base}+{}", 4 * offset);
                    if oy == ox + 1 && ox % 2 == 0 && threads_even {
                        UniversalCopy::<64>::emit_store_typed(
                            k,
                            MemorySpace::Shared,
                            CopyValue::F32,
                            &at(ox),
                            &[x, y],
                        )
                        .map_err(err)?;
                    } else {
                        for (reg, offset) in [(x, ox), (y, oy)] {
                            UniversalCopy::<32>::emit_store_typed(
                                k,
                                MemorySpace::Shared,
                                CopyValue::F32,
                                &at(offset),
                                &[reg],
                            )
                            .map_err(err)?;
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The f32 values of the accumulators' logical coordinates
    /// `first..first + count`: the registers themselves for f32
    /// accumulators; else each register unpacked once into `halves` and
    /// converted into `vals`.
    fn tile_values_f32(
        &self,
        k: &mut Kernel,
        acc: &RegisterTensor,
        first: i64,
        count: i64,
        (vals, halves): (&[Reg], &[Reg]),
    ) -> Vec<Reg> {
        let values: Vec<(Reg, u32)> = (first..first + count).map(|i| acc.value(i)).collect();
        if acc.values_per_reg() == 1 {
            return values.into_iter().map(|(reg, _)| reg).collect();
        }
        let mut unpacked: Vec<Reg> = Vec::new();
        for (j, &(reg, _)) in values.iter().enumerate() {
            if unpacked.contains(&reg) {
                continue;
            }
            unpacked.push(reg);
            k.push(format!("mov.b32 {{{}, {}}}, {reg};", halves[0], halves[1]));
            for (jj, &(_, slot)) in values.iter().enumerate().skip(j) {
                if values[jj].0 == reg {
                    k.push(format!(
                        "cvt.f32.f16 {}, {};",
                        vals[jj], halves[slot as usize]
                    ));
                }
            }
        }
        vals[..values.len()].to_vec()
    }
}
