//! [`Sm70MmaPipelined`] under the [`Mainloop`] contract: A and B through
//! global addresses, two shared-memory stages, producer and consumer in
//! one body.

use super::{Sm70MmaPipelined, SM70_STAGES};
use crate::collective::pointer_operands::{emit_pointer_inputs, pointer_params, vector_alignment};
use crate::collective::{
    Accumulators, BlockContext, Mainloop, MainloopInputs, SharedStorage, SMEM_ALIGN,
};
use crate::gemm::ParamRole;
use crate::ptx::{Kernel, PtxError};

impl Mainloop for Sm70MmaPipelined {
    type Io = MainloopInputs;

    fn params(&self) -> Vec<ParamRole> {
        pointer_params()
    }

    fn shared_storage(&self) -> SharedStorage {
        SharedStorage {
            bytes: SM70_STAGES * self.stage_bytes(),
            align: SMEM_ALIGN,
        }
    }

    fn alignment(&self) -> [u32; 2] {
        vector_alignment(&self.context())
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
        emit_pointer_inputs(k, block, &self.context())
    }

    fn emit_mainloop(&self, k: &mut Kernel, io: &MainloopInputs) -> Result<Accumulators, PtxError> {
        self.emit(k, io)
    }
}
