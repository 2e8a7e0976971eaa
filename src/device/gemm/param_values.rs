//! [`ParamValues`]: the values of one GEMM launch by parameter role, and
//! the walk over a kernel's parameter list that passes them in order.

use crate::device::{KernelArgs, TensorMapArg};
use crate::gemm::{GemmOperand, ParamRole, ProblemDim};
use crate::kernel::gemm::{GemmKernel, RasterOrder};
use crate::{Error, Result};

/// What one launch passes for each [`ParamRole`] a GEMM kernel may declare.
/// [`push`](Self::push) walks the kernel's own parameter list
/// ([`GemmKernel::params`]) and passes, in its order, the value of each
/// role; a role with no value here is an error, never a guess.
///
/// ```
/// use cutlet::device::gemm::ParamValues;
/// use cutlet::gemm::{GemmOperand, ParamRole, ProblemDim};
///
/// let mut values = ParamValues::default();
/// values.extents = [64, 32, 16, 1];
/// values.ld[GemmOperand::A as usize] = 16;
/// assert_eq!(values.describe(ParamRole::Extent(ProblemDim::N)), Some("32".to_string()));
/// assert_eq!(values.describe(ParamRole::Ld(GemmOperand::A)), Some("16".to_string()));
/// assert_eq!(values.describe(ParamRole::Bias(0)), None);
/// ```
#[derive(Clone, Debug, Default)]
pub struct ParamValues {
    /// Device addresses of A, B, C, D.
    pub addresses: [u64; 4],
    /// M, N, K, L.
    pub extents: [u32; 4],
    /// Leading dimensions of A, B, C, D, in elements.
    pub ld: [u64; 4],
    /// Batch strides of A, B, C, D, in elements.
    pub batch_strides: [u64; 4],
    /// alpha, as the kernel reads it (f32).
    pub alpha: f32,
    /// beta, as the kernel reads it (f32).
    pub beta: f32,
    /// Device addresses of the bias vectors, in the epilogue's order.
    pub biases: Vec<u64>,
    /// The extra scalars s2, s3, ... (f32).
    pub scalars: Vec<f32>,
    /// Device address of D's output scale (one f32), where the epilogue
    /// reads it.
    pub d_scale: Option<u64>,
    /// Device address of D's amax (one f32), where the epilogue writes it.
    pub d_amax: Option<u64>,
    /// Device addresses of A's and B's block scales, where the mainloop
    /// reads them ([`ScaleGranularity::Block`](crate::kernel::gemm::ScaleGranularity::Block)).
    pub block_scales: Option<[u64; 2]>,
    /// The device workspace's address (0: none).
    pub workspace: u64,
    /// The tensor maps of A, B, C, D, where a kernel reads them.
    pub tensor_maps: [Option<TensorMapArg>; 4],
    /// The tensor maps of A's and B's last tiles, whose boxes stop at the
    /// operand's rows ([`ParamRole::EdgeTensorMap`]), where a kernel reads
    /// them.
    pub edge_tensor_maps: [Option<TensorMapArg>; 2],
    /// The tile scheduler's rasterization swizzle, in place of the
    /// kernel's own ([`DEFAULT_RASTER_LOG`](super::DEFAULT_RASTER_LOG)) when set.
    pub raster_log: Option<u32>,
    /// The tile scheduler's raster order ([`Heuristic`](RasterOrder::Heuristic)
    /// passes as along N), in place of the kernel's own (along N) when set.
    pub raster_order: Option<RasterOrder>,
}

impl ParamValues {
    /// The value passed for `role`, as text (for messages and tests);
    /// `None` when these values have none, and for the walk's divisors
    /// ([`ParamRole::WalkDivisor`]), which the kernel's tile scheduler works
    /// out at launch from the extents and the raster.
    pub fn describe(&self, role: ParamRole) -> Option<String> {
        Some(match role {
            ParamRole::Address(op) => format!("{:#x}", self.addresses[op as usize]),
            ParamRole::Extent(dim) => self.extents[dim_index(dim)].to_string(),
            ParamRole::Ld(op) => self.ld[op as usize].to_string(),
            ParamRole::BatchStride(op) => self.batch_strides[op as usize].to_string(),
            ParamRole::Alpha => self.alpha.to_string(),
            ParamRole::Beta => self.beta.to_string(),
            ParamRole::Bias(i) => format!("{:#x}", self.biases.get(usize::from(i))?),
            ParamRole::Scalar(j) => self
                .scalars
                .get(usize::from(j).checked_sub(2)?)?
                .to_string(),
            ParamRole::DScale => format!("{:#x}", self.d_scale?),
            ParamRole::DAmax => format!("{:#x}", self.d_amax?),
            ParamRole::BlockScales(op) => {
                format!("{:#x}", self.block_scales?[block_scale_index(op)?])
            }
            ParamRole::Workspace => format!("{:#x}", self.workspace),
            ParamRole::TensorMap(op) => {
                self.tensor_maps[op as usize]?;
                format!("tensor map of {}", op.name())
            }
            ParamRole::EdgeTensorMap(op) => {
                (*self.edge_tensor_maps.get(op as usize)?)?;
                format!("tensor map of {}'s last tile", op.name())
            }
            ParamRole::RasterLog => self.raster_log?.to_string(),
            ParamRole::RasterOrder => self.raster_order?.param().to_string(),
            ParamRole::WalkDivisor(_) => return None,
        })
    }

