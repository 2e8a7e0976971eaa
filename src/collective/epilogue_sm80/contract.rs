//! [`EpilogueSm80`] under the [`Epilogue`] contract: C and D through global
//! addresses, alpha and beta, the fusion's bias vectors and extra scalars;
//! the accumulators staged through shared memory the mainloop is done with.

use super::{staging_bytes, EpilogueInputs, EpilogueSm80};
use crate::collective::epilogue_params::{
    emit_linear_scalars, emit_output_tile, output_params, LinearScalars,
};
use crate::collective::{Accumulators, BlockContext, Epilogue, SharedStorage, VECTOR_BYTES};
use crate::gemm::{DeclaredParams, ParamRole};
use crate::ptx::{Kernel, PtxError};

impl Epilogue for EpilogueSm80 {
    type Params = LinearScalars;
    type Io = EpilogueInputs;

    fn params(&self) -> Vec<ParamRole> {
        output_params(&self.spec.epilogue)
    }

    fn shared_storage(&self) -> SharedStorage {
        SharedStorage {
            bytes: staging_bytes(self.spec.tile, self.spec.majors.d),
            align: VECTOR_BYTES,
        }
    }

    fn alignment(&self) -> [u32; 2] {
        let out = VECTOR_BYTES / self.spec.types.d.size_bytes();
        [out, out]
    }

    fn can_implement(&self) -> crate::Result<()> {
        match self.spec.epilogue.unfit_reason() {
            Some(reason) => Err(crate::Error::Config {
                config: "SM80 epilogue".to_string(),
                reason,
            }),
            None => Ok(()),
        }
    }

    fn emit_params(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
    ) -> Result<LinearScalars, PtxError> {
        emit_linear_scalars(k, params)
    }

    fn emit_prologue(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
        scalars: &LinearScalars,
    ) -> Result<EpilogueInputs, PtxError> {
        let tile = emit_output_tile(
            k,
            block,
            (self.spec.types, self.spec.majors),
            &self.spec.epilogue,
        )?;
        Ok(EpilogueInputs {
            tid: block.tid,
            smem: block.smem,
            d_tile: tile.d_tile,
            c_tile: tile.c_tile,
            ldd_bytes: tile.d.ld_bytes,
            ldc_bytes: tile.c.ld_bytes,
            m_rem: block.m_rem,
            n_rem: block.n_rem,
            alpha: scalars.alpha,
            beta: scalars.beta,
            biases: tile.biases,
            scalars: tile.scalars,
        })
    }

    fn emit_store(
        &self,
        k: &mut Kernel,
        io: &EpilogueInputs,
        acc: &Accumulators,
    ) -> Result<(), PtxError> {
        self.emit(k, io, acc)
    }
}
