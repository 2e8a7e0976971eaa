//! [`BlockContext`]: what the kernel layer hands every collective of one
//! block: the thread index, the shared memory, the kernel's parameters, the
//! work tile's origin and extent, and each operand's global tensor of this
//! batch ([`GlobalOperand`]).

use crate::gemm::{DeclaredParams, GemmOperand, OperandMajor, OutputMajor};
use crate::ptx::{Kernel, Reg, RegClass};

/// One operand's tensor in global memory for the block's batch: the
/// address of its element (0, 0) in this batch and its leading dimension
/// in bytes.
#[derive(Clone, Copy, Debug)]
pub struct GlobalOperand {
    /// Address of element (0, 0) of this batch (`.b64`, global window).
    pub base: Reg,
    /// Leading dimension in bytes (`.b64`).
    pub ld_bytes: Reg,
}

impl GlobalOperand {
    /// Emits the address of A's or B's element (mn0, 0): CuTe's
    /// `local_tile` of the operand at the block's M (or N) origin `mn0`
    /// (`.b32`); `size` is the element's bytes.
    pub fn operand_tile(&self, k: &mut Kernel, mn0: Reg, major: OperandMajor, size: u32) -> Reg {
        let dst = k.reg(RegClass::B64);
        let wide = k.reg(RegClass::B64);
        k.push(format!("cvt.u64.u32 {wide}, {mn0};"));
        let (base, ld) = (self.base, self.ld_bytes);
        match major {
            OperandMajor::K => k.push(format!("mad.lo.u64 {dst}, {wide}, {ld}, {base};")),
            OperandMajor::MN => k.push(format!("mad.lo.u64 {dst}, {wide}, {size}, {base};")),
        }
        dst
    }

    /// Emits the address of C's or D's element (m0, n0) (`.b32` each);
    /// `size` is the element's bytes.
    pub fn output_tile(
        &self,
        k: &mut Kernel,
        m0: Reg,
        n0: Reg,
        major: OutputMajor,
        size: u32,
    ) -> Reg {
        let (outer, inner) = match major {
            OutputMajor::N => (m0, n0),
            OutputMajor::M => (n0, m0),
        };
        let dst = k.reg(RegClass::B64);
        let wide = k.reg(RegClass::B64);
        k.push(format!("cvt.u64.u32 {wide}, {outer};"));
        k.push(format!(
            "mad.lo.u64 {dst}, {wide}, {}, {};",
            self.ld_bytes, self.base
        ));
        k.push(format!("cvt.u64.u32 {wide}, {inner};"));
        k.push(format!("mad.lo.u64 {dst}, {wide}, {size}, {dst};"));
        dst
    }
}

/// What the kernel layer hands each collective of a block, after it has
/// mapped the block to a work tile.
#[derive(Clone, Copy, Debug)]
pub struct BlockContext<'a> {
    /// `%tid.x` (`.b32`).
    pub tid: Reg,
    /// Shared-window address of the dynamic shared memory (`.b32`).
    pub smem: Reg,
    /// The kernel's parameters, by role.
    pub params: &'a DeclaredParams,
    /// K (`.b32`).
    pub k: Reg,
    /// The work tile's first row, `tile_m * BM` (`.b32`).
    pub m0: Reg,
    /// The work tile's first column, `tile_n * BN` (`.b32`).
    pub n0: Reg,
    /// `M - m0` (`.b32`, positive).
    pub m_rem: Reg,
    /// `N - n0` (`.b32`, positive).
    pub n_rem: Reg,
    /// The work tile's batch index (`.b32`).
    pub batch: Reg,
    /// The global tensor of A, B, C and D in this batch, for each operand
    /// whose address is a kernel parameter.
    pub operands: [Option<GlobalOperand>; 4],
}

impl BlockContext<'_> {
    /// The global tensor of `operand`.
    ///
    /// # Errors
    /// [`PtxError::UnsupportedSpec`](crate::ptx::PtxError::UnsupportedSpec)
    /// when no part declared the operand's address.
    pub fn operand(&self, operand: GemmOperand) -> Result<GlobalOperand, crate::ptx::PtxError> {
        self.operands[operand as usize].ok_or_else(|| crate::ptx::PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::new(),
            reason: format!(
                "operand {} is read through global addresses but its address is not a kernel parameter",
                operand.name()
            ),
        })
    }
}
