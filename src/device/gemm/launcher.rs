//! The one path behind both front doors: a [`GemmSpec`] on a [`Device`],
//! its parts composed into a kernel ([`GemmSpec::kernel`]) and loaded once,
//! arguments checked and launched by walking the kernel's own parameter
//! list ([`ParamValues::push`]).

use std::sync::{Arc, OnceLock};

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, SyncOnDrop};

use super::arguments::{Arguments, Source};
use super::can_implement::{check_arch, check_problem_for, OperandFacts, ProblemFacts};
use super::copies::{run_copied, KMajorCopies, Overrides};
use super::epilogue_check::{
    check_block_scales, check_epilogue, check_integer_scalars, check_scalars,
};
use super::param_values::{dim_index, ParamValues};
use super::picks::ProblemPicks;
use super::workspace::{Workspace, WorkspaceLayout};
use crate::arch::ArchKind;
use crate::collective::{EpiloguePolicy, SourceRead};
use crate::device::{
    get_or_load, get_or_load_tiered, get_or_load_with_stand_in, Device, Function, JitTier,
    KernelArgs, LaunchConfig, LoadedKernel, TensorMapArg, TmaSwizzle, TmaTiled,
};
use crate::gemm::{tma_store_takes, GemmOperand, GemmShape, ProblemDim, TensorMapRequest};
use crate::kernel::gemm::{GemmKernel, GemmSpec, ScaleGranularity};
use crate::numeric::Element;
use crate::numeric::ElementType;
use crate::{Error, Result};

pub use crate::kernel::gemm::DEFAULT_RASTER_LOG;

/// A spec bound to a device, with its kernel compiled on first use: the
/// host contract (`can_implement`, `workspace_size`, `initialize`, `run`,
/// `wait_optimized`) that every GEMM front door forwards to.
#[derive(Debug)]
pub(crate) struct Launcher {
    device: Device,
    spec: GemmSpec,
    composed: OnceLock<Box<dyn GemmKernel>>,
    kernel: OnceLock<Arc<LoadedKernel>>,
    /// For a kernel generated apart for each case of beta
    /// ([`GemmKernel::for_source`]): the compiled kernel for beta = 0
    /// (`[0]`) and for beta not 0 (`[1]`), each compiled on its first run.
    by_source: [OnceLock<Arc<LoadedKernel>>; 2],
    /// Blocks of the kernel the GPU runs at once, for a persistent grid
    /// (asked of the driver once, at the first run).
    resident: OnceLock<u32>,
    check_scalars: bool,
    /// The launcher that takes the calls this one's kernel cannot (the SM80
    /// kernel behind an automatically picked SM90 one).
    fallback: Option<Box<Launcher>>,
    /// The launcher of the kernel that runs in this one's place while this
    /// one compiles ([`GemmSpec::sm90_stand_in`]), made on first use; `None`
    /// for a kernel without one.
    stand_in: OnceLock<Option<Box<Launcher>>>,
    /// For a GEMM the builder picks for the device: the kernel picked for
    /// each problem, where that is not this launcher's own (which then
    /// serves as the default: `spec`, and `wait_optimized` before any call).
    picks: Option<Box<ProblemPicks<Launcher>>>,
    /// For a kernel composed outside [`GemmSpec::kernel`]
    /// ([`from_kernel`](Self::from_kernel)): its name, which keys its
    /// compiled modules beside the spec (the spec's own composition is
    /// another kernel).
    custom: Option<String>,
    /// The device workspace this launcher's kernels use where their tile
    /// scheduler keeps state between blocks (split-K's partial tiles and
    /// flags), shared with every launcher of the same GEMM (its picks and
    /// the launchers behind them): the GEMM's own or the caller's.
    workspace: Workspace,
    /// For a swap-AB launcher, whose kernel computes D^T = B^T · A^T over
    /// the caller's buffers: the problem's own view of the kernel's spec
    /// ([`GemmSpec::transposed`]), which the argument checks read so that
    /// they name the caller's operands and extents; the launch exchanges A
    /// and B, M and N. `None` for a launcher that runs the problem as given.
    view: Option<GemmSpec>,
    /// The caller's MN-major 8-bit operands this launcher copies K-major
    /// before its kernel (`copies.rs`); none for a launcher behind another.
    copies: KMajorCopies,
}

impl Launcher {
    pub(crate) fn new(device: &Device, spec: GemmSpec) -> Self {
        Launcher {
            device: device.clone(),
            spec,
            composed: OnceLock::new(),
            kernel: OnceLock::new(),
            by_source: [OnceLock::new(), OnceLock::new()],
            resident: OnceLock::new(),
            check_scalars: true,
            fallback: None,
            stand_in: OnceLock::new(),
            picks: None,
            custom: None,
            workspace: Workspace::default(),
            view: None,
            copies: KMajorCopies::default(),
        }
    }

    /// This launcher, copying the caller's operands `copies` says K-major
    /// before its kernel (an MN-major 8-bit A or B).
    pub(crate) fn with_copies(mut self, copies: KMajorCopies) -> Self {
        self.copies = copies;
        self
    }

