//! The kernel parameters of a GEMM as a list: each part of a kernel (its
//! mainloop, epilogue and tile scheduler, and the kernel itself) declares
//! the [`ParamRole`]s it reads; the kernel declares their union in role
//! order ([`KernelParams`]); the launcher walks the same list and passes,
//! for each role, the value the arguments give it.
//!
//! Role order is the ABI: parameters appear sorted by [`ParamRole`]'s
//! order (addresses of A, B, C, D; the extents M, N, K, L; leading
//! dimensions; batch strides; alpha, beta; the scheduler's raster and the
//! divisors of its walk; biases;
//! extra scalars; D's output scale and amax; the workspace; tensor maps),
//! whichever part declared them.

use std::collections::BTreeMap;

use super::GemmOperand;
use crate::ptx::{Kernel, Param, ParamType, PtxError, Reg};

/// A dimension of the problem shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ProblemDim {
    /// Rows of A, C and D.
    M,
    /// Columns of B, C and D.
    N,
    /// The reduction.
    K,
    /// The batch count.
    L,
}

impl ProblemDim {
    /// `m`, `n`, `k` or `l`.
    pub const fn name(self) -> &'static str {
        match self {
            ProblemDim::M => "m",
            ProblemDim::N => "n",
            ProblemDim::K => "k",
            ProblemDim::L => "l",
        }
    }
}

/// A divisor of the persistent tile walk that the launcher works out for
/// each launch ([`ParamRole::WalkDivisor`], passed as
/// [`LaunchDivisor::param`](crate::ptx::LaunchDivisor::param)), so that the
/// kernel maps its linear index to a tile by multiplies and shifts: see
/// [`Persistent`](crate::kernel::gemm::Persistent) and
/// [`emit_raster`](crate::kernel::gemm::emit_raster).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WalkDivisor {
    /// Cluster tiles per batch: the linear index's batch.
    PerBatch,
    /// Tiles per raster group: the group of an index within a batch.
    PerGroup,
    /// Tiles of the grouped dimension in a whole group (`2^raster_log`, at
    /// most the dimension's tiles).
    Group,
    /// Tiles of the grouped dimension in the last group (the remainder of
    /// the dimension's tiles by the group, or a whole group).
    GroupTail,
    /// Split-K's interleave: how many tiles' units alternate before the
    /// split changes (1: a tile's splits are consecutive units; the tiles
    /// per batch: the splits are the outer order). See
    /// [`SplitK`](crate::kernel::gemm::SplitK).
    SplitInterleave,
}

impl WalkDivisor {
    /// `per_batch`, `per_group`, `group`, `group_tail` or
    /// `split_interleave`.
    pub const fn name(self) -> &'static str {
        match self {
            WalkDivisor::PerBatch => "per_batch",
            WalkDivisor::PerGroup => "per_group",
            WalkDivisor::Group => "group",
            WalkDivisor::GroupTail => "group_tail",
            WalkDivisor::SplitInterleave => "split_interleave",
        }
    }
}

/// What one kernel parameter carries. The declaration order of the
/// variants is the order of the parameters in every GEMM kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ParamRole {
    /// The operand's global address (element (0, 0) of batch 0), `.u64`.
    Address(GemmOperand),
    /// A dimension of the problem shape, `.u32`.
    Extent(ProblemDim),
    /// The operand's leading dimension in elements, `.u64`.
    Ld(GemmOperand),
    /// The operand's batch stride in elements, `.u64`.
    BatchStride(GemmOperand),
    /// The epilogue's alpha, `.f32`.
    Alpha,
    /// The epilogue's beta, `.f32`.
    Beta,
    /// The tile scheduler's rasterization swizzle (log2 of the group), `.u32`.
    RasterLog,
    /// The tile scheduler's raster order (1: along M, 0: along N), `.u32`.
    RasterOrder,
    /// A divisor of the tile walk, worked out for the launch
    /// ([`LaunchDivisor::param`](crate::ptx::LaunchDivisor::param)), `.u64`.
    WalkDivisor(WalkDivisor),
    /// Bias vector `i`'s global address, `.u64`.
    Bias(u8),
    /// Extra epilogue scalar `j` (j = 2, 3, ...), `.f32`.
    Scalar(u8),
    /// The global address of D's output scale (one f32), `.u64`.
    DScale,
    /// The global address of D's amax (one f32, written), `.u64`.
    DAmax,
    /// The global address of A's or B's block scales
    /// ([`ScaleGranularity::Block`](crate::gemm::ScaleGranularity::Block),
    /// f32), `.u64`.
    BlockScales(GemmOperand),
    /// The kernel's device workspace, `.u64`.
    Workspace,
    /// The operand's TMA tensor map, 128 bytes by value (64-byte aligned).
    TensorMap(GemmOperand),
    /// The operand's tensor map for its last tile along the box's strided
    /// dimension, whose box stops at the operand's rows
    /// ([`TensorMapRequest::clip_rows`](crate::gemm::TensorMapRequest::clip_rows)),
    /// 128 bytes by value (64-byte aligned).
    EdgeTensorMap(GemmOperand),
}

