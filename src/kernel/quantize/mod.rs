//! `quantize`: bf16, f16 or f32 values into the 8-bit inputs of a GEMM
//! (e4m3, e5m2 or s8), with the scales that dequantize them, computed from
//! the data: `scale = amax / max` (max = 448 for e4m3, 57344 for e5m2, 127
//! for s8; 1 where the amax is 0) and `q = round(x * (max / amax))`, to
//! nearest even, saturating. The scales are those the GEMM multiplies by
//! ([`ScaleGranularity`](crate::kernel::gemm::ScaleGranularity), as
//! `torch._scaled_mm` takes them), so `D = scale_a · scale_b · (qA · qB)`.
//!
//! What: a packed row-major `rows x cols` matrix (cols a multiple of 16)
//! quantized with one scale per row ([`QuantizeScale::Row`]: a GEMM's
//! row-wise scales for A, or for K-major B's rows, the columns of D) or
//! one for the whole tensor ([`QuantizeScale::Tensor`]).
//!
//! How (one kernel per stage, [`QuantizeStage`]):
//! - Rows, one pass over DRAM: a block of 256 threads per row (the
//!   launcher gives each row its block; a loop over rows serves any grid)
//!   reads the row in 16-byte vectors (`ld.global.nc`), four a thread in
//!   flight, and keeps the largest magnitude, as the unsigned
//!   order of the values' magnitude bits (NaN above infinity, so a NaN
//!   shows in the scale); a warp butterfly and one shared-memory step give
//!   the row's amax; thread 0 writes the scale; then the block converts
//!   and writes the row's 8-bit values: from its registers where the row
//!   is at most 1024 vectors (8192 16-bit or 4096 f32 values), else read
//!   again (from L2, where the first read left it).
//! - 1x128 blocks, one pass: a grid-stride walk over the tensor's vectors
//!   (one step of it with the launcher's grid),
//!   each group of 128 values of a row (16 or 32 vectors, in consecutive
//!   lanes of a warp) reducing its amax with a butterfly over its lanes,
//!   its first lane writing the scale, every lane converting its vector.
//! - 128x128 blocks, one pass: a block of 256 threads a 128 x 128 tile
//!   (a block per tile from the launcher; a walk over the tiles serves any
//!   grid), its vectors held in registers
//!   between the block's amax and the conversion.
//! - Tensor, two passes: the amax kernel reduces the whole tensor the same
//!   way into one device word (`red.global.max.u32`, on a word the host
//!   zeroes first); the tensor kernel reads it, writes the scale (thread 0
//!   of block 0) and converts every vector.
//! - A given tensor scale ([`QuantizeStage::Scaled`], delayed scaling as
//!   Transformer Engine's FP8 recipe runs it: the scale comes from earlier
//!   amaxes), one pass: `q = round(x * (1 / scale))`, each block's amax
//!   of what it read added into a device word as the amax kernel does.
//!
//! Params, in launch order: rows: `input, output, scales: u64`, `rows,
//! vectors: u32` (vectors of 16 input bytes in a row); amax: `input,
//! amax: u64`, `vectors: u32` (in the tensor); tensor and scaled: `input,
//! output, scale, amax: u64`, `vectors: u32` (scaled: `amax` may be 0,
//! and nothing is recorded).
//!
//! Every stage stores its 8-bit values with `st.global.cs` (streaming).
//!
//! Constraints (the launcher checks them): 16-byte aligned input and
//! 8-byte aligned output (4-byte for f32 input), each holding the matrix;
//! [`QuantizeSpec::BLOCK_THREADS`] threads per block.

mod emit;

use crate::arch::ArchKind;
use crate::numeric::ElementType;
use crate::ptx::{Module, PtxError};

/// Where a quantization's scales apply: one per row or one per tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantizeScale {
    /// One scale per row, from the row's amax (one pass over the data).
    Row,
    /// One scale for the tensor, from its amax (two passes: the amax, then
    /// the conversion).
    Tensor,
    /// One scale per 128 consecutive values of a row (DeepSeek-V3's 1x128
    /// activation blocks): `scales[r * cols / 128 + g]` for group `g` of
    /// row `r` (cols a multiple of 128), from the group's amax, in one pass.
    Block1x128,
    /// One scale per 128 x 128 tile (DeepSeek-V3's weight blocks):
    /// `scales[(r / 128) * cols / 128 + c / 128]` for element (r, c) (cols a
    /// multiple of 128; the last row of tiles may be short), from the
    /// tile's amax, in one pass.
    Block128x128,
}