    /// The facts of the copies of `args`' operands standing in for the
    /// caller's in the kernel's checks, after checking the caller's
    /// copied operands in their own major; none without copies.
    fn overrides<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
        stream: &CudaStream,
    ) -> Result<Overrides>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
    {
        if !self.copies.any() {
            return Ok([None, None]);
        }
        self.copies.check_caller(self.view(), args, stream)?;
        Ok(self.copies.overrides(args))
    }

    /// This launcher and the SM90 launchers behind it, made to run each
    /// problem as its transpose (swap-AB): their specs are the kernels of
    /// the transposed problem. Then `fallback` (where given: a kernel of
    /// the problem as given) at the end of the chain.
    pub(crate) fn swapping(mut self, fallback: Option<Launcher>) -> Self {
        self.view = Some(self.spec.transposed());
        self.fallback = match self.fallback.take() {
            Some(next) => Some(Box::new(next.swapping(fallback))),
            None => fallback.map(Box::new),
        };
        self.share_workspace(self.workspace.clone());
        self
    }

    /// This launcher and every one behind it on `workspace`.
    fn share_workspace(&mut self, workspace: Workspace) {
        if let Some(fallback) = &mut self.fallback {
            fallback.share_workspace(workspace.clone());
        }
        self.workspace = workspace;
    }

    /// Whether this launcher runs each problem as its transpose (swap-AB).
    pub(crate) fn swaps_ab(&self) -> bool {
        self.view.is_some()
    }

    /// The spec as the caller's problem sees it: the kernel's own, or its
    /// transpose for a swap-AB launcher. The argument checks read it.
    pub(crate) fn view(&self) -> &GemmSpec {
        self.view.as_ref().unwrap_or(&self.spec)
    }

    /// The kernel's alignments `[a, b, c, d]` in the caller's operand order.
    fn view_alignment(&self, composed: &dyn GemmKernel) -> [u32; 4] {
        let [a, b, c, d] = composed.alignment();
        if self.swaps_ab() {
            [b, a, c, d]
        } else {
            [a, b, c, d]
        }
    }

    /// The problem the kernel computes for the caller's `shape`: M and N
    /// exchanged for a swap-AB launcher.
    fn kernel_shape(&self, shape: &GemmShape) -> GemmShape {
        if self.swaps_ab() {
            GemmShape::new(shape.n, shape.m, shape.k, shape.l)
        } else {
            *shape
        }
    }

    /// A launcher of `kernel`, composed from parts built for `spec` (whose
    /// types, majors, tile and cluster the checks and the launch read),
    /// compiled in one tier at full optimization, without a stand-in.
    pub(crate) fn from_kernel(
        device: &Device,
        spec: GemmSpec,
        kernel: Box<dyn GemmKernel>,
    ) -> Self {
        let mut launcher = Launcher::new(device, spec);
        launcher.custom = Some(kernel.name().to_string());
        launcher.composed = OnceLock::from(kernel);
        launcher.stand_in = OnceLock::from(None);
        launcher
    }

    /// This launcher, running each problem on the SM90 kernel picked for
    /// it on a device of `sm_count` SMs (this launcher's own where that is
    /// its spec, `template`): each pick with its register-store form and
    /// `fallback` behind it, as [`with_register_store`](Self::with_register_store).
    pub(crate) fn picking(
        self,
        template: GemmSpec,
        fallback: Option<GemmSpec>,
        sm_count: u32,
        swap: Option<bool>,
    ) -> Self {
        let device = self.device.clone();
        let workspace = self.workspace.clone();
        let default = template.clone();
        let picks = ProblemPicks::new(
            template,
            sm_count,
            swap,
            move |spec, swapped, check_scalars| {
                let gemv = spec.mainloop.policy.is_gemv();
                let mut launcher = if swapped {
                    // The fallback runs the problem as given.
                    let fallback = fallback.clone().map(|f| Launcher::new(&device, f));
                    Launcher::with_register_store(&device, spec, None).swapping(fallback)
                } else if gemv {
                    // The GEMV kernel's epilogue stores 16-byte vectors of
                    // D: a D it cannot take runs on the GEMM's default SM90
                    // kernel (and what is behind that).
                    let behind =
                        Launcher::with_register_store(&device, default.clone(), fallback.clone());
                    Launcher::with_fallback_launcher(&device, spec, behind)
                } else {
                    Launcher::with_register_store(&device, spec, fallback.clone())
                };
                launcher.set_check_scalars(check_scalars);
                launcher.share_workspace(workspace.clone());
                launcher
            },
        );
        let mut launcher = self;
        launcher.picks = Some(Box::new(picks));
        launcher
    }

    /// The launcher for a problem of `shape`: the one picked for it, or
    /// this one.
    fn picked(&self, shape: &GemmShape) -> &Launcher {
        self.picks
            .as_ref()
            .and_then(|picks| picks.launcher(shape, self.check_scalars))
            .unwrap_or(self)
    }

    /// The spec of the kernel that takes `args` (the one picked for the
    /// problem, or the fallback where that kernel cannot take them), its
    /// buffers' addresses read on `stream`.
    pub(crate) fn spec_for<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
        stream: &CudaStream,
    ) -> &GemmSpec
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let overrides = self.copies.overrides(args);
        &self
            .picked(&args.shape)
            .route(args, stream, &overrides)
            .spec
    }

    /// Whether the kernel that takes `args` runs their problem transposed
    /// (swap-AB).
    pub(crate) fn swaps_ab_for<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
        stream: &CudaStream,
    ) -> bool
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let overrides = self.copies.overrides(args);
        self.picked(&args.shape)
            .route(args, stream, &overrides)
            .swaps_ab()
    }

    /// `spec` on `device`, handing any call its kernel cannot take (its
    /// `can_implement` refuses the arguments) to `fallback`'s kernel.
    pub(crate) fn with_fallback(device: &Device, spec: GemmSpec, fallback: GemmSpec) -> Self {
        Launcher::with_fallback_launcher(device, spec, Launcher::new(device, fallback))
    }

    /// `spec` on `device` with the kernels that take what it cannot behind
    /// it: where `spec` stores D with TMA, the same kernel with the
    /// register-store epilogue (a D that TMA cannot write: a column-major D
    /// whose M is not whole 16-byte chunks, a row-major one narrower than
    /// one chunk, an address or leading dimension off 16 bytes), then
    /// `fallback` where given (the SM80 kernel, for an A or B that TMA
    /// cannot read). The front doors that choose a path rather than one exact
    /// kernel (the builder, a typed configuration) run SM90 kernels this way,
    /// so that a valid GEMM on the path asked for runs.
    pub(crate) fn with_register_store(
        device: &Device,
        spec: GemmSpec,
        fallback: Option<GemmSpec>,
    ) -> Self {
        let direct = (spec.epilogue.policy == EpiloguePolicy::Sm90TmaWarpSpecialized)
            .then(|| {
                spec.clone()
                    .with_sm90_epilogue(EpiloguePolicy::Sm90NoSmem)
                    .ok()
            })
            .flatten()
            .filter(|direct| check_spec(direct).is_ok());
        let behind = match (direct, fallback) {
            (Some(direct), Some(fallback)) => {
                Some(Launcher::with_fallback(device, direct, fallback))
            }
            (Some(direct), None) => Some(Launcher::new(device, direct)),
            (None, Some(fallback)) => Some(Launcher::new(device, fallback)),
            (None, None) => None,
        };
        match behind {
            Some(behind) => Launcher::with_fallback_launcher(device, spec, behind),
            None => Launcher::new(device, spec),
        }
    }

    /// `spec` on `device` with `fallback` (itself possibly with a fallback)
    /// behind it.
    pub(crate) fn with_fallback_launcher(
        device: &Device,
        spec: GemmSpec,
        fallback: Launcher,
    ) -> Self {
        let mut launcher = Launcher::new(device, spec);
        launcher.fallback = Some(Box::new(fallback));
        launcher.share_workspace(launcher.workspace.clone());
        launcher
    }

    /// The launcher for `args`, as `run` walks the chain: this one, or the
    /// first fallback behind it whose kernel takes them (the last one where
    /// none does, so that its refusal is the one reported).
    fn route<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
        stream: &CudaStream,
        overrides: &Overrides,
    ) -> &Launcher
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let mut launcher = self;
        while let Some(fallback) = &launcher.fallback {
            if launcher.can_implement_here(args, stream, overrides).is_ok() {
                break;
            }
            launcher = fallback;
        }
        launcher
    }

    /// Whether `can_implement` and `run` reject scalars that are not finite in f32.
    pub(crate) fn set_check_scalars(&mut self, check: bool) {
        self.check_scalars = check;
        if let Some(fallback) = &mut self.fallback {
            fallback.set_check_scalars(check);
        }
        if let Some(picks) = &mut self.picks {
            picks
                .made_mut()
                .for_each(|launcher| launcher.set_check_scalars(check));
        }
    }

    pub(crate) fn spec(&self) -> &GemmSpec {
        &self.spec
    }

    pub(crate) fn device(&self) -> &Device {
        &self.device
    }

    /// Whether the device can run the spec's architecture
    /// ([`Error::UnsupportedArch`] naming both if not).
    pub(crate) fn check_device(&self) -> Result<()> {
        check_arch(
            &self.spec,
            self.device.ordinal(),
            self.device.compute_capability(),
        )
    }

    /// The spec's parts composed into a kernel (validated once).
    pub(crate) fn composed(&self) -> Result<&dyn GemmKernel> {
        if let Some(kernel) = self.composed.get() {
            return Ok(kernel.as_ref());
        }
        let kernel = self.spec.kernel()?;
        Ok(self.composed.get_or_init(|| kernel).as_ref())
    }

    /// The compiled kernel: validated, generated and JIT-compiled on the
    /// first call (through the process-wide module cache), then reused. The
    /// SM70 and SM80 kernels compile in two tiers (a quick compile now, the
    /// optimized one in the background). The SM90 kernels have one form
    /// for each case of beta ([`kernel_for`](Self::kernel_for)).
    pub(crate) fn kernel(&self) -> Result<&Arc<LoadedKernel>> {
        if let Some(kernel) = self.kernel.get() {
            return Ok(kernel);
        }
        self.check_device()?;
        let composed = self.composed()?;
        let spec = &self.spec;
        let name = || composed.name().to_string();
        let generate = || Ok(composed.ptx()?);
        let kernel = match (&self.custom, self.stand_in()) {
            (Some(custom), _) => get_or_load(
                &self.device,
                &(spec.clone(), custom.clone()),
                name,
                generate,
            )?,
            (None, Some(stand_in)) => {
                let quick = || stand_in.stand_in_ptx(None);
                get_or_load_with_stand_in(&self.device, spec, name, generate, quick)?
            }
            (None, None) if spec.arch == ArchKind::Sm90 => {
                get_or_load(&self.device, spec, name, generate)?
            }
            (None, None) => get_or_load_tiered(&self.device, spec, name, generate)?,
        };
        Ok(self.kernel.get_or_init(|| kernel))
    }

    /// The compiled kernel for a launch with `beta`: where the composed
    /// kernel is generated apart for beta = 0 and beta not 0 (the SM90
    /// kernels: one store body each, a fifth less JIT time than the kernel
    /// that tests beta), that case's kernel, compiled on its first launch
    /// behind its stand-in where it has one ([`GemmSpec::sm90_stand_in`]:
    /// the driver's level-1 compile of a wgmma kernel is no quicker than its
    /// full one, so the quick tier is a kernel of smaller tiles instead);
    /// else [`kernel`](Self::kernel).
    pub(crate) fn kernel_for(&self, beta: f64) -> Result<&Arc<LoadedKernel>> {
        // A kernel with one form for every beta, already compiled.
        if let Some(kernel) = self.kernel.get() {
            return Ok(kernel);
        }
        let read = SourceRead::for_beta(beta);
        let slot = &self.by_source[usize::from(read == SourceRead::Always)];
        if let Some(kernel) = slot.get() {
            return Ok(kernel);
        }
        self.check_device()?;
        let Some(variant) = self.composed()?.for_source(read) else {
            return self.kernel();
        };
        let key = (self.spec.clone(), read);
        let name = || variant.name().to_string();
        let generate = || Ok(variant.ptx()?);
        let kernel = match (&self.custom, self.stand_in()) {
            (Some(custom), _) => get_or_load(&self.device, &(key, custom.clone()), name, generate)?,
            // The stand-in's kernel for the same case of beta runs until
            // this one, compiled in the background, is ready.
            (None, Some(stand_in)) => {
                let quick = || stand_in.stand_in_ptx(Some(read));
                get_or_load_with_stand_in(&self.device, &key, name, generate, quick)?
            }
            (None, None) => get_or_load(&self.device, &key, name, generate)?,
        };
        Ok(slot.get_or_init(|| kernel))
    }

    /// This (stand-in) launcher's kernel name and PTX: its form for `read`,
    /// or the kernel that tests beta where `None` (the form the kernel it
    /// stands in for has: the same parameters either way).
    fn stand_in_ptx(&self, read: Option<SourceRead>) -> Result<(String, String)> {
        let composed = self.composed()?;
        let variant = match read {
            Some(read) => composed.for_source(read).ok_or_else(|| Error::Config {
                config: self.spec.kernel_name(),
                reason: format!("the stand-in has no form for {read:?}"),
            })?,
            None => return Ok((composed.name().to_string(), composed.ptx()?)),
        };
        Ok((variant.name().to_string(), variant.ptx()?))
    }

    /// The stand-in's launcher, where this kernel has one (whether it is
    /// used depends on tiered compiles being on: `get_or_load_with_stand_in`).
    fn stand_in(&self) -> Option<&Launcher> {
        self.stand_in
            .get_or_init(|| {
                let spec = self.spec.sm90_stand_in()?;
                Some(Box::new(Launcher::new(&self.device, spec)))
            })
            .as_deref()
    }

    /// Bytes of device workspace `run` needs: the kernel's parts' (0 for
    /// the data-parallel tile scheduler, which keeps no state between
    /// blocks; 0 for a spec whose parts cannot be built, which `run`
    /// refuses anyway).
    pub(crate) fn workspace_size<A, B, C, D>(&self, args: &Arguments<'_, A, B, C, D>) -> usize {
        let picked = self.picked(&args.shape);
        if !std::ptr::eq(picked, self) {
            return picked.workspace_size(args);
        }
        let shape = self.kernel_shape(&args.shape);
        let here = self.composed().map_or(0, |kernel| {
            kernel.workspace_size_on_device(&shape, self.device.limits().sm_count)
        });
        let fallback = self
            .fallback
            .as_ref()
            .map_or(0, |fallback| fallback.workspace_size(args));
        here.max(fallback)
    }

    /// Checks `args` (as `can_implement`) and the workspace's size, then
    /// compiles the kernel (or takes it from the cache).
    pub(crate) fn initialize<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
        workspace: Option<CudaSlice<u8>>,
    ) -> Result<&LoadedKernel>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let stream = self.device.default_stream();
        let overrides = self.overrides(args, &stream)?;
        self.initialize_with(args, workspace, &overrides)
    }

    /// [`initialize`](Self::initialize) with the copies' facts `overrides`.
    fn initialize_with<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
        workspace: Option<CudaSlice<u8>>,
        overrides: &Overrides,
    ) -> Result<&LoadedKernel>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let picked = self.picked(&args.shape);
        if !std::ptr::eq(picked, self) {
            return picked.initialize_with(args, workspace, overrides);
        }
        let stream = self.device.default_stream();
        let launcher = self.route(args, &stream, overrides);
        launcher.can_implement_here(args, &stream, overrides)?;
        // A workspace given becomes the GEMM's (shared by all its kernels)
        // once it is checked; without one the GEMM keeps its own.
        if let Some(buffer) = workspace {
            self.workspace
                .adopt(&self.device, buffer, self.workspace_size(args))?;
        }
        launcher.kernel_for(args.beta).map(|kernel| kernel.as_ref())
    }

    /// Blocks until the optimized compile of every kernel compiled so far
    /// is in use (this launcher's, its fallbacks', the kernels picked for
    /// each problem run), compiling this launcher's kernel for beta = 0
    /// first where no call has compiled any.
    pub(crate) fn wait_optimized(&self) -> Result<()> {
        if !self.wait_compiled()? {
            self.kernel_for(0.0)?.wait_optimized()?;
        }
        Ok(())
    }

    /// Waits for the optimized compile of each kernel this launcher, its
    /// fallbacks and its picks have compiled; whether there was any.
    fn wait_compiled(&self) -> Result<bool> {
        let mut any = false;
        let own = self.kernel.get().into_iter();
        for kernel in own.chain(self.by_source.iter().filter_map(OnceLock::get)) {
            kernel.wait_optimized()?;
            any = true;
        }
        if let Some(fallback) = &self.fallback {
            any |= fallback.wait_compiled()?;
        }
        for launcher in self.picks.iter().flat_map(|picks| picks.made()) {
            any |= launcher.wait_compiled()?;
        }
        Ok(any)
    }

    /// [`check_scalars`] on `args`, unless checks are off; and, for an i32
    /// D, that alpha and beta are whole numbers (always).
    fn check_scalars<A, B, C, D>(&self, args: &Arguments<'_, A, B, C, D>) -> Result<()> {
        if self.spec.types.d == ElementType::I32 {
            check_integer_scalars(args.alpha, args.beta)?;
        }
        if !self.check_scalars {
            return Ok(());
        }
        check_scalars(args.alpha, args.beta, &args.epilogue.scalars)
    }

    /// Every check of `args` against the spec and the device, reading the
    /// buffers' addresses on `stream` (the fallback's, for arguments this
    /// kernel cannot take).
    pub(crate) fn can_implement<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
        stream: &CudaStream,
    ) -> Result<()>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let overrides = self.overrides(args, stream)?;
        let picked = self.picked(&args.shape);
        picked
            .route(args, stream, &overrides)
            .can_implement_here(args, stream, &overrides)
    }

    /// [`can_implement`](Self::can_implement) for this launcher's own kernel.
    /// The copies' facts in `overrides` stand in for the caller's A and B.
    fn can_implement_here<A, B, C, D>(
        &self,
        args: &Arguments<'_, A, B, C, D>,
        stream: &CudaStream,
        overrides: &Overrides,
    ) -> Result<()>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        self.check_device()?;
        let composed = self.composed()?;
        let (a, _a) = args.a.data.device_ptr(stream);
        let (b, _b) = args.b.data.device_ptr(stream);
        let (d, _d) = args.d.data.device_ptr(stream);
        let c = match &args.c {
            Source::Buffer(c) => Some(c.data.device_ptr(stream).0),
            Source::D => None,
        };
        let mut problem = facts(args, [a, b, c.unwrap_or(d), d]);
        if let Some(a) = overrides[0] {
            problem.a = a;
        }
        if let Some(b) = overrides[1] {
            problem.b = b;
        }
        check_problem_for(self.view(), self.view_alignment(composed), &problem)?;
        check_tma_stores(composed, &self.spec, &self.kernel_shape(&args.shape))?;
        check_epilogue_args(self.view(), args)?;
        args.scheduler.raster_log()?;
        self.check_scalars(args)
    }

    /// Checks `args` and launches the kernel on `stream`. An empty output
    /// (M, N or L zero) returns after the checks without a launch.
    pub(crate) fn run<A, B, C, D>(
        &self,
        args: &mut Arguments<'_, A, B, C, D>,
        stream: &Arc<CudaStream>,
    ) -> Result<()>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        self.run_on(args, stream, None)
    }

    /// [`run`](Self::run), with a persistent grid sized for at most
    /// `sm_count` SMs where that is given (CUTLASS's
    /// `KernelHardwareInfo::sm_count`), below the device's own count: the
    /// other SMs stay free for kernels that run beside this one.
    /// The caller's MN-major 8-bit operands are copied K-major first.
    pub(crate) fn run_on<A, B, C, D>(
        &self,
        args: &mut Arguments<'_, A, B, C, D>,
        stream: &Arc<CudaStream>,
        sm_count: Option<u32>,
    ) -> Result<()>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        if self.copies.any() {
            self.check_device()?;
            self.device.check_stream(stream)?;
            return run_copied(self, self.copies, args, stream, sm_count);
        }
        self.run_kernel(args, stream, sm_count)
    }

    /// [`run_on`](Self::run_on) on `args` as the kernel reads them (any
    /// copies made).
    pub(crate) fn run_kernel<A, B, C, D>(
        &self,
        args: &mut Arguments<'_, A, B, C, D>,
        stream: &Arc<CudaStream>,
        sm_count: Option<u32>,
    ) -> Result<()>
    where
        A: Element + DeviceRepr,
        B: Element + DeviceRepr,
        C: Element + DeviceRepr,
        D: Element + DeviceRepr,
    {
        let picked = self.picked(&args.shape);
        if !std::ptr::eq(picked, self) {
            return picked.run_kernel(args, stream, sm_count);
        }
        self.check_device()?;
        self.device.check_stream(stream)?;
        self.check_scalars(args)?;
        let raster_log = args.scheduler.raster_log()?;
        let spec = &self.spec;
        let shape = args.shape;
        // The guards record each buffer's read (or D's write) on `stream`
        // when they drop, after the launch is enqueued.
        let (a, _a_read): (u64, SyncOnDrop<'_>) = args.a.data.device_ptr(stream);
        let (b, _b_read) = args.b.data.device_ptr(stream);
        let (c, _c_read) = match &args.c {
            Source::Buffer(c) => {
                let (address, guard) = c.data.device_ptr(stream);
                (Some(address), Some(guard))
            }
            Source::D => (None, None),
        };
        let (ldc, batch_c) = match &args.c {
            Source::Buffer(c) => (c.ld, c.batch_stride),
            Source::D => (args.d.ld, args.d.batch_stride),
        };
        let (mut lda, mut batch_a, mut ldb, mut batch_b, ldd, batch_d) = (
            args.a.ld,
            args.a.batch_stride,
            args.b.ld,
            args.b.batch_stride,
            args.d.ld,
            args.d.batch_stride,
        );
        let (alpha, beta) = (args.alpha, args.beta);
        // D's address comes last: its guard borrows `args.d` mutably until
        // the launch, after every check that reads `args`.
        let mut problem = facts(args, [a, b, c.unwrap_or(0), 0]);
        check_epilogue_args(self.view(), args)?;
        let (d, _d_write) = args.d.data.device_ptr_mut(stream);
        problem.d.address = Some(d);
        let composed = self.composed()?;
        // A problem this kernel cannot take goes to the fallback where there
        // is one (checked once here: the checks above hold for both kernels).
        let fits = check_problem_for(self.view(), self.view_alignment(composed), &problem)
            .and_then(|()| check_tma_stores(composed, spec, &self.kernel_shape(&shape)));
        if let Err(e) = fits {
            let Some(fallback) = &self.fallback else {
                return Err(e);
            };
            drop((_a_read, _b_read, _c_read, _d_write));
            return fallback.run_kernel(args, stream, sm_count);
        }
        // D's amax starts at 0 on the stream; the kernel raises it.
        if let Some(amax) = args.epilogue.d_amax.as_mut() {
            stream
                .memset_zeros(amax)
                .map_err(|e| Error::driver("zeroing D's amax", e))?;
        }
        if shape.is_empty_output() {
            return Ok(());
        }
        let kernel = self.kernel_for(args.beta)?;
        // One read of which compile runs: while a stand-in runs in this
        // kernel's place, the launch takes the stand-in's geometry (tiles,
        // grid, shared memory, tensor-map boxes) with the stand-in's code.
        let (function, tier) = kernel.current();
        let target = if tier == JitTier::Quick && kernel.stand_in() {
            // Only a launcher of this spec made this entry, asking for this
            // spec's stand-in: it exists.
            self.stand_in().ok_or_else(|| Error::Config {
                config: spec.kernel_name(),
                reason: "its compiled kernel runs a stand-in that this spec does not have".into(),
            })?
        } else {
            self
        };
        let (spec, composed) = (&target.spec, target.composed()?);
        // A swap-AB kernel reads B as its A and A as its B over the
        // problem M' = N, N' = M (the checks above read the caller's view).
        let (mut a, mut b) = (a, b);
        if self.swaps_ab() {
            std::mem::swap(&mut a, &mut b);
            std::mem::swap(&mut lda, &mut ldb);
            std::mem::swap(&mut batch_a, &mut batch_b);
        }
        let shape = self.kernel_shape(&shape);
        let (m, n, k, l) = (
            shape.m as u32,
            shape.n as u32,
            shape.k as u32,
            shape.l as u32,
        );
        let mut _bias_reads = Vec::new();
        let mut biases = Vec::new();
        for bias in &args.epilogue.biases {
            let (address, guard) = bias.device_ptr(stream);
            biases.push(address);
            _bias_reads.push(guard);
        }
        // Block scales are the mainloop's; the others are epilogue vectors.
        let block = spec.epilogue.fusion.scales() == Some(ScaleGranularity::Block);
        let mut block_scales = [0u64; 2];
        for (i, scale) in args.epilogue.scales.iter().flatten().enumerate() {
            let (address, guard) = scale.device_ptr(stream);
            match block {
                true => block_scales[i] = address,
                false => biases.push(address),
            }
            _bias_reads.push(guard);
        }
        let (d_scale, _d_scale_read) = match &args.epilogue.d_scale {
            Some(scale) => {
                let (address, guard) = scale.device_ptr(stream);
                (Some(address), Some(guard))
            }
            None => (None, None),
        };
        let (d_amax, _d_amax_write) = match args.epilogue.d_amax.as_mut() {
            Some(amax) => {
                let (address, guard) = amax.device_ptr_mut(stream);
                (Some(address), Some(guard))
            }
            None => (None, None),
        };
        let values = ParamValues {
            addresses: [a, b, c.unwrap_or(d), d],
            extents: [m, n, k, l],
            ld: [lda, ldb, ldc, ldd].map(|x| x as u64),
            batch_strides: [batch_a, batch_b, batch_c, batch_d].map(|x| x as u64),
            alpha: alpha as f32,
            beta: beta as f32,
            biases,
            scalars: args.epilogue.scalars.iter().map(|&x| x as f32).collect(),
            d_scale,
            d_amax,
            block_scales: block.then_some(block_scales),
            workspace: 0,
            tensor_maps: [None; 4],
            edge_tensor_maps: [None; 2],
            raster_log,
            raster_order: Some({
                let (tiles_m, tiles_n) = spec.tiles(m, n);
                args.scheduler
                    .raster_order
                    .resolve(tiles_m, tiles_n, spec.cluster)
            }),
        };
        let mut values = values;
        // Where beta is 0 the kernel never reads C (the beta-0 form has no
        // read of it; a kernel that tests beta tests it first), so C's slot
        // takes D's map rather than one more encode on each launch.
        let (c_slot, d_slot) = (GemmOperand::C as usize, GemmOperand::D as usize);
        let requests = composed.tensor_maps();
        let c_unread = SourceRead::for_beta(beta) == SourceRead::Never
            && requests.iter().any(|r| r.operand as usize == d_slot);
        for request in &requests {
            let op = request.operand as usize;
            if op == c_slot && c_unread {
                continue;
            }
            // An edge map whose last tile holds whole boxes is never read
            // (every tile loads through the whole map): its slot takes the
            // whole map rather than one more encode on each launch.
            let whole = request.clip_rows && {
                let strided = values.extents[dim_index(request.dims[1])];
                TensorMapRequest::edge_rows(request.box_dims[1], strided) == request.box_dims[1]
            };
            let map = match whole {
                true => values.tensor_maps[op],
                false => Some(tensor_map(request, &values, map_element(spec, op))?),
            };
            match request.clip_rows {
                true => {
                    let slot = values.edge_tensor_maps.get_mut(op).ok_or_else(|| {
                        Error::invalid_argument(
                            "a tensor map request",
                            format!("an edge map of {}", request.operand.name()),
                            "edge maps of A and B only",
                        )
                    })?;
                    *slot = map;
                }
                false => values.tensor_maps[op] = map,
            }
        }
        if c_unread && requests.iter().any(|r| r.operand as usize == c_slot) {
            values.tensor_maps[c_slot] = values.tensor_maps[d_slot];
        }
        let shared_mem_bytes = composed.shared_storage().bytes;
        let resident = *target.resident.get_or_init(|| {
            resident_blocks(
                function,
                composed,
                shared_mem_bytes,
                self.device.limits().sm_count,
            )
        });
        // A cap on the SMs keeps whole clusters (the grid is a multiple of
        // the cluster's size) and at least one of them.
        let resident = match sm_count {
            Some(cap) if cap < resident => {
                let cluster_size = composed.cluster().launch_dims().iter().product::<u32>();
                let cluster_size = cluster_size.max(1);
                (cap - cap % cluster_size).max(cluster_size)
            }
            _ => resident,
        };
        let config = LaunchConfig {
            grid: composed.grid_on_device(m, n, l, resident),
            block: (composed.block_threads(), 1, 1),
            shared_mem_bytes,
        };
        // A scheduler that keeps state between blocks: the launcher's own
        // workspace, ordered after its last launch (whatever the stream).
        let workspace_bytes =
            composed.workspace_size_on_device(&shape, self.device.limits().sm_count);
        let workspace = if workspace_bytes > 0 {
            let layout = WorkspaceLayout {
                tile: spec.tile,
                scheduler: spec.scheduler,
                reduction: spec.reduction,
                cluster: [spec.cluster.m, spec.cluster.n],
                // Stream-K's slots follow a counter pair per block.
                grid: match spec.scheduler {
                    crate::kernel::gemm::TileSchedulerPolicy::StreamK => config.grid.0,
                    _ => 0,
                },
            };
            let acquired = self.workspace.acquire(stream, workspace_bytes, layout)?;
            values.workspace = acquired.address;
            Some(acquired)
        } else {
            None
        };
        let mut params = KernelArgs::new(stream);
        values.push(composed, &mut params)?;
        // SAFETY: the params are the kernel's own parameter list walked in
        // its order, each role's value of its declared type (`ParamValues::
        // push`: addresses, leading dimensions, batch strides and bias
        // addresses as u64; extents, raster_log and raster_order as u32; alpha, beta and
        // the extra scalars as f32, rounded from the f64 arguments).
        // `check_epilogue` proved the bias count, their lengths (M or N
        // elements of C's type) and the scalar count match the epilogue.
        // `check_problem` proved every buffer holds the elements the shape,
        // leading dimensions and batch strides address, with the element
        // types and alignment of the spec, and that D's batches do not
        // overlap; A, B and C are only read; C is either a buffer distinct
        // from D (Rust borrows) or D itself, which the kernel reads (element
        // by element, or a subtile by TMA) before it writes the same
        // elements, tile by tile. The grid, block and shared
        // memory are the composed kernel's own, and `function` is that
        // kernel's compiled code (the stand-in's while `current` says it
        // runs: both were read at once).
        // A kernel of thread-block clusters launches with its cluster shape.
        // A kernel that waits for the grid ahead before it touches global
        // memory (`dependent_launch`) may start before that grid ends.
        // The workspace (where the kernel has one) is held for this launch,
        // at least `workspace_size` bytes, its flags zero, on this device.
        let [x, y, z] = composed.cluster().launch_dims();
        let launched = unsafe {
            function.launch_after_grid_ahead(
                &config,
                (x, y, z),
                composed.dependent_launch(),
                params,
            )
        };
        launched?;
        match workspace {
            Some(acquired) => acquired.launched(stream),
            None => Ok(()),
        }
    }
}

