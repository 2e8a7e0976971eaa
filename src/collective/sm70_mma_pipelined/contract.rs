//! [`Sm70MmaPipelined`] under the [`Mainloop`] contract: A and B through
//! global addresses, two shared-memory stages, producer and consumer in
//! one body.

use super::{Sm70MmaPipelined, SM70_STAGES};
use crate::collective::{
    Accumulators, BlockContext, Mainloop, MainloopInputs, SharedStorage, SMEM_ALIGN, VECTOR_BYTES,
};
use crate::gemm::{GemmOperand, ParamRole};
use crate::ptx::{Kernel, PtxError};

impl Mainloop for Sm70MmaPipelined {
    type Io = MainloopInputs;

    fn params(&self) -> Vec<ParamRole> {
        let (a, b) = (GemmOperand::A, GemmOperand::B);
        vec![
            ParamRole::Address(a),
            ParamRole::Address(b),
            ParamRole::Ld(a),
            ParamRole::Ld(b),
            ParamRole::BatchStride(a),
            ParamRole::BatchStride(b),
        ]
    }

    fn shared_storage(&self) -> SharedStorage {
        SharedStorage {
            bytes: SM70_STAGES * self.stage_bytes(),
            align: SMEM_ALIGN,
        }
    }

    fn alignment(&self) -> [u32; 2] {
        let types = self.context().types;
        [
            VECTOR_BYTES / types.a.size_bytes(),
            VECTOR_BYTES / types.b.size_bytes(),
        ]
    }

    fn can_implement(&self) -> crate::Result<()> {
        self.tiled_mma()
            .map(|_| ())
            .map_err(|e| crate::Error::Config {
                config: "SM70 two-stage mainloop".to_string(),
                reason: e.to_string(),
            })
    }

    fn emit_prologue(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
    ) -> Result<MainloopInputs, PtxError> {
        let ctx = self.context();
        let a = block.operand(GemmOperand::A)?;
        let b = block.operand(GemmOperand::B)?;
        let a_tile = a.operand_tile(k, block.m0, ctx.majors.a, ctx.types.a.size_bytes());
        let b_tile = b.operand_tile(k, block.n0, ctx.majors.b, ctx.types.b.size_bytes());
        Ok(MainloopInputs {
            tid: block.tid,
            smem: block.smem,
            a_tile,
            b_tile,
            a_safe: a.base,
            b_safe: b.base,
            lda_bytes: a.ld_bytes,
            ldb_bytes: b.ld_bytes,
            m_rem: block.m_rem,
            n_rem: block.n_rem,
            k: block.k,
        })
    }

    fn emit_mainloop(&self, k: &mut Kernel, io: &MainloopInputs) -> Result<Accumulators, PtxError> {
        self.emit(k, io)
    }
}
