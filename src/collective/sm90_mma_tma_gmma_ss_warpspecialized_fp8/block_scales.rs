//! Block scales applied at promotion (CUTLASS's
//! `MainloopSm90TmaGmmaWarpSpecializedBlockScalingFP8`, DeepGEMM's FP8
//! GEMM): A's scales per row and 128 of K, B's per 128x128 block
//! ([`ScaleGranularity::Block`](crate::gemm::ScaleGranularity::Block)).
//!
//! The promoting mainloop runs one promotion per k-tile of 128 (TileK 128,
//! interval 4 k-steps), so each promotion covers one block of K: k-tile
//! `kb` (counted from K's start, past a K-splitting scheduler's first
//! k-tile) adds its partial sums into the accumulators with
//! `fma(partial, scale_a[m][kb] · scale_b[n / 128][kb], acc)`.
//!
//! The tile's two axes take the two kinds of scales: one axis has a scale
//! per line (A's rows: the tile's rows, or its columns in swap-AB's kernel
//! of `D^T = B^T · A^T`), the other one scale for the whole tile (B's
//! 128-wide block: the tile's columns, or its rows when swapped; the
//! tile's extent along it divides 128). Per work tile each consumer thread
//! computes one scale pointer per line it holds (the tiled MMA's C
//! partition: 2 rows per 64-row block, or 2 columns per 8) and one for the
//! tile's block. The scales are loaded one k-tile ahead: at k-tile `kt`
//! the thread takes the scales loaded during k-tile `kt - 1` and loads
//! those of `kt + 1`, so a load (an L2 hit: A's scales are `M · K / 128`
//! f32) has a whole k-tile of wgmmas to land before the promotion that
//! multiplies by it. Lines past the problem read the last line's scales
//! and blocks past it the last block's (their results are never stored: a
//! cluster's CTA runs the mainloop for its peers even where its tile lies
//! past M or N); no load reaches past the unit's last k-tile.

use crate::collective::{Accumulators, Sm90TiledMma};
use crate::gemm::{DeclaredParams, GemmOperand, ParamRole, ProblemDim};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// Elements of K, and of B's N, one block scale covers.
pub(crate) const SCALE_BLOCK: u32 = 128;

/// What the prologue loads once for block scales (kept registers).
#[derive(Clone, Debug)]
pub struct BlockScaleIo {
    /// Global addresses of the per-line (A's) and the block (B's) scales
    /// (`.b64`).
    bases: [Reg; 2],
    /// Bytes of one row of scales: `ceil(K / 128) · 4` (`.b32`).
    row_bytes: Reg,
    /// Lines of one batch: the kernel's M, or its N when swapped (`.b32`).
    lines: Reg,
    /// `lines - 1` (`.b32`; the kernel runs for M, N > 0 only).
    last_line: Reg,
    /// Blocks of one batch: `ceil(N / 128)`, or `ceil(M / 128)` when
    /// swapped (`.b32`).
    blocks: Reg,
    /// `blocks - 1` (`.b32`).
    last_block: Reg,
    /// The consumer thread's first line in the tile (its first row, or
    /// column when swapped: the C partition; `.b32`).
    line0: Reg,
    /// Whether the lines are the tile's columns (swap-AB).
    transposed: bool,
}

/// One work tile's scale pointers and the registers each k-tile's scales
/// are loaded into.
#[derive(Clone, Debug)]
pub(crate) struct TileScales {
    /// Per distinct line offset of the thread: the address of its line's
    /// first scale (`.b64`).
    lines: Vec<Reg>,
    /// The address of the tile's block's first scale (`.b64`).
    block: Reg,
    /// The k-tile's scale of each line, then of the block (`.f32`).
    current: Vec<Reg>,
    /// The next k-tile's, loaded ahead (`.f32`).
    next: Vec<Reg>,
    /// Per accumulator value (the C partition's order): the index of its
    /// line in `lines`.
    value_lines: Vec<usize>,
}