/// Checks that the outputs a kernel stores with TMA have rows of whole
/// 16-byte chunks: the H100 writes a row's last partial chunk whole
/// (measured: the TMA store of a 291-column bf16 D wrote zeros into
/// columns 291-295 of a 296-element row), which would overwrite what lies
/// past N (or M) in D's rows. A map over whole chunks only
/// ([`TensorMapRequest::whole_chunks`]: the kernel writes the rest of each
/// row itself) needs one chunk.
///
/// Errors: [`Error::InvalidArgument`] naming the extent.
fn check_tma_stores(composed: &dyn GemmKernel, spec: &GemmSpec, shape: &GemmShape) -> Result<()> {
    // An empty output (M, N or L zero) launches nothing: nothing is stored.
    if shape.is_empty_output() {
        return Ok(());
    }
    for request in composed.tensor_maps() {
        // Only D is stored; C's map is loaded from, partial chunks and all.
        if request.operand != GemmOperand::D {
            continue;
        }
        let (extent, name) = match request.dims[0] {
            ProblemDim::M => (shape.m, "M"),
            _ => (shape.n, "N"),
        };
        let element = element_of(spec, request.operand as usize);
        let size = element.size_bytes() as usize;
        if tma_store_takes(element, extent as u64, request.whole_chunks) {
            continue;
        }
        // The map ends at the last whole chunk, which must exist; else the
        // rows must be whole chunks.
        let expected = if request.whole_chunks {
            format!(
                "at least {} ({} elements fill one 16-byte chunk, the least a TMA store writes)",
                16 / size,
                element
            )
        } else {
            format!(
                "a multiple of {} ({} elements make rows of whole 16-byte chunks, which the TMA-store epilogue writes whole)",
                16 / size,
                element
            )
        };
        return Err(Error::invalid_argument(
            format!("{name} of a D stored with TMA"),
            extent,
            format!("{expected}; the register-store epilogue (EpilogueNoSmemWarpSpecialized) takes any {name}"),
        ));
    }
    Ok(())
}

