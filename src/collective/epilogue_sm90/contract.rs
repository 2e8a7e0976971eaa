//! [`EpilogueSm90NoSmem`] under the [`Epilogue`] contract: C and D through
//! global addresses, alpha and beta, the fusion's bias vectors and extra
//! scalars; no shared memory.

use super::tma_store::{
    CLoad, EpilogueSm90TmaStore, Sm90TmaEpilogueInputs, TmaEpilogueParams, SUBTILE_N,
};
use super::{EpilogueFacts, EpilogueSm90NoSmem, Sm90EpilogueInputs};
use crate::collective::epilogue_params::{
    emit_linear_scalars, emit_output_tile, output_params, LinearScalars,
};
use crate::collective::{Accumulators, BlockContext, Epilogue, SharedStorage, SourceRead};
use crate::gemm::{stores_whole_chunks, DeclaredParams, GemmOperand, ParamRole, TensorMapRequest};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

impl Epilogue for EpilogueSm90NoSmem {
    type Params = LinearScalars;
    type Io = Sm90EpilogueInputs;

    fn params(&self) -> Vec<ParamRole> {
        output_params(&self.spec.epilogue)
    }

    fn shared_storage(&self) -> SharedStorage {
        SharedStorage {
            bytes: 0,
            align: 16,
        }
    }

    /// Column pairs are stored as one 32-bit (or 64-bit) word: C and D's
    /// addresses and leading dimensions must keep pairs aligned.
    fn alignment(&self) -> [u32; 2] {
        [2, 2]
    }