    /// Pushes the value of each parameter of `kernel`, in its order, onto
    /// `args`; the scheduler's own parameters come from the kernel.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming a parameter these values have no
    /// value for (a bias or scalar the epilogue declares but the arguments
    /// lack, a tensor map not encoded).
    pub fn push(&self, kernel: &dyn GemmKernel, args: &mut KernelArgs<'_>) -> Result<()> {
        let raster_log = self
            .raster_log
            .or_else(|| kernel.scheduler_value(ParamRole::RasterLog));
        let raster_order = self
            .raster_order
            .map(RasterOrder::param)
            .or_else(|| kernel.scheduler_value(ParamRole::RasterOrder));
        for role in kernel.params().iter() {
            let missing = || {
                Error::invalid_argument(
                    format!("kernel parameter {}", role.name()),
                    "no value",
                    format!(
                        "a value for every parameter kernel {} declares",
                        kernel.name()
                    ),
                )
            };
            match role {
                ParamRole::Address(op) => args.scalar(self.addresses[op as usize]),
                ParamRole::Extent(dim) => args.scalar(self.extents[dim_index(dim)]),
                ParamRole::Ld(op) => args.scalar(self.ld[op as usize]),
                ParamRole::BatchStride(op) => args.scalar(self.batch_strides[op as usize]),
                ParamRole::Alpha => args.scalar(self.alpha),
                ParamRole::Beta => args.scalar(self.beta),
                ParamRole::RasterLog => args.scalar(raster_log.ok_or_else(missing)?),
                ParamRole::RasterOrder => args.scalar(raster_order.ok_or_else(missing)?),
                ParamRole::WalkDivisor(_) => {
                    let [m, n, k, _] = self.extents;
                    let (log, order) = raster_log.zip(raster_order).ok_or_else(missing)?;
                    let value = kernel.scheduler_launch_value(role, [m, n, k], [log, order]);
                    args.scalar(value.ok_or_else(missing)?)
                }
                ParamRole::Bias(i) => {
                    args.scalar(*self.biases.get(usize::from(i)).ok_or_else(missing)?)
                }
                ParamRole::Scalar(j) => {
                    let index = usize::from(j).checked_sub(2).ok_or_else(missing)?;
                    args.scalar(*self.scalars.get(index).ok_or_else(missing)?)
                }
                ParamRole::DScale => args.scalar(self.d_scale.ok_or_else(missing)?),
                ParamRole::DAmax => args.scalar(self.d_amax.ok_or_else(missing)?),
                ParamRole::BlockScales(op) => {
                    let scales = self.block_scales.ok_or_else(missing)?;
                    args.scalar(scales[block_scale_index(op).ok_or_else(missing)?])
                }
                ParamRole::Workspace => args.scalar(self.workspace),
                ParamRole::TensorMap(op) => {
                    args.tensor_map(self.tensor_maps[op as usize].ok_or_else(missing)?)
                }
                ParamRole::EdgeTensorMap(op) => args.tensor_map(
                    self.edge_tensor_maps
                        .get(op as usize)
                        .copied()
                        .flatten()
                        .ok_or_else(missing)?,
                ),
            };
        }
        Ok(())
    }
}

/// The index of `dim` in [`ParamValues::extents`] (M, N, K, L).
pub(crate) fn dim_index(dim: ProblemDim) -> usize {
    match dim {
        ProblemDim::M => 0,
        ProblemDim::N => 1,
        ProblemDim::K => 2,
        ProblemDim::L => 3,
    }
}

/// The index of `op`'s block scales in [`ParamValues::block_scales`]:
/// A's, then B's; C and D have none.
fn block_scale_index(op: GemmOperand) -> Option<usize> {
    match op {
        GemmOperand::A => Some(0),
        GemmOperand::B => Some(1),
        _ => None,
    }
}