/// Blocks of `composed` the GPU runs at once, the figure its persistent
/// grid is sized by: for a kernel of clusters, the clusters that fit
/// (`cuOccupancyMaxActiveClusters`) times their size, which is below the SM
/// count where the GPCs' SMs do not divide into whole clusters (2x2
/// clusters on the H100's 132 SMs); else, or where the driver cannot say,
/// the SM count.
fn resident_blocks(
    function: &Function,
    composed: &dyn GemmKernel,
    shared_mem_bytes: u32,
    sm_count: u32,
) -> u32 {
    let [x, y, z] = composed.cluster().launch_dims();
    let size = x * y * z;
    if size <= 1 {
        return sm_count;
    }
    let block = (composed.block_threads(), 1, 1);
    match function.max_active_clusters(block, shared_mem_bytes, (x, y, z)) {
        Ok(clusters) if clusters > 0 => clusters.saturating_mul(size),
        _ => sm_count,
    }
}

/// The element type a tensor map of operand `op` (0..4: A, B, C, D) of
/// `spec` loads: the operand's, except that f32 inputs of A and B (which
/// multiply as tf32) load as tf32, as a tf32 GEMM's do, so that both give
/// the same bits.
fn map_element(spec: &GemmSpec, op: usize) -> ElementType {
    match element_of(spec, op) {
        ElementType::F32 if op == GemmOperand::A as usize || op == GemmOperand::B as usize => {
            ElementType::TF32
        }
        element => element,
    }
}

