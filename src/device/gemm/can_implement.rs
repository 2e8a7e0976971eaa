//! Whether a [`GemmSpec`] can run a problem, and why not: the checks behind
//! `can_implement`, on plain values so that they run (and are tested)
//! without a GPU.
//!
//! Each check returns [`Error::InvalidArgument`] naming the operand, the
//! offending value and what was expected (the alignment required, the length
//! the shape and strides need, the largest size 32-bit indexing allows), or
//! [`Error::UnsupportedArch`] for a device that cannot run the kernel.

use crate::kernel::gemm::{GemmSpec, OperandMajor, OutputMajor, TileSchedulerPolicy};
use crate::numeric::ElementType;
use crate::{Error, Result};

use super::arguments::GemmShape;

/// The largest M, N or K: the kernel indexes rows, columns and the reduction
/// with 32-bit signed integers.
pub const MAX_EXTENT: usize = i32::MAX as usize;

/// The largest batch count L: batches are the grid's y dimension.
pub const MAX_BATCH: usize = 65_535;

/// The most units of work (output tiles of every batch, times split-K's
/// splits) a persistent tile walk takes: 2^30.
pub const MAX_WALK_UNITS: usize = 1 << 30;

/// What the checks need to know of one operand's buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OperandFacts {
    /// The element type of the buffer (a tf32 operand is stored as f32).
    pub element: ElementType,
    /// The buffer's device address, where known (`None` skips the pointer check).
    pub address: Option<u64>,
    /// The buffer's length in elements.
    pub len: usize,
    /// Leading dimension in elements.
    pub ld: usize,
    /// Batch stride in elements.
    pub batch_stride: usize,
}

/// What the checks need to know of a whole problem.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProblemFacts {
    /// (M, N, K, L).
    pub shape: GemmShape,
    /// A.
    pub a: OperandFacts,
    /// B.
    pub b: OperandFacts,
    /// C, or `None` when C is D's buffer.
    pub c: Option<OperandFacts>,
    /// D.
    pub d: OperandFacts,
}

/// Checks every fact of `problem` against `spec`: the spec itself, the shape
/// limits, element types, leading dimensions, batch strides, buffer lengths
/// and (where addresses are known) pointer alignment.
///
/// An empty output (M, N or L zero) passes the size checks of every operand:
/// nothing is read or written. With K zero, A and B are not read, and D is
/// `beta · C`.
///
/// The alignments are the composed kernel's ([`GemmKernel::alignment`](crate::kernel::gemm::GemmKernel::alignment):
/// its mainloop's for A and B, its epilogue's for C and D).
pub fn check_problem(spec: &GemmSpec, problem: &ProblemFacts) -> Result<()> {
    let kernel = spec.kernel()?;
    check_problem_for(spec, kernel.alignment(), problem)
}

/// [`check_problem`] with the alignments of the kernel already composed
/// from `spec` (the launcher keeps it).
pub(crate) fn check_problem_for(
    spec: &GemmSpec,
    [align_a, align_b, align_c, align_d]: [u32; 4],
    problem: &ProblemFacts,
) -> Result<()> {
    let shape = problem.shape;
    check_shape(&shape, spec)?;
    let a = OperandCheck::new(
        "a",
        spec.types.a,
        align_a,
        operand_extent(spec.majors.a, shape.m, shape.k),
    );
    let b = OperandCheck::new(
        "b",
        spec.types.b,
        align_b,
        operand_extent(spec.majors.b, shape.n, shape.k),
    );
    let c_extent = output_extent(spec.majors.c, shape.m, shape.n);
    let d_extent = output_extent(spec.majors.d, shape.m, shape.n);
    let empty = shape.is_empty_output();
    a.check(&problem.a, &shape, empty || shape.k == 0)?;
    b.check(&problem.b, &shape, empty || shape.k == 0)?;
    let d = OperandCheck::new("d", spec.types.d, align_d, d_extent);
    d.check(&problem.d, &shape, empty)?;
    match &problem.c {
        Some(c_facts) => {
            OperandCheck::new("c", spec.types.c, align_c, c_extent).check(c_facts, &shape, empty)?
        }
        None => {
            if spec.types.c != spec.types.d || spec.majors.c != spec.majors.d {
                return Err(Error::invalid_argument(
                    "c",
                    "d's own buffer (Source::D)",
                    format!(
                        "a separate C buffer: the kernel's C is {} {:?}-major and its D {} {:?}-major, so D cannot serve as C",
                        spec.types.c, spec.majors.c, spec.types.d, spec.majors.d
                    ),
                ));
            }
        }
    }
    if shape.l > 1 && !empty {
        let one_batch = extent_elements(d_extent, problem.d.ld);
        if (problem.d.batch_stride as u128) < one_batch {
            return Err(Error::invalid_argument(
                "d.batch_stride",
                problem.d.batch_stride,
                format!(
                    "at least {one_batch} (one batch of D) so that batches of D do not overlap"
                ),
            ));
        }
    }
    Ok(())
}