/// Emits the prologue's part: the two parameters' global addresses,
/// `ceil(K/128) · 4`, the lines and blocks of a batch and consumer thread
/// `tid`'s first line in `mma`'s C partition; `transposed` where the
/// lines are the kernel's columns (swap-AB).
pub(crate) fn emit_block_scale_setup(
    k: &mut Kernel,
    params: &DeclaredParams,
    mma: &Sm90TiledMma,
    tid: Reg,
    kk: Reg,
    transposed: bool,
) -> Result<BlockScaleIo, PtxError> {
    let mut bases = [tid; 2];
    for (i, op) in [GemmOperand::A, GemmOperand::B].into_iter().enumerate() {
        let address = params.load(k, ParamRole::BlockScales(op))?;
        k.cvta_to_global(address, address);
        bases[i] = address;
    }
    let r = |k: &mut Kernel| k.reg(RegClass::B32);
    let row_bytes = r(k);
    k.push(format!("add.u32 {row_bytes}, {kk}, {};", SCALE_BLOCK - 1));
    k.push(format!("shr.u32 {row_bytes}, {row_bytes}, 7;"));
    k.push(format!("shl.b32 {row_bytes}, {row_bytes}, 2;"));
    let m = params.load(k, ParamRole::Extent(ProblemDim::M))?;
    let n = params.load(k, ParamRole::Extent(ProblemDim::N))?;
    let (lines, blocked) = if transposed { (n, m) } else { (m, n) };
    let (blocks, last_line, last_block) = (r(k), r(k), r(k));
    k.push(format!("add.u32 {blocks}, {blocked}, {};", SCALE_BLOCK - 1));
    k.push(format!("shr.u32 {blocks}, {blocks}, 7;"));
    k.push(format!("sub.u32 {last_line}, {lines}, 1;"));
    k.push(format!("sub.u32 {last_block}, {blocks}, 1;"));
    // The consumer's index among the consumer threads (thread 128 is the
    // first consumer).
    let index = r(k);
    k.push(format!("sub.u32 {index}, {tid}, 128;"));
    k.push(format!("and.b32 {index}, {index}, {};", mma.threads() - 1));
    let (row0, col0) = mma.emit_origin(k, index).map_err(error)?;
    Ok(BlockScaleIo {
        bases,
        row_bytes,
        lines,
        last_line,
        blocks,
        last_block,
        line0: if transposed { col0 } else { row0 },
        transposed,
    })
}

impl BlockScaleIo {
    /// Emits one work tile's scale pointers: lines `origin + line0 +
    /// offset` of batch `batch` of A's scales (origin m0, or n0 when
    /// swapped) and block `origin / 128` of B's (n0, or m0 when swapped),
    /// each clamped to the last line or block. A CTA of a cluster runs
    /// the mainloop for its peers' multicasts even where its own tile lies
    /// past M or N (its results are never stored), so the clamps keep
    /// every load inside the scales.
    pub(crate) fn emit_tile(
        &self,
        k: &mut Kernel,
        mma: &Sm90TiledMma,
        [m0, n0, batch]: [Reg; 3],
    ) -> TileScales {
        let r = |k: &mut Kernel| k.reg(RegClass::B32);
        let (line_origin, block_origin) = if self.transposed { (n0, m0) } else { (m0, n0) };
        let offsets = match self.transposed {
            true => mma.col_offsets(),
            false => mma.row_offsets(),
        };
        // The batch's first line of A's scales.
        let batch_line = r(k);
        k.push(format!("mul.lo.u32 {batch_line}, {batch}, {};", self.lines));
        let mut lines = Vec::with_capacity(offsets.len());
        for &offset in &offsets {
            let (line, ptr) = (r(k), k.reg(RegClass::B64));
            k.push(format!("add.u32 {line}, {line_origin}, {};", self.line0));
            k.push(format!("add.u32 {line}, {line}, {offset};"));
            k.push(format!("min.u32 {line}, {line}, {};", self.last_line));
            k.push(format!("add.u32 {line}, {line}, {batch_line};"));
            k.push(format!(
                "mad.wide.u32 {ptr}, {line}, {}, {};",
                self.row_bytes, self.bases[0]
            ));
            lines.push(ptr);
        }
        let (index, block) = (r(k), k.reg(RegClass::B64));
        k.push(format!("shr.u32 {index}, {block_origin}, 7;"));
        k.push(format!("min.u32 {index}, {index}, {};", self.last_block));
        k.push(format!(
            "mad.lo.u32 {index}, {batch}, {}, {index};",
            self.blocks
        ));
        k.push(format!(
            "mad.wide.u32 {block}, {index}, {}, {};",
            self.row_bytes, self.bases[1]
        ));
        let values = |k: &mut Kernel| (0..=offsets.len()).map(|_| k.reg(RegClass::F32)).collect();
        let (current, next) = (values(k), values(k));
        let value_lines = (0..mma.values())
            .map(|v| {
                let line = match self.transposed {
                    true => mma.col_of(v),
                    false => mma.row_of(v),
                };
                offsets.iter().position(|&o| o == line).unwrap_or(0)
            })
            .collect();
        TileScales {
            lines,
            block,
            current,
            next,
            value_lines,
        }
    }
}

