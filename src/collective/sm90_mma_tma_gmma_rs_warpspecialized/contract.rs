//! [`Sm90TmaGmmaRsWarpSpecialized`] under the [`Mainloop`] and
//! [`WarpSpecializedMainloop`] contracts: the shared SM90 mainloop's
//! parameters, ring, producer and skip, and a consumer whose wgmmas read A
//! through [`RegisterA`](super::RegisterA).

use super::Sm90TmaGmmaRsWarpSpecialized;
use crate::collective::sm90_mma_tma_gmma_ss_warpspecialized::refusal;
use crate::collective::{
    reads_a_from_registers, Accumulators, BlockContext, ConsumerOverlap, Mainloop, SharedStorage,
    Sm90MainloopIo, WarpSpecializedMainloop,
};
use crate::gemm::{ParamRole, TensorMapRequest};
use crate::ptx::{Kernel, PtxError};

impl Mainloop for Sm90TmaGmmaRsWarpSpecialized {
    type Io = Sm90MainloopIo;

    fn params(&self) -> Vec<ParamRole> {
        self.core.params()
    }

    fn shared_storage(&self) -> SharedStorage {
        self.core.shared_storage()
    }

    fn alignment(&self) -> [u32; 2] {
        self.core.alignment()
    }

    /// The shared checks, an A that is read from registers (a tf32 A,
    /// M-major), and a fragment plan for it.
    fn can_implement(&self) -> crate::Result<()> {
        self.core.check_shared()?;
        let ctx = &self.core.ctx;
        if !reads_a_from_registers(ctx.types.a, ctx.majors.a) {
            return Err(refusal(format!(
                "a {} A that is {}-major is read through a descriptor: expected the SS mainloop (Sm90TmaGmmaWarpSpecialized; the RS one takes a tf32 A that is M-major)",
                ctx.types.a,
                ctx.majors.a.name()
            )));
        }
        self.a_fragment().map(|_| ())
    }

    fn emit_prologue(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
    ) -> Result<Sm90MainloopIo, PtxError> {
        self.core.emit_prologue(k, block)
    }

    fn emit_mainloop(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<Accumulators, PtxError> {
        self.core.emit_mainloop(k, io)
    }
}

/// The shared mainloop's producer, ring and skip; the consumer's wgmmas
/// read A from registers.
impl WarpSpecializedMainloop for Sm90TmaGmmaRsWarpSpecialized {
    fn ring_bytes(&self) -> u32 {
        self.core.ring_bytes()
    }

    fn tensor_maps(&self) -> Vec<TensorMapRequest> {
        self.core.tensor_maps()
    }

    fn emit_producer(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.core.emit_producer(k, io)
    }

    fn emit_producer_tail(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.core.emit_producer_tail(k, io)
    }

    fn emit_consumer(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<Accumulators, PtxError> {
        self.core.emit_mma(k, io, &self.reader()?, None)
    }

    fn emit_consumer_overlapped(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        overlap: &mut ConsumerOverlap<'_>,
    ) -> Result<Accumulators, PtxError> {
        self.core.emit_mma(k, io, &self.reader()?, Some(overlap))
    }

    fn emit_consumer_skip(&self, k: &mut Kernel, io: &Sm90MainloopIo) -> Result<(), PtxError> {
        self.core.emit_consumer_skip(k, io)
    }

    fn emit_split_k(&self, k: &mut Kernel, io: &mut Sm90MainloopIo) -> Option<crate::ptx::Reg> {
        self.core.emit_split_k(k, io)
    }

    fn emit_k_range(
        &self,
        k: &mut Kernel,
        io: &Sm90MainloopIo,
        first: crate::ptx::Reg,
        count: crate::ptx::Reg,
    ) {
        self.core.emit_k_range(k, io, first, count)
    }
}
