//! [`EpilogueSm90NoSmem`] under the [`Epilogue`] contract: C and D through
//! global addresses, alpha and beta, the fusion's bias vectors and extra
//! scalars; no shared memory.

use super::{EpilogueSm90NoSmem, Sm90EpilogueInputs};
use crate::collective::{Accumulators, BlockContext, Epilogue, LinearScalars, SharedStorage};
use crate::gemm::{BiasAxis, DeclaredParams, GemmOperand, ParamRole};
use crate::ptx::{Kernel, PtxError, RegClass};

impl Epilogue for EpilogueSm90NoSmem {
    type Params = LinearScalars;
    type Io = Sm90EpilogueInputs;

    fn params(&self) -> Vec<ParamRole> {
        let (c, d) = (GemmOperand::C, GemmOperand::D);
        let fusion = &self.spec.epilogue;
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
        let (types, majors) = (self.spec.types, self.spec.majors);
        let c = block.operand(GemmOperand::C)?;
        let d = block.operand(GemmOperand::D)?;
        let c_tile = c.output_tile(k, block.m0, block.n0, majors.c, types.c.size_bytes());
        let d_tile = d.output_tile(k, block.m0, block.n0, majors.d, types.d.size_bytes());
        let mut biases = Vec::new();
        for (i, axis) in self.spec.epilogue.biases().iter().enumerate() {
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
        for j in 0..self.spec.epilogue.extra_scalars() {
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

    fn emit_store(
        &self,
        k: &mut Kernel,
        io: &Sm90EpilogueInputs,
        acc: &Accumulators,
    ) -> Result<(), PtxError> {
        self.emit(k, io, acc)
    }
}
