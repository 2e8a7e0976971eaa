//! cuBLASLt as the reference GEMM, called as PyTorch calls it for bf16, f16,
//! f32 and tf32 matrices: `cublasLtMatmul` with the algorithm
//! `cublasLtMatmulAlgoGetHeuristic` ranks first, a 32 MiB workspace
//! (allocated once, offered to the heuristic through
//! `CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES`), compute type
//! `CUBLAS_COMPUTE_32F` (`CUBLAS_COMPUTE_32F_FAST_TF32` for tf32 inputs, as
//! PyTorch with `allow_tf32`; `CUBLAS_COMPUTE_32I` for s8/u8 inputs, as
//! `torch._int_mm`), scale type f32 (i32 for integer compute), and the pointers' alignments
//! as preferences. Batches go through the layouts' batch count and strided
//! batch offset; majors through cuBLAS's column-major view of the problem
//! (`column_major.rs`: Dᵀ = Bᵀ · Aᵀ for a row-major D).
//!
//! The descriptors and the heuristic's algorithm are made once per problem
//! (shape, types, majors, strides, pointer alignments) and kept, so a timing
//! loop calls only `cublasLtMatmul`.

use cutlet::collective::MainloopPolicy;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use cudarc::cublaslt::result;
use cudarc::cublaslt::sys::{self, cublasComputeType_t};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};

use crate::column_major::{ColumnMajorGemm, Source};
use crate::cublaslt_plan::{alignment, lt_error, Plan, PlanKey};
use crate::{Error, Result};
use cutlet::device::gemm::{self, Arguments};
use cutlet::kernel::gemm::GemmSpec;
use cutlet::numeric::ElementType;

/// The workspace offered to cuBLASLt: 32 MiB, what cuBLASLt recommends for
/// Hopper and PyTorch gives it there.
pub const CUBLASLT_WORKSPACE_BYTES: usize = 32 << 20;

/// A cuBLASLt handle on one stream, its 32 MiB workspace, and the plans
/// (descriptors and heuristic algorithm) of the problems it has run.
pub struct CublasLtGemm {
    handle: Handle,
    workspace: CudaSlice<u8>,
    stream: Arc<CudaStream>,
    plans: RefCell<HashMap<PlanKey, Plan>>,
}

impl std::fmt::Debug for CublasLtGemm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CublasLtGemm ({} plans)", self.plans.borrow().len())
    }
}

/// A cuBLASLt handle, destroyed on drop.
struct Handle(sys::cublasLtHandle_t);

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: made by `create_handle`, destroyed only here; a failed
        // destroy leaks the handle, all that drop can do.
        let _ = unsafe { result::destroy_handle(self.0) };
    }
}

/// Runs a cuBLASLt call, turning cudarc's panic for a missing library or
/// function into [`Error::CublasLtMissing`].
fn guarded<T>(call: impl FnOnce() -> Result<T>) -> Result<T> {
    catch_unwind(AssertUnwindSafe(call)).unwrap_or(Err(Error::CublasLtMissing))
}

impl CublasLtGemm {
    /// Loads cuBLASLt, creates a handle and allocates the 32 MiB workspace
    /// on `stream`'s device.
    ///
    /// Errors: [`Error::CublasLtMissing`] when libcublasLt does not load
    /// (cudarc panics without it; that panic is caught), [`Error::CublasLt`]
    /// when the handle cannot be made, and [`cutlet::Error::Driver`] when the
    /// workspace cannot be allocated.
    pub fn new(stream: Arc<CudaStream>) -> Result<Self> {
        stream
            .context()
            .bind_to_thread()
            .map_err(|e| cutlet::Error::driver("binding the context for cuBLASLt", e))?;
        let handle = guarded(|| {
            result::create_handle()
                .map(Handle)
                .map_err(lt_error("creating a cuBLASLt handle"))
        })?;
        let workspace = stream
            .alloc_zeros::<u8>(CUBLASLT_WORKSPACE_BYTES)
            .map_err(|e| cutlet::Error::driver("allocating the cuBLASLt workspace", e))?;
        Ok(CublasLtGemm {
            handle,
            workspace,
            stream,
            plans: RefCell::new(HashMap::new()),
        })
    }