impl QuantizeScale {
    /// How many scales a packed `rows x cols` matrix gets: `rows` per row,
    /// 1 per tensor, `rows * cols / 128` per 1x128 block, `ceil(rows / 128)
    /// * cols / 128` per 128x128 tile (cols a multiple of 128 for either
    /// block, as [`quantize`](crate::device::quantize) checks; a partial
    /// group counts whole). What the `scales` buffer must hold.
    ///
    /// ```
    /// use cutlet::kernel::quantize::QuantizeScale;
    ///
    /// assert_eq!(QuantizeScale::Row.scale_count([300, 512]), 300);
    /// assert_eq!(QuantizeScale::Tensor.scale_count([300, 512]), 1);
    /// assert_eq!(QuantizeScale::Block1x128.scale_count([300, 512]), 300 * 4);
    /// // 300 rows make 3 rows of tiles, the last one 44 rows tall.
    /// assert_eq!(QuantizeScale::Block128x128.scale_count([300, 512]), 3 * 4);
    /// ```
    pub fn scale_count(self, [rows, cols]: [usize; 2]) -> usize {
        let group = QuantizeSpec::GROUP as usize;
        match self {
            QuantizeScale::Row => rows,
            QuantizeScale::Tensor => 1,
            QuantizeScale::Block1x128 => rows * cols.div_ceil(group),
            QuantizeScale::Block128x128 => rows.div_ceil(group) * cols.div_ceil(group),
        }
    }
}

/// One kernel of a quantization: the rows kernel, or one of the tensor
/// mode's two.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum QuantizeStage {
    /// Row scales: amax, scale and conversion of each row in one kernel.
    Rows,
    /// The tensor's amax into one device word.
    Amax,
    /// The tensor's scale and conversion, from that word.
    Tensor,
    /// 1x128 block scales: each group's amax, scale and conversion.
    Groups,
    /// 128x128 block scales: each tile's amax, scale and conversion.
    Tiles,
    /// A given tensor scale (delayed scaling): the conversion by it, the
    /// input's amax recorded in the same pass
    /// ([`quantize_with_scale`](crate::device::quantize_with_scale)).
    Scaled,
}

/// The static description of a quantization: input and output types, the
/// scales' granularity, the architecture. A module-cache key (with a
/// [`QuantizeStage`]).
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::kernel::quantize::{QuantizeScale, QuantizeSpec, QuantizeStage};
/// use cutlet::numeric::ElementType::{BF16, F8E4M3, I8};
///
/// let spec = QuantizeSpec::new(BF16, F8E4M3, QuantizeScale::Row, ArchKind::Sm90).unwrap();
/// assert_eq!(spec.stages(), &[QuantizeStage::Rows]);
/// assert_eq!(spec.kernel_name(QuantizeStage::Rows), "quantize_rows_bf16_e4m3");
/// assert_eq!(spec.max_value(), 448.0);
/// let ptx = spec.ptx(QuantizeStage::Rows).unwrap();
/// assert!(ptx.contains("cvt.rn.satfinite.e4m3x2.f32"));
/// // Per tensor: an amax kernel, then the conversion.
/// let tensor = QuantizeSpec::new(BF16, I8, QuantizeScale::Tensor, ArchKind::Sm80).unwrap();
/// assert_eq!(tensor.stages(), &[QuantizeStage::Amax, QuantizeStage::Tensor]);
/// assert!(tensor.ptx(QuantizeStage::Amax).unwrap().contains("red.global.max.u32"));
/// // FP8 conversions are sm_89 instructions: cutlet emits them for Sm90.
/// assert!(QuantizeSpec::new(BF16, F8E4M3, QuantizeScale::Row, ArchKind::Sm80).is_err());
/// // 1x128 blocks: one kernel, a butterfly over each group's 16 lanes.
/// let blocks = QuantizeSpec::new(BF16, F8E4M3, QuantizeScale::Block1x128, ArchKind::Sm90).unwrap();
/// assert_eq!(blocks.stages(), &[QuantizeStage::Groups]);
/// assert_eq!(blocks.group_vectors(), 16);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct QuantizeSpec {
    input: ElementType,
    output: ElementType,
    scale: QuantizeScale,
    arch: ArchKind,
}

impl QuantizeSpec {
    /// The input types: bf16, f16, f32.
    pub const INPUTS: [ElementType; 3] = [ElementType::BF16, ElementType::F16, ElementType::F32];
    /// The output types: e4m3, e5m2 (on Sm90), s8.
    pub const OUTPUTS: [ElementType; 3] =
        [ElementType::F8E4M3, ElementType::F8E5M2, ElementType::I8];
    /// Threads per block of every stage.
    pub const BLOCK_THREADS: u32 = 256;
    /// 16-byte vectors each thread loads before it uses the first (64
    /// bytes in flight a thread). The kernels that walk the tensor's
    /// vectors (1x128 blocks, the tensor's two) cover it in one step with
    /// a grid of `vectors / (BLOCK_THREADS * VECTORS_PER_THREAD)` blocks.
    pub const VECTORS_PER_THREAD: u32 = 4;