/// Checks one operand of `shape` as [`check_problem`] does, for a reader
/// that needs no alignment: A (`b` false: rows M) or B (rows N) of
/// `element` in `major`; an empty output or K = 0 checks the type only.
pub(crate) fn check_unaligned_operand(
    b: bool,
    element: ElementType,
    major: OperandMajor,
    shape: &GemmShape,
    facts: &OperandFacts,
) -> Result<()> {
    let (name, rows) = if b { ("b", shape.n) } else { ("a", shape.m) };
    OperandCheck::new(name, element, 1, operand_extent(major, rows, shape.k)).check(
        facts,
        shape,
        shape.is_empty_output() || shape.k == 0,
    )
}

/// Checks that a kernel generated for `spec` runs on a device of compute
/// capability `major.minor` (device `ordinal`).
///
/// Errors: [`Error::UnsupportedArch`] naming the kernel, what it needs and the device.
pub fn check_arch(spec: &GemmSpec, ordinal: usize, (major, minor): (u32, u32)) -> Result<()> {
    if spec.arch.can_run_on(major, minor) {
        return Ok(());
    }
    let (need_major, need_minor) = spec.arch.compute_capability();
    let required = match spec.arch {
        crate::arch::ArchKind::Sm90 => format!("{} (compute capability 9.0 exactly)", spec.arch),
        arch => format!("{arch} (compute capability {need_major}.{need_minor} or newer)"),
    };
    Err(Error::UnsupportedArch {
        kernel: spec.kernel_name(),
        required,
        ordinal,
        major,
        minor,
    })
}

/// M, N, K within 32-bit indexing, L within the grid, the tile count within the grid.
fn check_shape(shape: &GemmShape, spec: &GemmSpec) -> Result<()> {
    for (name, value) in [("m", shape.m), ("n", shape.n), ("k", shape.k)] {
        if value > MAX_EXTENT {
            return Err(Error::invalid_argument(
                name,
                value,
                format!("at most {MAX_EXTENT} (the kernel indexes with 32-bit integers)"),
            ));
        }
    }
    if shape.l > MAX_BATCH {
        return Err(Error::invalid_argument(
            "l",
            shape.l,
            format!("at most {MAX_BATCH} batches (the grid's y extent)"),
        ));
    }
    let tiles = shape.m.div_ceil(spec.tile[0] as usize) as u128
        * shape.n.div_ceil(spec.tile[1] as usize) as u128;
    if tiles > MAX_EXTENT as u128 {
        return Err(Error::invalid_argument(
            "m x n",
            format!(
                "{} x {} ({tiles} tiles of {}x{})",
                shape.m, shape.n, spec.tile[0], spec.tile[1]
            ),
            format!("at most {MAX_EXTENT} output tiles (the grid's x extent, indexed in 32 bits)"),
        ));
    }
    // A persistent walk numbers the units of every batch in one index and
    // divides it by the launcher's multipliers, exact below 2^31
    // (`LaunchDivisor`); 2^30 leaves the grid's stride room past the last.
    let splits = match spec.scheduler {
        TileSchedulerPolicy::SplitK { splits } => splits.max(1),
        _ => 1,
    };
    let units = tiles * shape.l as u128 * u128::from(splits);
    if spec.scheduler != TileSchedulerPolicy::DataParallel && units > MAX_WALK_UNITS as u128 {
        return Err(Error::invalid_argument(
            "m x n x l",
            format!(
                "{} x {} x {} ({units} units of {}x{} tiles{})",
                shape.m,
                shape.n,
                shape.l,
                spec.tile[0],
                spec.tile[1],
                if splits > 1 { format!(" in {splits} splits") } else { String::new() }
            ),
            format!("at most {MAX_WALK_UNITS} units of work over every batch (the tile walk indexes them in 31 bits)"),
        ));
    }
    Ok(())
}