    /// Makes (or finds) the plan of this problem without running it: the
    /// descriptors and the heuristic's best algorithm. [`run`](Self::run)
    /// does this itself; call it first to learn whether cuBLASLt has an
    /// algorithm for the problem.
    ///
    /// Errors: as [`run`](Self::run), less the matmul's own failure.
    pub fn plan<A, B, C, D>(
        &self,
        spec: &GemmSpec,
        args: &mut Arguments<'_, A, B, C, D>,
    ) -> Result<()> {
        if args.shape.is_empty_output() {
            return Ok(());
        }
        let view = checked_view(spec, args)?;
        let (ldd, batch_d) = (args.d.ld, args.d.batch_stride);
        let (a, _a) = args.a.data.device_ptr(&self.stream);
        let (b, _b) = args.b.data.device_ptr(&self.stream);
        let (d, _d) = args.d.data.device_ptr_mut(&self.stream);
        let (key, _) = plan_key(spec, view, (ldd, batch_d), [a, b, d]);
        self.ensure_plan(&key)
    }

    /// D = alpha · A · B + beta · D with cuBLASLt, the types and majors of
    /// `spec` (C is taken to be D: copy C into D first for beta ≠ 0).
    ///
    /// Errors: [`cutlet::Error::InvalidArgument`] for a separate C, fused
    /// epilogue inputs, element types cuBLASLt does not take (s8/u8 inputs
    /// write i32 only), and buffers shorter than their shape and strides need;
    /// [`Error::CublasLtNoAlgorithm`] when the heuristic has no algorithm for
    /// the problem; [`Error::CublasLt`] when a cuBLASLt call fails;
    /// [`Error::CublasLtMissing`] for a library that lacks a function.
    pub fn run<A, B, C, D>(
        &self,
        spec: &GemmSpec,
        args: &mut Arguments<'_, A, B, C, D>,
    ) -> Result<()> {
        if args.shape.is_empty_output() {
            return Ok(());
        }
        let view = checked_view(spec, args)?;
        // Host scalars of the scale type: f32, or i32 for s8/u8 inputs
        // (`CUBLAS_COMPUTE_32I`, whose scale type is `CUDA_R_32I`).
        let (alpha_f, beta_f) = (args.alpha as f32, args.beta as f32);
        let (alpha_i, beta_i) = (args.alpha as i32, args.beta as i32);
        let integer = is_integer(spec);
        let (alpha, beta): (*const c_void, *const c_void) = if integer {
            (
                (&alpha_i as *const i32).cast(),
                (&beta_i as *const i32).cast(),
            )
        } else {
            (
                (&alpha_f as *const f32).cast(),
                (&beta_f as *const f32).cast(),
            )
        };
        let (ldd, batch_d) = (args.d.ld, args.d.batch_stride);
        let (a, _a) = args.a.data.device_ptr(&self.stream);
        let (b, _b) = args.b.data.device_ptr(&self.stream);
        let (d, _d) = args.d.data.device_ptr_mut(&self.stream);
        let (key, [first, second]) = plan_key(spec, view, (ldd, batch_d), [a, b, d]);
        self.ensure_plan(&key)?;
        let plans = self.plans.borrow();
        let plan = &plans[&key];
        let (workspace, _workspace) = self.workspace.device_ptr(&self.stream);
        guarded(|| {
            // SAFETY: the plan's descriptors describe these buffers (its key
            // was made from them, and `checked_view` found that each buffer holds
            // what its layout describes); C is D with D's layout, which
            // cuBLASLt allows in place; the workspace holds the bytes passed;
            // alpha and beta point at host values of the scale type (f32,
            // or i32 for integer compute; host pointer mode), alive and read
            // before the call returns; the handle and the buffers' event
            // guards (`_a`, `_b`, `_d`, `_workspace`) outlive the call, which
            // is queued on `stream`, where every address was taken.
            unsafe {
                result::matmul(
                    self.handle.0,
                    plan.desc.0,
                    alpha,
                    beta,
                    first as *const c_void,
                    plan.first.0,
                    second as *const c_void,
                    plan.second.0,
                    d as *const c_void,
                    plan.d.0,
                    d as *mut c_void,
                    plan.d.0,
                    &plan.algo,
                    workspace as *mut c_void,
                    CUBLASLT_WORKSPACE_BYTES,
                    self.stream.cu_stream() as sys::cudaStream_t,
                )
            }
            .map_err(lt_error("running cublasLtMatmul"))
        })
    }