/// The element type of operand `op` (0..4: A, B, C, D) of `spec`.
fn element_of(spec: &GemmSpec, op: usize) -> ElementType {
    let t = spec.types;
    [t.a, t.b, t.c, t.d][op]
}

/// The rank-3 tiled tensor map `request` describes over this run's operand:
/// (contiguous, strided, batch) in elements, the strided dimension's and
/// the batch's strides in bytes, the request's box and swizzle (64 or 128
/// bytes), zeros out of bounds.
///
/// Errors: [`Error::InvalidArgument`] where TMA cannot describe the operand
/// (an address or stride that is not a multiple of 16 bytes, ...);
/// [`Error::Driver`] where the driver refuses it.
fn tensor_map(
    request: &TensorMapRequest,
    values: &ParamValues,
    element: ElementType,
) -> Result<TensorMapArg> {
    let op = request.operand as usize;
    let extent = |dim: ProblemDim| u64::from(values.extents[dim_index(dim)]);
    let (mut contiguous, strided, l) = (
        extent(request.dims[0]),
        extent(request.dims[1]),
        extent(ProblemDim::L),
    );
    let size = u64::from(element.size_bytes());
    if request.whole_chunks {
        contiguous -= contiguous % (16 / size);
    }
    // Where K is 0 the kernel reads no element of A or B: any multiple of 16
    // bytes describes their rows (an `ld` of 0 or 1 is valid there).
    let unread = values.extents[dim_index(ProblemDim::K)] == 0
        && (op == GemmOperand::A as usize || op == GemmOperand::B as usize);
    let ld = if unread { 16 } else { values.ld[op] * size };
    // A single batch's stride is never used: any multiple of 16 describes it.
    let batch = if l > 1 && !unread {
        values.batch_strides[op] * size
    } else {
        (ld * strided).next_multiple_of(16).max(16)
    };
    // The last tile's box stops at the operand's rows (the kernel counts
    // the same bytes: `TensorMapRequest::edge_rows`).
    let rows = match request.clip_rows {
        true => TensorMapRequest::edge_rows(
            request.box_dims[1],
            u32::try_from(strided).unwrap_or(u32::MAX),
        ),
        false => request.box_dims[1],
    };
    let swizzle = match request.swizzle_bytes {
        128 => TmaSwizzle::B128,
        64 => TmaSwizzle::B64,
        32 => TmaSwizzle::B32,
        _ => TmaSwizzle::None,
    };
    TmaTiled {
        element,
        global_address: values.addresses[op],
        dims: vec![contiguous.max(1), strided.max(1), l.max(1)],
        strides_bytes: vec![ld, batch],
        box_dims: vec![request.box_dims[0], rows, 1],
        swizzle,
        oob_zero: true,
    }
    .encode()
}