/// (strided, contiguous) extents of an M × K or N × K operand.
fn operand_extent(major: OperandMajor, mn: usize, k: usize) -> (usize, usize) {
    match major {
        OperandMajor::K => (mn, k),
        OperandMajor::MN => (k, mn),
    }
}

/// (strided, contiguous) extents of an M × N output.
fn output_extent(major: OutputMajor, m: usize, n: usize) -> (usize, usize) {
    match major {
        OutputMajor::N => (m, n),
        OutputMajor::M => (n, m),
    }
}

/// Elements one batch spans: `(strided - 1) · ld + contiguous`.
fn extent_elements((strided, contiguous): (usize, usize), ld: usize) -> u128 {
    if strided == 0 || contiguous == 0 {
        return 0;
    }
    (strided as u128 - 1) * ld as u128 + contiguous as u128
}

/// The expectations for one operand.
struct OperandCheck {
    name: &'static str,
    element: ElementType,
    align: u32,
    extent: (usize, usize),
}

impl OperandCheck {
    fn new(name: &'static str, element: ElementType, align: u32, extent: (usize, usize)) -> Self {
        OperandCheck {
            name,
            element,
            align,
            extent,
        }
    }

    /// Element type always; alignment, leading dimension and length unless
    /// the operand is not touched (`untouched`).
    fn check(&self, facts: &OperandFacts, shape: &GemmShape, untouched: bool) -> Result<()> {
        let name = self.name;
        let stored_as = match self.element {
            ElementType::TF32 => ElementType::F32,
            other => other,
        };
        if facts.element != stored_as && facts.element != self.element {
            return Err(Error::invalid_argument(
                format!("{name} element type"),
                facts.element,
                format!(
                    "{stored_as} (the kernel's {} type for {name})",
                    self.element
                ),
            ));
        }
        if untouched {
            return Ok(());
        }
        let align = self.align.max(1) as usize;
        let bytes = align * self.element.size_bytes() as usize;
        if let Some(address) = facts.address {
            if !address.is_multiple_of(bytes as u64) {
                return Err(Error::invalid_argument(
                    format!("{name} (device address)"),
                    format!("{address:#x}"),
                    format!("a {bytes}-byte aligned address ({align} {} elements, the kernel's vector width)", self.element),
                ));
            }
        }
        let (strided, contiguous) = self.extent;
        if facts.ld < contiguous {
            return Err(Error::invalid_argument(
                format!("ld{name}"),
                facts.ld,
                format!("at least {contiguous}, the contiguous extent of {name}"),
            ));
        }
        if strided > 1 && !facts.ld.is_multiple_of(align) {
            return Err(Error::invalid_argument(
                format!("ld{name}"),
                facts.ld,
                format!(
                    "a multiple of {align} elements ({bytes} bytes, the kernel's vector width)"
                ),
            ));
        }
        if shape.l > 1 && !facts.batch_stride.is_multiple_of(align) {
            return Err(Error::invalid_argument(
                format!("{name}.batch_stride"),
                facts.batch_stride,
                format!(
                    "a multiple of {align} elements ({bytes} bytes, the kernel's vector width)"
                ),
            ));
        }
        let needed = (shape.l as u128 - 1) * facts.batch_stride as u128
            + extent_elements(self.extent, facts.ld);
        if (facts.len as u128) < needed {
            return Err(Error::invalid_argument(
                format!("{name}.len()"),
                facts.len,
                format!(
                    "at least {needed} elements for {strided} x {contiguous} with ld {} and {} batch(es) {} apart",
                    facts.ld, shape.l, facts.batch_stride
                ),
            ));
        }
        Ok(())
    }
}
