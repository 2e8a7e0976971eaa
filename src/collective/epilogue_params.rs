//! What every epilogue that reads C and writes D through global addresses
//! declares and loads, written once for the SM80 and SM90 epilogues: the
//! parameter roles, alpha and beta at kernel entry ([`LinearScalars`]),
//! and per tile C's and D's tile addresses, the bias pointers at the tile's
//! origin and the extra scalars ([`OutputTile`]).

use super::{BlockContext, GlobalOperand};
use crate::atom::{CopyValue, MemorySpace, UniversalCopy};
use crate::gemm::{
    BiasAxis, DeclaredParams, Epilogue, GemmMajors, GemmOperand, GemmTypes, ParamRole,
};
use crate::ptx::{Kernel, PtxError, Reg, RegClass};

/// alpha and beta (`.f32`), loaded at kernel entry.
#[derive(Clone, Copy, Debug)]
pub struct LinearScalars {
    /// alpha.
    pub alpha: Reg,
    /// beta.
    pub beta: Reg,
}

/// One tile's C and D and the fusion's per-tile inputs.
#[derive(Clone, Debug)]
pub(crate) struct OutputTile {
    /// C's global tensor of this batch.
    pub(crate) c: GlobalOperand,
    /// D's global tensor of this batch.
    pub(crate) d: GlobalOperand,
    /// Global address of C's element (m0, n0).
    pub(crate) c_tile: Reg,
    /// Global address of D's element (m0, n0).
    pub(crate) d_tile: Reg,
    /// Per bias vector: its global address at the tile's origin along its axis.
    pub(crate) biases: Vec<Reg>,
    /// The extra scalars s2, s3, ... (`.f32`).
    pub(crate) scalars: Vec<Reg>,
    /// D's output scale (`.f32`), where the fusion has one.
    pub(crate) d_scale: Option<Reg>,
    /// The global address of D's amax (`.b64`), where the fusion writes one.
    pub(crate) d_amax: Option<Reg>,
}

/// C's and D's addresses, leading dimensions and batch strides, alpha,
/// beta, the fusion's biases and extra scalars, D's output scale and amax
/// where it has them, in this order.
pub(crate) fn output_params(fusion: &Epilogue) -> Vec<ParamRole> {
    let (c, d) = (GemmOperand::C, GemmOperand::D);
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
    let output = fusion.output();
    if output.d_scale {
        roles.push(ParamRole::DScale);
    }
    if output.d_amax {
        roles.push(ParamRole::DAmax);
    }
    roles
}

/// Emits the loads of alpha and beta.
///
/// # Errors
/// A parameter no part declared.
pub(crate) fn emit_linear_scalars(
    k: &mut Kernel,
    params: &DeclaredParams,
) -> Result<LinearScalars, PtxError> {
    let alpha = params.load(k, ParamRole::Alpha)?;
    let beta = params.load(k, ParamRole::Beta)?;
    Ok(LinearScalars { alpha, beta })
}

/// Emits one tile's C and D addresses (m0, n0), the bias pointers at the
/// tile's origin along their axes (m0 for a row bias, n0 for a column
/// bias) and the loads of the extra scalars.
///
/// # Errors
/// A parameter or operand no part declared.
pub(crate) fn emit_output_tile(
    k: &mut Kernel,
    block: &BlockContext<'_>,
    (types, majors): (GemmTypes, GemmMajors),
    fusion: &Epilogue,
) -> Result<OutputTile, PtxError> {
    let c = block.operand(GemmOperand::C)?;
    let d = block.operand(GemmOperand::D)?;
    let c_tile = c.output_tile(k, block.m0, block.n0, majors.c, types.c.size_bytes());
    let d_tile = d.output_tile(k, block.m0, block.n0, majors.d, types.d.size_bytes());
    let mut biases = Vec::new();
    for (i, axis) in fusion.biases().iter().enumerate() {
        let base = block.params.load(k, ParamRole::Bias(i as u8))?;
        k.cvta_to_global(base, base);
        let origin = match axis {
            BiasAxis::Row => block.m0,
            BiasAxis::Column => block.n0,
            // One value for the whole output: the base itself.
            BiasAxis::Scalar => {
                biases.push(base);
                continue;
            }
        };
        let wide = k.reg(RegClass::B64);
        k.push(format!(
            "mul.wide.u32 {wide}, {origin}, {};",
            fusion.bias_element(i, types.c).size_bytes()
        ));
        k.push(format!("add.u64 {base}, {base}, {wide};"));
        biases.push(base);
    }
    let mut scalars = Vec::new();
    for j in 0..fusion.extra_scalars() {
        scalars.push(block.params.load(k, ParamRole::Scalar(j as u8 + 2))?);
    }
    let global = |k: &mut Kernel, role: ParamRole| -> Result<Reg, PtxError> {
        let address = block.params.load(k, role)?;
        k.cvta_to_global(address, address);
        Ok(address)
    };
    let d_scale = match fusion.output().d_scale {
        true => {
            let address = global(k, ParamRole::DScale)?;
            let value = k.reg(RegClass::F32);
            UniversalCopy::<32>::emit_load_typed(
                k,
                MemorySpace::Global,
                CopyValue::F32,
                &[value],
                &address,
            )
            .map_err(|e| PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: String::from("epilogue output scale"),
                reason: e.to_string(),
            })?;
            Some(value)
        }
        false => None,
    };
    let d_amax = match fusion.output().d_amax {
        true => Some(global(k, ParamRole::DAmax)?),
        false => None,
    };
    Ok(OutputTile {
        c,
        d,
        c_tile,
        d_tile,
        biases,
        scalars,
        d_scale,
        d_amax,
    })
}