    /// The spec, checked: an input of [`INPUTS`](Self::INPUTS), an output of
    /// [`OUTPUTS`](Self::OUTPUTS), FP8 outputs on Sm90.
    ///
    /// # Errors
    /// [`crate::Error::InvalidArgument`] naming the type or architecture.
    pub fn new(
        input: ElementType,
        output: ElementType,
        scale: QuantizeScale,
        arch: ArchKind,
    ) -> crate::Result<QuantizeSpec> {
        if !Self::INPUTS.contains(&input) {
            return Err(crate::Error::invalid_argument(
                "quantize input type",
                input,
                "bf16, f16 or f32",
            ));
        }
        if !Self::OUTPUTS.contains(&output) {
            return Err(crate::Error::invalid_argument(
                "quantize output type",
                output,
                "e4m3, e5m2 or s8 (i8)",
            ));
        }
        if output.is_float() && arch != ArchKind::Sm90 {
            return Err(crate::Error::invalid_argument(
                "quantize architecture",
                format!("{arch:?} for {output}"),
                "Sm90 (FP8 conversions are sm_89 instructions)",
            ));
        }
        Ok(QuantizeSpec {
            input,
            output,
            scale,
            arch,
        })
    }

    /// The input type.
    pub fn input(&self) -> ElementType {
        self.input
    }

    /// The output type.
    pub fn output(&self) -> ElementType {
        self.output
    }

    /// The scales' granularity.
    pub fn scale(&self) -> QuantizeScale {
        self.scale
    }

    /// The kernels a quantization launches, in order.
    pub fn stages(&self) -> &'static [QuantizeStage] {
        match self.scale {
            QuantizeScale::Row => &[QuantizeStage::Rows],
            QuantizeScale::Tensor => &[QuantizeStage::Amax, QuantizeStage::Tensor],
            QuantizeScale::Block1x128 => &[QuantizeStage::Groups],
            QuantizeScale::Block128x128 => &[QuantizeStage::Tiles],
        }
    }

    /// The largest magnitude of the output type, which the amax maps to:
    /// 448 (e4m3), 57344 (e5m2), 127 (s8).
    pub fn max_value(&self) -> f32 {
        match self.output {
            ElementType::F8E4M3 => 448.0,
            ElementType::F8E5M2 => 57344.0,
            _ => 127.0,
        }
    }

    /// Values in one group of [`QuantizeScale::Block1x128`].
    pub const GROUP: u32 = 128;

    /// 16-byte input vectors in one 1x128 group: 16 (bf16, f16) or 32
    /// (f32), the lanes of half a warp or a whole one.
    pub fn group_vectors(&self) -> u32 {
        Self::GROUP / self.elements_per_vector()
    }

    /// Input elements in one 16-byte vector: 8 (bf16, f16) or 4 (f32).
    pub fn elements_per_vector(&self) -> u32 {
        16 / self.input.size_bytes()
    }

    /// The `.entry` name of `stage`'s kernel, e.g. `quantize_rows_bf16_e4m3`.
    pub fn kernel_name(&self, stage: QuantizeStage) -> String {
        match stage {
            QuantizeStage::Rows => format!("quantize_rows_{}_{}", self.input, self.output),
            QuantizeStage::Amax => format!("quantize_amax_{}", self.input),
            QuantizeStage::Tensor => format!("quantize_tensor_{}_{}", self.input, self.output),
            QuantizeStage::Groups => {
                format!("quantize_block1x128_{}_{}", self.input, self.output)
            }
            QuantizeStage::Tiles => {
                format!("quantize_block128x128_{}_{}", self.input, self.output)
            }
            QuantizeStage::Scaled => {
                format!("quantize_scaled_{}_{}", self.input, self.output)
            }
        }
    }

    /// The PTX module of `stage`'s kernel.
    ///
    /// # Errors
    /// [`PtxError`] from the emitter (none for a spec [`new`](Self::new) made).
    pub fn ptx(&self, stage: QuantizeStage) -> Result<String, PtxError> {
        let mut module = Module::new(self.arch);
        let kernel = match stage {
            QuantizeStage::Rows => emit::rows_kernel(self)?,
            QuantizeStage::Amax => emit::amax_kernel(self)?,
            QuantizeStage::Tensor => emit::tensor_kernel(self)?,
            QuantizeStage::Groups => emit::groups_kernel(self)?,
            QuantizeStage::Tiles => emit::tiles_kernel(self)?,
            QuantizeStage::Scaled => emit::scaled_kernel(self)?,
        };
        module.add_kernel(kernel)?;
        module.emit()
    }
}
