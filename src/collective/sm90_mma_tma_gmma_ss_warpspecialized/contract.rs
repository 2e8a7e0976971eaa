//! [`Sm90TmaGmmaWarpSpecialized`] under the [`Mainloop`] contract: a tensor
//! map per operand, the ring's stages and barriers, TMA's 16-byte rule; and
//! under the [`WarpSpecializedMainloop`] contract: the producer and consumer
//! parts of a warp-specialized kernel.

use super::{
    check_sm90_block_scales, check_sm90_mainloop, check_sm90_promotion, reads_a_from_registers,
    DescriptorA, Sm90MainloopIo, Sm90TmaGmmaWarpSpecialized, STAGE_ALIGN,
};
use crate::collective::{
    Accumulators, BlockContext, ConsumerOverlap, Mainloop, SharedStorage, WarpSpecializedMainloop,
};
use crate::gemm::{GemmOperand, ParamRole, ProblemDim, TensorMapRequest};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

impl Mainloop for Sm90TmaGmmaWarpSpecialized {
    type Io = Sm90MainloopIo;

    fn params(&self) -> Vec<ParamRole> {
        let mut roles = vec![
            ParamRole::TensorMap(GemmOperand::A),
            ParamRole::TensorMap(GemmOperand::B),
        ];
        for op in [GemmOperand::A, GemmOperand::B] {
            if self.clips_rows(op) {
                roles.push(ParamRole::EdgeTensorMap(op));
                roles.push(ParamRole::Extent(super::edge_extent(op)));
            }
        }
        if self.block_scales {
            roles.extend([GemmOperand::A, GemmOperand::B].map(ParamRole::BlockScales));
            // Block scales index rows by M and column blocks by N.
            roles.extend([ProblemDim::M, ProblemDim::N].map(ParamRole::Extent));
        }
        roles
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
        self.check_shared()?;
        let ctx = &self.ctx;
        if reads_a_from_registers(ctx.types.a, ctx.majors.a) {
            return Err(refusal(format!(
                "a {} A that is M-major is read from registers: expected the RS mainloop (Sm90TmaGmmaRsWarpSpecialized; wgmma transposes only 16-bit operands)",
                ctx.types.a
            )));
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

    fn emit_producer(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.emit_loads(k, io)
    }

    fn emit_producer_tail(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.emit_ring_drain(k, io)
    }

    fn emit_consumer(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<Accumulators, PtxError> {
        self.emit_mma(k, io, &DescriptorA, None)
    }

    fn emit_consumer_overlapped(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        overlap: &mut ConsumerOverlap<'_>,
    ) -> Result<Accumulators, PtxError> {
        self.emit_mma(k, io, &DescriptorA, Some(overlap))
    }

    fn emit_split_k(&self, k: &mut Kernel, io: &mut Sm90MainloopIo) -> Option<Reg> {
        let (total, first) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.push(format!("mov.u32 {total}, {};", io.k_tiles));
        k.push(format!("mov.u32 {first}, 0;"));
        io.k_split = Some([total, first]);
        Some(total)
    }

    fn emit_k_range(&self, k: &mut Kernel, io: &Sm90MainloopIo, first: Reg, count: Reg) {
        if let Some([_, unit_first]) = io.k_split {
            k.push(format!("mov.u32 {unit_first}, {first};"));
            k.push(format!("mov.u32 {}, {count};", io.k_tiles));
        }
    }

    /// Block scales are read per row and column block of the tile.
    fn consumer_reads_tile(&self) -> bool {
        self.block_scales
    }

    fn emit_consumer_sliced(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        slice: Reg,
    ) -> Result<Accumulators, PtxError> {
        self.emit_mma_sliced(k, io, slice)
    }

    fn emit_consumer_skip(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.emit_skip(k, io);
        Ok(())
    }
}

impl Sm90TmaGmmaWarpSpecialized {
    /// What the SS and RS mainloops both check: the rule set's SM90
    /// mainloop rules (types, TileK, TileN, rows per warpgroup,
    /// accumulator registers, cluster shares), written once, and that the
    /// consumers' rows make the tile.
    pub(crate) fn check_shared(&self) -> crate::Result<()> {
        let ctx = &self.ctx;
        check_sm90_mainloop(
            ctx.types,
            ctx.majors,
            ctx.tile,
            self.cluster,
            self.consumers,
        )
        .map_err(|rule| refusal(rule.to_string()))?;
        if let Some(interval) = self.promotion_interval {
            check_sm90_promotion(ctx.types, ctx.tile, self.consumers, interval)
                .map_err(|rule| refusal(rule.to_string()))?;
        }
        if self.block_scales {
            check_sm90_block_scales(
                self.promotion_interval,
                ctx.tile,
                self.block_scales_transposed,
            )
            .map_err(|rule| refusal(rule.to_string()))?;
        }
        if ctx.tile[0] != self.wg_rows * self.consumers {
            return Err(refusal(format!(
                "TileM {} is not {} consumer warpgroups of {} rows",
                ctx.tile[0], self.consumers, self.wg_rows
            )));
        }
        Ok(())
    }
}

/// The SM90 mainloops' configuration error for `reason`.
pub(crate) fn refusal(reason: String) -> crate::Error {
    crate::Error::Config {
        config: "SM90 TMA + wgmma mainloop".to_string(),
        reason,
    }
}