impl ParamRole {
    /// The parameter's name in the PTX.
    ///
    /// ```
    /// use cutlet::gemm::{GemmOperand, ParamRole, ProblemDim};
    ///
    /// assert_eq!(ParamRole::Ld(GemmOperand::A).name(), "lda");
    /// assert_eq!(ParamRole::Extent(ProblemDim::K).name(), "k");
    /// assert_eq!(ParamRole::Scalar(2).name(), "s2");
    /// ```
    pub fn name(self) -> String {
        match self {
            ParamRole::Address(op) => op.name().to_string(),
            ParamRole::Extent(dim) => dim.name().to_string(),
            ParamRole::Ld(op) => format!("ld{}", op.name()),
            ParamRole::BatchStride(op) => format!("batch_{}", op.name()),
            ParamRole::Alpha => "alpha".to_string(),
            ParamRole::Beta => "beta".to_string(),
            ParamRole::RasterLog => "raster_log".to_string(),
            ParamRole::RasterOrder => "raster_order".to_string(),
            ParamRole::WalkDivisor(d) => format!("walk_{}", d.name()),
            ParamRole::Bias(i) => format!("bias{i}"),
            ParamRole::Scalar(j) => format!("s{j}"),
            ParamRole::DScale => "d_scale".to_string(),
            ParamRole::DAmax => "d_amax".to_string(),
            ParamRole::BlockScales(op) => format!("block_scales_{}", op.name()),
            ParamRole::Workspace => "workspace".to_string(),
            ParamRole::TensorMap(op) => format!("tmap_{}", op.name()),
            ParamRole::EdgeTensorMap(op) => format!("tmap_{}_edge", op.name()),
        }
    }

    /// The parameter's PTX type.
    pub const fn ty(self) -> ParamType {
        match self {
            ParamRole::Address(_)
            | ParamRole::Ld(_)
            | ParamRole::BatchStride(_)
            | ParamRole::Bias(_)
            | ParamRole::DScale
            | ParamRole::DAmax
            | ParamRole::BlockScales(_)
            | ParamRole::WalkDivisor(_)
            | ParamRole::Workspace => ParamType::U64,
            ParamRole::Extent(_) | ParamRole::RasterLog | ParamRole::RasterOrder => ParamType::U32,
            ParamRole::Alpha | ParamRole::Beta | ParamRole::Scalar(_) => ParamType::F32,
            ParamRole::TensorMap(_) | ParamRole::EdgeTensorMap(_) => ParamType::TENSOR_MAP,
        }
    }
}

/// The parameter list of one kernel: the union of its parts' roles, each
/// once, in role order.
///
/// ```
/// use cutlet::gemm::{GemmOperand, KernelParams, ParamRole};
///
/// let mut params = KernelParams::new();
/// params.extend([ParamRole::Beta, ParamRole::Address(GemmOperand::B)]);
/// params.extend([ParamRole::Address(GemmOperand::A), ParamRole::Beta]);
/// let names: Vec<String> = params.iter().map(|role| role.name()).collect();
/// assert_eq!(names, ["a", "b", "beta"]);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct KernelParams {
    roles: Vec<ParamRole>,
}

impl KernelParams {
    /// An empty list.
    pub fn new() -> KernelParams {
        KernelParams::default()
    }

    /// Adds `roles` (a role already in the list stays once), keeping the
    /// list in role order.
    pub fn extend(&mut self, roles: impl IntoIterator<Item = ParamRole>) {
        for role in roles {
            if let Err(at) = self.roles.binary_search(&role) {
                self.roles.insert(at, role);
            }
        }
    }

    /// The roles in ABI order.
    pub fn iter(&self) -> impl Iterator<Item = ParamRole> + '_ {
        self.roles.iter().copied()
    }

    /// How many parameters.
    pub fn len(&self) -> usize {
        self.roles.len()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.roles.is_empty()
    }

    /// Whether `role` is in the list.
    pub fn contains(&self, role: ParamRole) -> bool {
        self.roles.binary_search(&role).is_ok()
    }

    /// Declares every parameter on `k`, in order.
    ///
    /// # Errors
    /// The assembler's error for a bad name or type.
    pub fn declare(&self, k: &mut Kernel) -> Result<DeclaredParams, PtxError> {
        let mut params = BTreeMap::new();
        for role in self.iter() {
            params.insert(role, k.param(&role.name(), role.ty())?);
        }
        Ok(DeclaredParams { params })
    }
}

/// The parameters of a kernel being generated, by role: what the parts
/// load them through.
#[derive(Clone, Debug)]
pub struct DeclaredParams {
    params: BTreeMap<ParamRole, Param>,
}

impl DeclaredParams {
    /// The parameter of `role`.
    ///
    /// # Errors
    /// [`PtxError::UnsupportedSpec`] when no part declared `role`.
    pub fn get(&self, role: ParamRole) -> Result<&Param, PtxError> {
        self.params
            .get(&role)
            .ok_or_else(|| PtxError::UnsupportedSpec {
                kernel: "gemm",
                name: String::new(),
                reason: format!(
                    "parameter {} ({role:?}) is read but no part of the kernel declared it",
                    role.name()
                ),
            })
    }

    /// Loads the parameter of `role` into a new register.
    ///
    /// # Errors
    /// As [`get`](Self::get), and the assembler's error.
    pub fn load(&self, k: &mut Kernel, role: ParamRole) -> Result<Reg, PtxError> {
        let param = self.get(role)?.clone();
        k.load_param(&param)
    }
}
