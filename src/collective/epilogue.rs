//! [`Epilogue`]: the contract of a collective epilogue, the part of a GEMM
//! kernel that turns the accumulators into D, applying the fusion
//! expression (CUTLASS's `CollectiveEpilogue`).

use super::{Accumulators, BlockContext, SharedStorage};
use crate::gemm::ParamRole;
use crate::ptx::{Kernel, PtxError};

/// When an epilogue reads C (CUTLASS's "source"): behind a test of beta as
/// the kernel runs, or decided when the kernel is generated, for launches
/// whose beta is known to be 0 or not.
///
/// A kernel generated for one case holds one store body instead of two, so
/// the driver's JIT compiles it faster (the SM90 cooperative 128x256 bf16
/// kernel: a fifth fewer assembler instructions). Every case gives the same
/// bits for the launches it serves: each runs the body without C where beta
/// is 0 (D = alpha · acc for the default linear combination, as CUTLASS
/// computes it when the source is not needed; C taken as +0 in any other
/// expression).
///
/// ```
/// use cutlet::collective::SourceRead;
///
/// assert_eq!(SourceRead::for_beta(0.0), SourceRead::Never);
/// assert_eq!(SourceRead::for_beta(-0.0), SourceRead::Never);
/// assert_eq!(SourceRead::for_beta(0.5), SourceRead::Always);
/// // The kernel sees beta in f32: a beta that rounds to 0 reads no C.
/// assert_eq!(SourceRead::for_beta(1e-50), SourceRead::Never);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum SourceRead {
    /// C is read where beta, tested as the kernel runs, is not 0: one
    /// kernel for every beta.
    #[default]
    Tested,
    /// C is never read: the kernel for a beta of 0.
    Never,
    /// C is always read: the kernel for a beta that is not 0.
    Always,
}

impl SourceRead {
    /// The case of a launch with `beta` (rounded to f32, as the kernel
    /// takes it): [`Never`](Self::Never) for 0, else [`Always`](Self::Always).
    pub fn for_beta(beta: f64) -> SourceRead {
        if beta as f32 == 0.0 {
            SourceRead::Never
        } else {
            SourceRead::Always
        }
    }

    /// The suffix of a kernel generated for this case (`""` for
    /// [`Tested`](Self::Tested)).
    pub fn name_suffix(self) -> &'static str {
        match self {
            SourceRead::Tested => "",
            SourceRead::Never => "_beta0",
            SourceRead::Always => "_beta",
        }
    }
}

/// A collective epilogue: turns the accumulators into D through the fusion expression.
///
/// # Contract
///
/// Host side:
/// - [`params`](Epilogue::params): the kernel parameters it reads (C's and
///   D's addresses, leading dimensions and batch strides; alpha, beta; the
///   fusion's bias vectors and extra scalars);
/// - [`shared_storage`](Epilogue::shared_storage): its shared memory (it
///   runs after the mainloop and may reuse the mainloop's);
/// - [`alignment`](Epilogue::alignment): the elements C's and D's
///   addresses, leading dimensions and batch strides must be multiples of;
/// - [`can_implement`](Epilogue::can_implement): whether it can be built
///   (the fusion expression's inputs fit, ...);
/// - [`tensor_maps`](Epilogue::tensor_maps): the tensor maps of what it
///   stores or loads with TMA.
///
/// Device side, in the order the kernel calls them:
/// 1. [`emit_params`](Epilogue::emit_params) at kernel entry, before the
///    tile scheduler maps the block: the scalar parameters every tile uses
///    (alpha, beta), returned as [`Epilogue::Params`];
///    [`emit_init`](Epilogue::emit_init) then, before the mainloop's
///    barriers are initialized and the block (or cluster) synchronizes:
///    the epilogue's own barriers;
/// 2. [`emit_prologue`](Epilogue::emit_prologue) once the block knows its
///    work tile, after the mainloop's prologue: the tile's C and D
///    addresses, bias pointers, extra scalars;
/// 3. [`emit_store`](Epilogue::emit_store) after the mainloop: the
///    accumulators, read through the layout the mainloop wrote them with,
///    through the fusion expression into D.
///
/// [`Epilogue`] here is the collective's contract; the fusion expression
/// it applies is [`crate::gemm::Epilogue`].
pub trait Epilogue {
    /// The scalar parameters loaded at kernel entry.
    type Params;
    /// What the prologue hands the store.
    type Io;

    /// The kernel parameters the epilogue reads.
    fn params(&self) -> Vec<ParamRole>;

    /// The shared memory the epilogue uses.
    fn shared_storage(&self) -> SharedStorage;

    /// Elements that C's and D's addresses, leading dimensions and batch
    /// strides must be multiples of: `[c, d]`.
    fn alignment(&self) -> [u32; 2];

    /// Whether this epilogue can be generated.
    ///
    /// # Errors
    /// [`Error::Config`](crate::Error::Config) naming what it cannot do.
    fn can_implement(&self) -> crate::Result<()>;

    /// The tensor maps the launcher encodes for the outputs it stores or
    /// the sources it loads with TMA (one per `ParamRole::TensorMap` among
    /// its [`params`](Self::params)); none by default.
    fn tensor_maps(&self) -> Vec<crate::gemm::TensorMapRequest> {
        Vec::new()
    }

    /// Emits the loads of the scalar parameters at kernel entry.
    ///
    /// # Errors
    /// The assembler's error, or a parameter no part declared.
    fn emit_params(
        &self,
        k: &mut Kernel,
        block_params: &crate::gemm::DeclaredParams,
    ) -> Result<Self::Params, PtxError>;

    /// Emits, at kernel entry, the initialization of the epilogue's own
    /// barriers in its shared memory at `block.smem` (by one thread; the
    /// kernel's block or cluster synchronization that follows makes them
    /// visible). The default emits nothing.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_init(&self, _k: &mut Kernel, _block: &BlockContext<'_>) -> Result<(), PtxError> {
        Ok(())
    }

    /// Emits the per-tile setup, before the mainloop (an epilogue may
    /// start loading the tile's C here).
    ///
    /// # Errors
    /// The assembler's error, or a parameter no part declared.
    fn emit_prologue(
        &self,
        k: &mut Kernel,
        block: &BlockContext<'_>,
        params: &Self::Params,
    ) -> Result<Self::Io, PtxError>;

    /// Emits the store of the accumulators.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_store(&self, k: &mut Kernel, io: &Self::Io, acc: &Accumulators)
        -> Result<(), PtxError>;

    /// Emits the epilogue's end, once per thread before the kernel returns
    /// (an epilogue whose stores are asynchronous waits for them here; the
    /// default emits nothing). `tid` is `%tid.x`.
    ///
    /// # Errors
    /// The assembler's error.
    fn emit_tail(&self, _k: &mut Kernel, _tid: crate::ptx::Reg) -> Result<(), PtxError> {
        Ok(())
    }

    /// This epilogue generated to read C as `read` says, with the same
    /// parameters, shared memory and alignment; `None` for an epilogue
    /// that always tests beta as it runs (the default).
    fn with_source_read(&self, read: SourceRead) -> Option<Self>
    where
        Self: Sized,
    {
        let _ = read;
        None
    }
}
