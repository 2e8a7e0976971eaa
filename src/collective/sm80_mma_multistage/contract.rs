//! [`Sm80MmaMultistage`] under the [`Mainloop`] contract: A and B through
//! global addresses, `stages` shared-memory stages, producer and consumer
//! in one body.

use super::Sm80MmaMultistage;
use crate::collective::pointer_operands::{emit_pointer_inputs, pointer_params, vector_alignment};
use crate::collective::{
    Accumulators, BlockContext, Mainloop, MainloopInputs, SharedStorage, SMEM_ALIGN,
};
use crate::gemm::ParamRole;
use crate::ptx::{Kernel, PtxError};

impl Mainloop for Sm80MmaMultistage {
    type Io = MainloopInputs;

    fn params(&self) -> Vec<ParamRole> {
        pointer_params()
    }

    fn shared_storage(&self) -> SharedStorage {
        SharedStorage {
            bytes: self.stages * self.stage_bytes(),
            align: SMEM_ALIGN,
        }
    }

    fn alignment(&self) -> [u32; 2] {
        vector_alignment(&self.context())
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
        emit_pointer_inputs(k, block, &self.context())
    }

    fn emit_mainloop(&self, k: &mut Kernel, io: &MainloopInputs) -> Result<Accumulators, PtxError> {
        self.emit(k, io)
    }
}