    fn can_implement(&self) -> crate::Result<()> {
        match self.spec.epilogue.unfit_reason() {
            Some(reason) => Err(crate::Error::Config {
                config: "SM90 epilogue".to_string(),
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
    ) -> Result<Sm90EpilogueInputs, PtxError> {
        register_prologue(&self.spec, k, block, scalars)
    }

    fn emit_store(
        &self,
        k: &mut Kernel,
        io: &Sm90EpilogueInputs,
        acc: &Accumulators,
    ) -> Result<(), PtxError> {
        self.emit(k, io, acc)
    }

    /// This epilogue with one store body for `read` (two, behind a test of
    /// beta, for [`SourceRead::Tested`]).
    fn with_source_read(&self, read: SourceRead) -> Option<Self> {
        Some(EpilogueSm90NoSmem {
            source: read,
            ..self.clone()
        })
    }
}

/// The per-tile registers both SM90 epilogues read.
fn register_prologue(
    spec: &EpilogueFacts,
    k: &mut Kernel,
    block: &BlockContext<'_>,
    scalars: &LinearScalars,
) -> Result<Sm90EpilogueInputs, PtxError> {
    let tile = emit_output_tile(k, block, (spec.types, spec.majors), &spec.epilogue)?;
    Ok(Sm90EpilogueInputs {
        tid: block.tid,
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
        d_scale: tile.d_scale,
        d_amax: tile.d_amax,
    })
}

impl Epilogue for EpilogueSm90TmaStore {
    type Params = TmaEpilogueParams;
    type Io = Sm90TmaEpilogueInputs;

    /// The register epilogue's parameters, D's tensor map and, where C is
    /// loaded with TMA, C's.
    fn params(&self) -> Vec<ParamRole> {
        let mut roles = output_params(&self.spec.epilogue);
        roles.push(ParamRole::TensorMap(GemmOperand::D));
        if self.loads_c() {
            roles.push(ParamRole::TensorMap(GemmOperand::C));
        }
        roles
    }

    /// Two subtile buffers of D per consumer warpgroup (1024-byte aligned
    /// for the swizzle); where C is loaded with TMA, two of C per consumer
    /// warpgroup after them, and their four barriers.
    fn shared_storage(&self) -> SharedStorage {
        SharedStorage {
            bytes: self.shared_bytes(),
            align: 1024,
        }
    }

    /// D's map (its subtile boxes and swizzle; a row-major D's map ends at
    /// the last whole 16-byte chunk of each row, the rest written from
    /// registers) and, where C is loaded with TMA, C's (the same boxes;
    /// loads may read partial chunks).
    fn tensor_maps(&self) -> Vec<TensorMapRequest> {
        let (box_dims, swizzle_bytes) = self.box_dims();
        let dims = TensorMapRequest::output_dims(self.spec.majors.d);
        let mut maps = vec![TensorMapRequest {
            operand: GemmOperand::D,
            dims,
            box_dims,
            swizzle_bytes,
            whole_chunks: stores_whole_chunks(self.spec.majors.d),
            clip_rows: false,
        }];
        if self.loads_c() {
            maps.push(TensorMapRequest {
                operand: GemmOperand::C,
                dims,
                box_dims,
                swizzle_bytes,
                whole_chunks: false,
                clip_rows: false,
            });
        }
        maps
    }

    /// D is written by TMA: 16-byte rows; C is loaded by TMA (16-byte
    /// rows) or read element by element (pairs kept aligned, as the
    /// register epilogue).
    fn alignment(&self) -> [u32; 2] {
        let c = if self.loads_c() {
            16 / self.spec.types.c.size_bytes()
        } else {
            2
        };
        [c, 16 / self.spec.types.d.size_bytes()]
    }

    fn can_implement(&self) -> crate::Result<()> {
        let refuse = |reason: String| {
            Err(crate::Error::Config {
                config: "SM90 TMA epilogue".to_string(),
                reason,
            })
        };
        if let Some(reason) = self.spec.epilogue.unfit_reason() {
            return refuse(reason);
        }
        if !self.spec.tile[1].is_multiple_of(SUBTILE_N) {
            return refuse(format!(
                "TileN {}: expected a multiple of the {SUBTILE_N}-column subtile",
                self.spec.tile[1]
            ));
        }
        Ok(())
    }

    /// alpha, beta and the extra scalars; where C is loaded with TMA, the
    /// phase bits of C's two barriers per warpgroup, 0 at the start.
    fn emit_params(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
    ) -> Result<TmaEpilogueParams, PtxError> {
        let scalars = emit_linear_scalars(k, params)?;
        let c_phases = self.loads_c().then(|| {
            [0, 1].map(|_| {
                let phase = k.reg(RegClass::B32);
                k.push(format!("mov.u32 {phase}, 0;"));
                phase
            })
        });
        Ok(TmaEpilogueParams { scalars, c_phases })
    }

    fn emit_init(&self, k: &mut Kernel, block: &BlockContext<'_>) -> Result<(), PtxError> {
        self.emit_c_barrier_init(k, block.tid, block.smem)
    }

    /// The tile's registers, and C's first two subtiles requested where
    /// beta is not 0 (they load during the mainloop).
    fn emit_prologue(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
        params: &TmaEpilogueParams,
    ) -> Result<Sm90TmaEpilogueInputs, PtxError> {
        let base = register_prologue(&self.spec, k, block, &params.scalars)?;
        let map = |k: &mut Kernel, operand: GemmOperand| -> Result<Reg, PtxError> {
            let param = block.params.get(ParamRole::TensorMap(operand))?.clone();
            crate::atom::emit_tensor_map_address(k, &param).map_err(|e| PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: String::from("sm90 tma epilogue"),
                reason: e.to_string(),
            })
        };
        let d_map = map(k, GemmOperand::D)?;
        let c_load = match params.c_phases {
            Some(phases) => Some(CLoad {
                map: map(k, GemmOperand::C)?,
                phases,
            }),
            None => None,
        };
        let held = self.emit_vector_prefetch(k, &base)?;
        let io = Sm90TmaEpilogueInputs {
            base,
            smem: block.smem,
            m0: block.m0,
            n0: block.n0,
            batch: block.batch,
            d_map,
            c_load,
            held,
        };
        self.emit_c_prefetch(k, &io)?;
        Ok(io)
    }

    fn emit_store(
        &self,
        k: &mut Kernel,
        io: &Sm90TmaEpilogueInputs,
        acc: &Accumulators,
    ) -> Result<(), PtxError> {
        self.emit(k, io, acc)
    }

    fn emit_tail(&self, k: &mut Kernel, tid: Reg) -> Result<(), PtxError> {
        EpilogueSm90TmaStore::emit_tail(self, k, tid)
    }

    /// This epilogue with one store body for `read` (two, behind a test of
    /// beta, for [`SourceRead::Tested`]); C's tensor map, buffers and
    /// barriers stay, so the kernel's parameters and shared memory do not
    /// change.
    fn with_source_read(&self, read: SourceRead) -> Option<Self> {
        Some(EpilogueSm90TmaStore {
            source: read,
            ..self.clone()
        })
    }
}