/// The configuration rules ([`GemmSpec::validate`]) and each part's own
/// `can_implement`, through composing the kernel ([`GemmSpec::kernel`]).
pub(crate) fn check_spec(spec: &GemmSpec) -> Result<()> {
    spec.kernel().map(|_| ())
}

/// The checkable facts of `args`, with the addresses `[a, b, c, d]` (0 = unknown).
fn facts<A, B, C, D>(args: &Arguments<'_, A, B, C, D>, [a, b, c, d]: [u64; 4]) -> ProblemFacts
where
    A: Element,
    B: Element,
    C: Element,
    D: Element,
{
    let known = |address: u64| (address != 0).then_some(address);
    ProblemFacts {
        shape: args.shape,
        a: OperandFacts {
            element: A::TYPE,
            address: known(a),
            len: args.a.data.len(),
            ld: args.a.ld,
            batch_stride: args.a.batch_stride,
        },
        b: OperandFacts {
            element: B::TYPE,
            address: known(b),
            len: args.b.data.len(),
            ld: args.b.ld,
            batch_stride: args.b.batch_stride,
        },
        c: match &args.c {
            Source::Buffer(operand) => Some(OperandFacts {
                element: C::TYPE,
                address: known(c),
                len: operand.data.len(),
                ld: operand.ld,
                batch_stride: operand.batch_stride,
            }),
            Source::D => None,
        },
        d: OperandFacts {
            element: D::TYPE,
            address: known(d),
            len: args.d.data.len(),
            ld: args.d.ld,
            batch_stride: args.d.batch_stride,
        },
    }
}

/// [`check_epilogue`] on `args`' epilogue inputs.
fn check_epilogue_args<A, B, C, D>(
    spec: &GemmSpec,
    args: &Arguments<'_, A, B, C, D>,
) -> Result<()> {
    let epilogue = &spec.epilogue.fusion;
    if epilogue.scales().is_some() != args.epilogue.scales.is_some() {
        return Err(Error::invalid_argument(
            "scales of A and B",
            if args.epilogue.scales.is_some() {
                "given"
            } else {
                "missing"
            },
            if epilogue.scales().is_some() {
                "Arguments::with_scales for a GEMM built with scales"
            } else {
                "none for a GEMM built without scales (GemmBuilder::scales)"
            },
        ));
    }
    let output = epilogue.output();
    let given = [
        (
            "d_scale",
            output.d_scale,
            args.epilogue.d_scale.as_ref().map(|v| v.len()),
        ),
        (
            "d_amax",
            output.d_amax,
            args.epilogue.d_amax.as_ref().map(|v| v.len()),
        ),
    ];
    for (name, built, len) in given {
        match (built, len) {
            (true, None) => {
                return Err(Error::invalid_argument(
                    name,
                    "missing",
                    format!(
                        "Arguments::with_{name} for a GEMM built with GemmBuilder::{name}(true)"
                    ),
                ))
            }
            (false, Some(_)) => {
                return Err(Error::invalid_argument(
                    name,
                    "given",
                    format!("none for a GEMM built without GemmBuilder::{name}(true)"),
                ))
            }
            (true, Some(0)) => {
                return Err(Error::invalid_argument(
                    format!("{name} length"),
                    0,
                    "one f32 in device memory",
                ))
            }
            _ => {}
        }
    }
    let mut lens: Vec<usize> = args.epilogue.biases.iter().map(|b| b.len()).collect();
    let scale_lens = args
        .epilogue
        .scales
        .as_ref()
        .map(|[a, b]| [a.len(), b.len()]);
    match (epilogue.scales(), scale_lens) {
        (Some(ScaleGranularity::Block), Some(scale_lens)) => {
            check_block_scales(&args.shape, scale_lens)?
        }
        _ => lens.extend(scale_lens.into_iter().flatten()),
    }
    check_epilogue(spec, &args.shape, &lens, args.epilogue.scalars.len())
}
