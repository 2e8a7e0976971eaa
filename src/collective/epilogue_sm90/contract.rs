//! [`EpilogueSm90NoSmem`] under the [`Epilogue`] contract: C and D through
//! global addresses, alpha and beta, the fusion's bias vectors and extra
//! scalars; no shared memory.

use super::tma_store::{EpilogueSm90TmaStore, Sm90TmaEpilogueInputs, SUBTILE_N};
use super::{EpilogueFacts, EpilogueSm90NoSmem, Sm90EpilogueInputs};
use crate::collective::{Accumulators, BlockContext, Epilogue, LinearScalars, SharedStorage};
use crate::gemm::{BiasAxis, DeclaredParams, GemmOperand, ParamRole};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

impl Epilogue for EpilogueSm90NoSmem {
    type Params = LinearScalars;
    type Io = Sm90EpilogueInputs;

    fn params(&self) -> Vec<ParamRole> {
        register_params(&self.spec)
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
                config: "the SM90 epilogue".to_string(),
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
        let alpha = params.load(k, ParamRole::Alpha)?;
        let beta = params.load(k, ParamRole::Beta)?;
        Ok(LinearScalars { alpha, beta })
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
}

/// The per-tile registers both SM90 epilogues read: C's and D's tile
/// addresses, the bias pointers at the tile's origin, the extra scalars.
fn register_prologue(
    spec: &EpilogueFacts,
    k: &mut Kernel,
    block: &BlockContext<'_>,
    scalars: &LinearScalars,
) -> Result<Sm90EpilogueInputs, PtxError> {
    let (types, majors) = (spec.types, spec.majors);
    let c = block.operand(GemmOperand::C)?;
    let d = block.operand(GemmOperand::D)?;
    let c_tile = c.output_tile(k, block.m0, block.n0, majors.c, types.c.size_bytes());
    let d_tile = d.output_tile(k, block.m0, block.n0, majors.d, types.d.size_bytes());
    let mut biases = Vec::new();
    for (i, axis) in spec.epilogue.biases().iter().enumerate() {
        let base = block.params.load(k, ParamRole::Bias(i as u8))?;
        k.cvta_to_global(base, base);
        let origin = match axis {
            BiasAxis::Row => block.m0,
            BiasAxis::Column => block.n0,
        };
        let wide = k.reg(RegClass::B64);
        k.push(format!(
            "mul.wide.u32 {wide}, {origin}, {};",
            types.c.size_bytes()
        ));
        k.push(format!("add.u64 {base}, {base}, {wide};"));
        biases.push(base);
    }
    let mut scalars_extra = Vec::new();
    for j in 0..spec.epilogue.extra_scalars() {
        scalars_extra.push(block.params.load(k, ParamRole::Scalar(j as u8 + 2))?);
    }
    Ok(Sm90EpilogueInputs {
        tid: block.tid,
        d_tile,
        c_tile,
        ldd_bytes: d.ld_bytes,
        ldc_bytes: c.ld_bytes,
        m_rem: block.m_rem,
        n_rem: block.n_rem,
        alpha: scalars.alpha,
        beta: scalars.beta,
        biases,
        scalars: scalars_extra,
    })
}

/// C's and D's addresses, leading dimensions and batch strides, alpha,
/// beta, the fusion's biases and extra scalars.
fn register_params(spec: &EpilogueFacts) -> Vec<ParamRole> {
    let (c, d) = (GemmOperand::C, GemmOperand::D);
    let fusion = &spec.epilogue;
    let mut roles = vec![
        ParamRole::Address(c),
        ParamRole::Address(d),
        ParamRole::Ld(c),
        ParamRole::Ld(d),
        ParamRole::BatchStride(c),
        ParamRole::BatchStride(d),
        ParamRole::Alpha,
        ParamRole::Beta,
    ];
    roles.extend((0..fusion.biases().len()).map(|i| ParamRole::Bias(i as u8)));
    roles.extend((0..fusion.extra_scalars()).map(|j| ParamRole::Scalar(j as u8 + 2)));
    roles
}

impl Epilogue for EpilogueSm90TmaStore {
    type Params = LinearScalars;
    type Io = Sm90TmaEpilogueInputs;

    /// The register epilogue's parameters and D's tensor map.
    fn params(&self) -> Vec<ParamRole> {
        let mut roles = register_params(&self.spec);
        roles.push(ParamRole::TensorMap(GemmOperand::D));
        roles
    }

    /// Two subtile buffers per consumer warpgroup (1024-byte aligned for
    /// the swizzle).
    fn shared_storage(&self) -> SharedStorage {
        SharedStorage {
            bytes: 2 * 2 * self.buffer_bytes(),
            align: 1024,
        }
    }

    /// C is read element by element (pairs kept aligned, as the register
    /// epilogue); D is written by TMA: 16-byte rows.
    fn alignment(&self) -> [u32; 2] {
        [2, 16 / self.spec.types.d.size_bytes()]
    }

    fn can_implement(&self) -> crate::Result<()> {
        let refuse = |reason: String| {
            Err(crate::Error::Config {
                config: "the SM90 TMA epilogue".to_string(),
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

    fn emit_params(
        &self,
        k: &mut Kernel,
        params: &DeclaredParams,
    ) -> Result<LinearScalars, PtxError> {
        let alpha = params.load(k, ParamRole::Alpha)?;
        let beta = params.load(k, ParamRole::Beta)?;
        Ok(LinearScalars { alpha, beta })
    }

    fn emit_prologue(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
        scalars: &LinearScalars,
    ) -> Result<Sm90TmaEpilogueInputs, PtxError> {
        let base = register_prologue(&self.spec, k, block, scalars)?;
        let param = block
            .params
            .get(ParamRole::TensorMap(GemmOperand::D))?
            .clone();
        let d_map = crate::atom::emit_tensor_map_address(k, &param).map_err(|e| {
            PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: String::from("sm90 tma epilogue"),
                reason: e.to_string(),
            }
        })?;
        Ok(Sm90TmaEpilogueInputs {
            base,
            smem: block.smem,
            m0: block.m0,
            n0: block.n0,
            batch: block.batch,
            d_map,
        })
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
}