    /// How many problems have a plan (descriptors and an algorithm) kept.
    pub fn plan_count(&self) -> usize {
        self.plans.borrow().len()
    }

    /// Makes the plan of `key` unless it is kept already.
    fn ensure_plan(&self, key: &PlanKey) -> Result<()> {
        if self.plans.borrow().contains_key(key) {
            return Ok(());
        }
        let plan = guarded(|| Plan::new(self.handle.0, key, CUBLASLT_WORKSPACE_BYTES))?;
        self.plans.borrow_mut().insert(*key, plan);
        Ok(())
    }
}

/// cuBLAS's view of `args`, after checking that cuBLASLt can compute them:
/// C is D, no fused epilogue inputs, buffers that hold their matrices.
fn checked_view<A, B, C, D>(
    spec: &GemmSpec,
    args: &Arguments<'_, A, B, C, D>,
) -> Result<ColumnMajorGemm> {
    if !matches!(args.c, gemm::Source::D) {
        return Err(cutlet::Error::invalid_argument(
            "c",
            "a separate buffer",
            "Source::D (the cuBLASLt reference writes in place)",
        )
        .into());
    }
    if !args.epilogue.biases.is_empty() || !args.epilogue.scalars.is_empty() {
        return Err(cutlet::Error::invalid_argument(
            "epilogue inputs",
            format!(
                "{} bias(es) and {} scalar(s)",
                args.epilogue.biases.len(),
                args.epilogue.scalars.len()
            ),
            "none (the cuBLASLt reference computes alpha · A · B + beta · D only)",
        )
        .into());
    }
    let view = ColumnMajorGemm::new(spec, args);
    view.check_buffers(args)?;
    Ok(view)
}

/// The plan key of a problem whose A, B and D are at device addresses `a`,
/// `b`, `d`, and cuBLAS's A and B addresses in its operand order.
fn plan_key(
    spec: &GemmSpec,
    view: ColumnMajorGemm,
    (ldd, batch_d): (usize, usize),
    [a, b, d]: [u64; 3],
) -> (PlanKey, [u64; 2]) {
    let pointer = |source: Source| match source {
        Source::A => a,
        Source::B => b,
    };
    let (first, second) = (pointer(view.first.source), pointer(view.second.source));
    let tf32 = spec.types.a == ElementType::TF32 || spec.types.b == ElementType::TF32;
    let fp8 = |e| matches!(e, ElementType::F8E4M3 | ElementType::F8E5M2);
    let key = PlanKey {
        view,
        d: spec.types.d,
        d_major: spec.majors.d,
        ldd,
        batch_d,
        compute: if tf32 {
            cublasComputeType_t::CUBLAS_COMPUTE_32F_FAST_TF32
        } else if is_integer(spec) {
            cublasComputeType_t::CUBLAS_COMPUTE_32I
        } else {
            cublasComputeType_t::CUBLAS_COMPUTE_32F
        },
        alignments: [
            alignment(first),
            alignment(second),
            alignment(d),
            alignment(d),
        ],
        fast_accum: fp8(spec.types.a)
            && !matches!(
                spec.mainloop.policy,
                MainloopPolicy::Sm90TmaGmmaWarpSpecializedFp8 { .. }
            ),
    };
    (key, [first, second])
}

/// Whether `spec` multiplies s8/u8 inputs, which cuBLASLt computes with
/// `CUBLAS_COMPUTE_32I` and i32 scalars.
fn is_integer(spec: &GemmSpec) -> bool {
    matches!(spec.types.a, ElementType::I8 | ElementType::U8)
}
