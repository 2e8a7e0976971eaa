//! [`Sm90TmaGmmaWarpSpecialized`] under the [`Mainloop`] contract: a tensor
//! map per operand, the ring's stages and barriers, TMA's 16-byte rule; and
//! under the [`WarpSpecializedMainloop`] contract: the producer and consumer
//! parts of a warp-specialized kernel.

use super::{Sm90MainloopIo, Sm90TmaGmmaWarpSpecialized, STAGE_ALIGN};
use crate::collective::{
    Accumulators, BlockContext, ConsumerOverlap, Mainloop, SharedStorage, WarpSpecializedMainloop,
};
use crate::gemm::{GemmOperand, OperandMajor, ParamRole, TensorMapRequest};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, PtxError};

impl Mainloop for Sm90TmaGmmaWarpSpecialized {
    type Io = Sm90MainloopIo;

    fn params(&self) -> Vec<ParamRole> {
        vec![
            ParamRole::TensorMap(GemmOperand::A),
            ParamRole::TensorMap(GemmOperand::B),
        ]
    }

    /// The ring (stages, then barriers), plus one stage alignment of slack:
    /// the kernel rounds the dynamic shared memory's start up to 1024 bytes.
    fn shared_storage(&self) -> SharedStorage {
        SharedStorage {
            bytes: self.pipeline_config().shared_bytes() + STAGE_ALIGN,
            align: 16,
        }
    }

    /// TMA reads rows whose starts are 16-byte aligned.
    fn alignment(&self) -> [u32; 2] {
        let size = self.ctx.types.a.size_bytes();
        [16 / size, 16 / size]
    }

    fn can_implement(&self) -> crate::Result<()> {
        let refuse = |reason: String| {
            Err(crate::Error::Config {
                config: "SM90 TMA + wgmma mainloop".to_string(),
                reason,
            })
        };
        let t = self.ctx.types;
        let [bm, bn, bk] = self.ctx.tile;
        let supported = matches!(
            (t.a, t.b, t.acc),
            (ElementType::BF16, ElementType::BF16, ElementType::F32)
                | (ElementType::F16, ElementType::F16, ElementType::F32)
                | (ElementType::F16, ElementType::F16, ElementType::F16)
                | (ElementType::TF32, ElementType::TF32, ElementType::F32)
                | (ElementType::F32, ElementType::F32, ElementType::F32)
        );
        if !supported {
            return refuse(format!(
                "element types a={} b={} acc={} have no wgmma instruction: expected bf16/bf16/f32, f16/f16/f32, f16/f16/f16 or tf32/tf32/f32",
                t.a, t.b, t.acc
            ));
        }
        let size = t.a.size_bytes();
        if bk * size != 128 && bk * size != 64 {
            return refuse(format!(
                "TileK {bk} of {} makes {}-byte rows: expected 64- or 128-byte rows (TileK {} or {}) for the 64- or 128-byte swizzle",
                t.a,
                bk * size,
                64 / size,
                128 / size
            ));
        }
        if bn % 8 != 0 || bn == 0 || bn > 256 {
            return refuse(format!(
                "TileN {bn}: expected a multiple of 8 from 8 to 256 (wgmma's N)"
            ));
        }
        if !self.wg_rows.is_multiple_of(64)
            || self.wg_rows == 0
            || bm != self.wg_rows * self.consumers
        {
            return refuse(format!(
                "TileM {bm} over {} consumer warpgroups: expected 64 or 128 rows per warpgroup (wgmma's M is 64)",
                self.consumers
            ));
        }
        if t.a.size_bytes() == 4 && self.ctx.majors.b != OperandMajor::K {
            return refuse(
                "a tf32 B must be K-major for wgmma (it transposes 16-bit types only; an M-major A passes through registers, B cannot)"
                    .to_string(),
            );
        }
        let [cm, cn] = self.cluster;
        for (op, peers, dim) in [(GemmOperand::A, cn, "M"), (GemmOperand::B, cm, "N")] {
            let tile = self.operand(op);
            if tile.major == OperandMajor::MN && !tile.mn.is_multiple_of(tile.row_elems()) {
                return refuse(format!(
                    "{} is {dim}-major with a {} tile of {}: expected a multiple of {} (a 128-byte swizzle row)",
                    op.name(),
                    dim,
                    tile.mn,
                    tile.row_elems()
                ));
            }
            if !tile.splits(peers) {
                return refuse(format!(
                    "the {} tile of {} rows cannot be split among the {peers} CTAs of the cluster that share it",
                    op.name(),
                    tile.mn
                ));
            }
        }
        if self.acc_regs_per_block() * (self.wg_rows / 64) > 192 {
            return refuse(format!(
                "a {}x{bn} warpgroup tile needs {} accumulator registers per thread: expected at most 192",
                self.wg_rows,
                self.acc_regs_per_block() * (self.wg_rows / 64)
            ));
        }
        Ok(())
    }

    fn emit_prologue(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
    ) -> Result<Sm90MainloopIo, PtxError> {
        self.emit_setup(k, block)
    }

    fn emit_mainloop(
        &self,
        _k: &mut Kernel,
        _io: &Sm90MainloopIo,
    ) -> Result<Accumulators, PtxError> {
        Err(PtxError::UnsupportedSpec {
            kernel: "gemm",
            name: String::from("sm90 mainloop"),
            reason:
                "the SM90 mainloop is warp-specialized: it runs as a producer and a consumer part"
                    .to_string(),
        })
    }
}

/// The producer thread issues the TMA loads of each tile's k-tiles into
/// the ring; the consumer warpgroups multiply them with wgmma.
impl WarpSpecializedMainloop for Sm90TmaGmmaWarpSpecialized {
    fn ring_bytes(&self) -> u32 {
        self.pipeline_config().shared_bytes()
    }

    fn tensor_maps(&self) -> Vec<TensorMapRequest> {
        self.tensor_map_requests()
    }

    fn emit_prefetch(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.emit_tensor_map_prefetch(k, io)
    }

    fn emit_producer(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.emit_loads(k, io)
    }

    fn emit_producer_tail(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.emit_ring_drain(k, io)
    }

    fn emit_consumer(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<Accumulators, PtxError> {
        self.emit_mma(k, io, None)
    }

    fn emit_consumer_overlapped(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        overlap: &mut ConsumerOverlap<'_>,
    ) -> Result<Accumulators, PtxError> {
        self.emit_mma(k, io, Some(overlap))
    }

    fn emit_consumer_skip(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.emit_skip(k, io);
        Ok(())
    }
}
