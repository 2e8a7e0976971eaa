//! [`Sm80MmaMultistage`] under the [`Mainloop`] contract: A and B through
//! global addresses, `stages` shared-memory stages, producer and consumer
//! in one body.

use super::{MainloopInputs, Sm80MmaMultistage};
use crate::collective::{
    Accumulators, BlockContext, Mainloop, SharedStorage, SMEM_ALIGN, VECTOR_BYTES,
};
use crate::gemm::{GemmOperand, ParamRole};
use crate::ptx::{Kernel, PtxError};

impl Mainloop for Sm80MmaMultistage {
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
            bytes: self.stages * self.stage_bytes(),
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
        if self.stages < 2 {
            return Err(crate::Error::Config {
                config: "SM80 multistage mainloop".to_string(),
                reason: format!(
                    "{} shared-memory stages: expected at least 2 (one tile lands while another is read)",
                    self.stages
                ),
            });
        }
        Ok(())
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