impl TileScales {
    /// Emits the loads of block `kb` (`.b32`) of K's scales into the
    /// next k-tile's registers, where `p` (`.pred`) holds.
    fn emit_load_next(&self, k: &mut Kernel, kb: Reg, p: Reg) {
        let bases = self.lines.iter().chain(std::iter::once(&self.block));
        for (&value, &base) in self.next.iter().zip(bases) {
            let addr = k.reg(RegClass::B64);
            k.push(format!("mad.wide.u32 {addr}, {kb}, 4, {base};"));
            k.push(format!("@{p} ld.global.nc.f32 {value}, [{addr}];"));
        }
    }

    /// Emits, before a unit's first k-tile, the loads of its first block
    /// `kb` (`.b32`) where the unit has k-tiles (`k_tiles`, `.b32`).
    pub(crate) fn emit_first(&self, k: &mut Kernel, kb: Reg, k_tiles: Reg) {
        let p = k.reg(RegClass::Pred);
        k.push(format!("setp.ne.u32 {p}, {k_tiles}, 0;"));
        self.emit_load_next(k, kb, p);
    }

    /// Emits, at the start of k-tile `kt` (`.b32`) of `k_tiles`, whose
    /// block of K is `kb` (`.b32`): its scales become the current ones
    /// and those of block `kb + 1` are loaded where k-tile `kt + 1` is
    /// the unit's.
    pub(crate) fn emit_step(&self, k: &mut Kernel, kt: Reg, kb: Reg, k_tiles: Reg) {
        for (&current, &next) in self.current.iter().zip(&self.next) {
            k.push(format!("mov.f32 {current}, {next};"));
        }
        let (p, following, kb_next) = (
            k.reg(RegClass::Pred),
            k.reg(RegClass::B32),
            k.reg(RegClass::B32),
        );
        k.push(format!("add.u32 {following}, {kt}, 1;"));
        k.push(format!("setp.lt.u32 {p}, {following}, {k_tiles};"));
        k.push(format!("add.u32 {kb_next}, {kb}, 1;"));
        self.emit_load_next(k, kb_next, p);
    }

    /// Emits the promotion of `partial` into `acc` with the current
    /// k-tile's scales: `acc = fma(partial, scale_a[line] · scale_b, acc)`.
    pub(crate) fn emit_promote(&self, k: &mut Kernel, acc: &Accumulators, partial: &Accumulators) {
        let (lines, block) = self.current.split_at(self.current.len() - 1);
        let factors: Vec<Reg> = lines
            .iter()
            .map(|&line| {
                let f = k.reg(RegClass::F32);
                k.push(format!("mul.f32 {f}, {line}, {};", block[0]));
                f
            })
            .collect();
        for v in 0..self.value_lines.len() {
            let (a, _) = acc.value(v as i64);
            let (p, _) = partial.value(v as i64);
            let f = factors[self.value_lines[v]];
            k.push(format!("fma.rn.f32 {a}, {p}, {f}, {a};"));
        }
    }
}

fn error(e: crate::Error) -> PtxError {
    PtxError::UnsupportedSpec {
        kernel: "gemm",
        name: String::from("sm90 fp8 block scales"),
        reason: e.to_string(),
    }
}
