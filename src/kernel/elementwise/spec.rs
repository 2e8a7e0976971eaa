//! [`ElementwiseSpec`]: everything static about one elementwise kernel, the
//! module-cache key; and the kernel's parameter ABI.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};

use super::schedule::Schedule;
use super::tiling::Tiling;
use crate::arch::ArchKind;
use crate::fusion::Expression;
use crate::numeric::ElementType;

/// The element types an elementwise kernel loads and stores.
pub const SUPPORTED_ELEMENTS: [ElementType; 5] = [
    ElementType::F16,
    ElementType::BF16,
    ElementType::F32,
    ElementType::F64,
    ElementType::I32,
];

/// How one tensor is accessed along the contiguous (`N`) mode, decided per
/// tensor at launch from its strides and address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    /// Column stride 1: `width` consecutive elements per load or store (a
    /// power of two, at most 16 bytes); the row stride and the address are
    /// multiples of `width` elements.
    Contiguous {
        /// Elements per access.
        width: u32,
    },
    /// Column stride 0: one element per row, broadcast along `N`.
    Broadcast,
    /// Any other column stride: one element per access at `col * stride`.
    Strided,
}

/// One tensor of the kernel: its element type and access.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// Element type in memory.
    pub element: ElementType,
    /// Access along `N`.
    pub access: Access,
    /// Loaded through the non-coherent path (`ld.global.nc`): true for
    /// inputs that do not share memory with the output.
    pub read_only: bool,
}

/// The static description of one elementwise kernel (a module-cache key):
/// `output = expression(inputs..., scalars...)` over `(M, N)` tiles.
///
/// Params, in launch order: for the output and then each input, `ptr: u64`,
/// `row_stride: u64`, `col_stride: u64` (elements); then `n: u64` (columns),
/// `len: u64` (an element `(row, col)` exists when `col < n` and
/// `row * n + col < len`), `tiles_n: u32` (tiles along `N`), `tiles: u32`
/// (`tiles_m * tiles_n`), then one scalar per [`Expression::scalar_count`]
/// in the compute type (`.f32` or `.f64`). The grid is `tiles` blocks of
/// `Tiling::plan().threads` threads, or any number of blocks with a
/// persistent [`Schedule`]; with a bulk copy, [`BulkLayout::grid`](super::BulkLayout::grid)
/// blocks and [`BulkLayout::shared_bytes`](super::BulkLayout) of dynamic
/// shared memory.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ElementwiseSpec {
    /// Architecture the PTX targets.
    pub arch: ArchKind,
    /// The per-element expression; its arity equals `inputs.len()`.
    pub expression: Expression,
    /// Arithmetic type: F32 (16-bit inputs compute in f32) or F64.
    pub compute: ElementType,
    /// The inputs, in the expression's argument order.
    pub inputs: Vec<Operand>,
    /// The output.
    pub output: Operand,
    /// Thread and value layouts.
    pub tiling: Tiling,
    /// Tile walk and cache hints.
    pub schedule: Schedule,
    /// The launcher's 1-D view of a contiguous problem: every tensor's row
    /// stride is `tile_n` times its column stride, so a contiguous or
    /// broadcast tensor's offsets within a tile are immediates (the row
    /// stride params are then unused).
    pub flat: bool,
}

impl ElementwiseSpec {
    /// The kernel's `.entry` name: `elementwise_<out type>_<inputs>in_<hash>`.
    pub fn kernel_name(&self) -> String {
        let mut hasher = DefaultHasher::new();
        self.hash(&mut hasher);
        format!(
            "elementwise_{}_{}in_{:016x}",
            self.output.element,
            self.inputs.len(),
            hasher.finish()
        )
    }

    /// Elements one 16-byte access moves for the narrowest tensor: the most
    /// values a thread groups along `N`.
    pub fn vector_elements(&self) -> u32 {
        let narrowest = std::iter::once(&self.output)
            .chain(&self.inputs)
            .map(|o| o.element.size_bytes())
            .min()
            .unwrap_or(4);
        16 / narrowest.max(1)
    }
}
