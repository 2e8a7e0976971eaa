//! `vector_add`: the proving kernel, `c[i] = a[i] + b[i]`.
//!
//! What: an elementwise add of two vectors of `n` elements (f32 or f16) into a
//! third, the smallest kernel that exercises the whole path from spec to PTX
//! to the driver JIT.
//!
//! How:
//! 1. Each thread adds 16 bytes at a time (4 f32 or 8 f16: `ld.global.v4.b32`,
//!    four `add.rn.f32` or `add.rn.f16x2`, `st.global.v4.b32`) in a
//!    grid-stride loop over the `n / vec` full vectors.
//! 2. The last `n % vec` elements are added one each by threads `0..n % vec`
//!    of the grid, with scalar loads and stores.
//! 3. The PTX comes from the snippet families `common/thread_index`,
//!    `common/global_memory` and `common/elementwise_add`.
//!
//! Params, in launch order: `a: u64`, `b: u64`, `c: u64` (device pointers),
//! `n: u64` (element count).
//!
//! Constraints (the launcher must check them, the kernel does not):
//! - `a`, `b` and `c` are 16-byte aligned and each holds at least `n`
//!   elements of the spec's type;
//! - `c` equals `a` or `b` or overlaps neither (in-place is fine, a shifted
//!   overlap is not);
//! - the launch uses [`VectorAddSpec::block_threads`](crate::kernel::vector_add::VectorAddSpec::block_threads) threads per block (the
//!   kernel declares `.maxntid`) and a grid of at least one block; any `n`
//!   that fits in `u64` is accepted, [`VectorAddSpec::grid`](crate::kernel::vector_add::VectorAddSpec::grid) picks the grid.

use crate::arch::ArchKind;
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Module, ParamType, PtxError, RegClass};

/// Bytes each thread loads from each input per loop iteration.
const VECTOR_BYTES: u32 = 16;

/// Blocks per SM the grid helper launches before relying on the grid-stride loop.
const BLOCKS_PER_SM: u64 = 8;

/// The static description of one `vector_add` kernel: element type and
/// architecture. A module-cache key.
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::kernel::vector_add::VectorAddSpec;
/// use cutlet::numeric::ElementType;
///
/// let spec = VectorAddSpec { element: ElementType::F16, arch: ArchKind::Sm80 };
/// assert_eq!(spec.kernel_name(), "vector_add_f16");
/// assert_eq!(spec.elements_per_vector(), 8);
/// let ptx = spec.ptx().unwrap();
/// assert!(ptx.contains("add.rn.f16x2"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VectorAddSpec {
    /// Element type of `a`, `b` and `c`: F32 or F16.
    pub element: ElementType,
    /// Architecture the PTX targets.
    pub arch: ArchKind,
}

impl VectorAddSpec {
    /// The element types the kernel supports.
    pub const SUPPORTED: [ElementType; 2] = [ElementType::F32, ElementType::F16];

    /// The kernel's `.entry` name, e.g. `vector_add_f32`.
    pub fn kernel_name(&self) -> String {
        format!("vector_add_{}", self.element)
    }

    /// Threads per block the launch must use: 256.
    pub fn block_threads(&self) -> u32 {
        256
    }

    /// Elements one thread handles per 16-byte vector: 4 for f32, 8 for f16.
    pub fn elements_per_vector(&self) -> u32 {
        VECTOR_BYTES / self.element.size_bytes()
    }

    /// `(grid, block)` for `n` elements on a device with `sm_count` SMs: one
    /// thread per 16-byte vector, at most 8 blocks per SM (the grid-stride
    /// loop covers the rest), at least one block.
    ///
    /// ```
    /// use cutlet::arch::ArchKind;
    /// use cutlet::kernel::vector_add::VectorAddSpec;
    /// use cutlet::numeric::ElementType;
    ///
    /// let spec = VectorAddSpec { element: ElementType::F32, arch: ArchKind::Sm90 };
    /// assert_eq!(spec.grid(4096, 132), (4, 256));
    /// assert_eq!(spec.grid(1 << 30, 132), (1056, 256));
    /// assert_eq!(spec.grid(0, 132), (1, 256));
    /// ```
    pub fn grid(&self, n: u64, sm_count: u32) -> (u32, u32) {
        let block = self.block_threads();
        let vectors = n.div_ceil(u64::from(self.elements_per_vector()));
        (
            super::vector_blocks(vectors, block, BLOCKS_PER_SM, sm_count),
            block,
        )
    }

    fn check_element(&self) -> Result<(), PtxError> {
        if Self::SUPPORTED.contains(&self.element) {
            Ok(())
        } else {
            Err(PtxError::UnsupportedElement {
                kernel: "vector_add",
                element: self.element.to_string(),
                supported: "f32, f16",
            })
        }
    }

    /// The module's PTX text: one kernel named [`kernel_name`](Self::kernel_name).
    pub fn ptx(&self) -> Result<String, PtxError> {
        self.check_element()?;
        let mut module = Module::new(self.arch);
        module.add_kernel(self.kernel()?)?;
        module.emit()
    }

    fn kernel(&self) -> Result<Kernel, PtxError> {
        let (vector_add, scalar_add, scalar_type, scalar_class) = match self.element {
            ElementType::F16 => ("add_f16x2", "add_f16", ".b16", RegClass::B16),
            _ => ("add_f32", "add_f32", ".b32", RegClass::B32),
        };
        let vec_shift = self.elements_per_vector().trailing_zeros();
        let elem_shift = self.element.size_bytes().trailing_zeros();
        let mut k = Kernel::new(&self.kernel_name())?;
        k.max_threads(self.block_threads(), 1, 1);
        let params = [
            k.param("a", ParamType::U64)?,
            k.param("b", ParamType::U64)?,
            k.param("c", ParamType::U64)?,
        ];
        let n_param = k.param("n", ParamType::U64)?;
        let mut ptrs = Vec::with_capacity(params.len());
        for param in &params {
            let ptr = k.load_param(param)?;
            k.cvta_to_global(ptr, ptr);
            ptrs.push(ptr);
        }
        let (a, b, c) = (ptrs[0], ptrs[1], ptrs[2]);
        let n = k.load_param(&n_param)?;
        let gid = k.reg(RegClass::B64);
        let stride = k.reg(RegClass::B64);
        k.snippet(
            "common/thread_index",
            "global_thread_index_x",
            &[("dst", &gid)],
        )?;
        k.snippet("common/thread_index", "grid_threads_x", &[("dst", &stride)])?;

        // (n / vec) full vectors, one per thread per iteration.
        let vectors = k.reg(RegClass::B64);
        let i = k.reg(RegClass::B64);
        let offset = k.reg(RegClass::B64);
        let [pa, pb, pc] = [
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
            k.reg(RegClass::B64),
        ];
        let done = k.reg(RegClass::Pred);
        let x = k.regs(RegClass::B32, 4);
        let y = k.regs(RegClass::B32, 4);
        let vec_loop = k.new_label("vector_loop")?;
        let tail = k.new_label("tail")?;
        let exit = k.new_label("exit")?;
        k.push(format!("shr.u64 {vectors}, {n}, {vec_shift};"));
        k.mov(i, gid);
        k.place_label(&vec_loop);
        k.push(format!("setp.ge.u64 {done}, {i}, {vectors};"));
        k.push(format!("@{done} bra {tail};"));
        k.push(format!(
            "shl.b64 {offset}, {i}, {};",
            VECTOR_BYTES.trailing_zeros()
        ));
        for (ptr, base) in [(pa, a), (pb, b), (pc, c)] {
            k.push(format!("add.s64 {ptr}, {base}, {offset};"));
        }
        for (regs, ptr) in [(&x, pa), (&y, pb)] {
            k.snippet(
                "common/global_memory",
                "ld_global_v4_b32",
                &[
                    ("d0", &regs[0]),
                    ("d1", &regs[1]),
                    ("d2", &regs[2]),
                    ("d3", &regs[3]),
                    ("addr", &ptr),
                ],
            )?;
        }
        for (xr, yr) in x.iter().zip(&y) {
            k.snippet(
                "common/elementwise_add",
                vector_add,
                &[("dst", xr), ("a", xr), ("b", yr)],
            )?;
        }
        k.snippet(
            "common/global_memory",
            "st_global_v4_b32",
            &[
                ("s0", &x[0]),
                ("s1", &x[1]),
                ("s2", &x[2]),
                ("s3", &x[3]),
                ("addr", &pc),
            ],
        )?;
        k.push(format!("add.s64 {i}, {i}, {stride};"));
        k.push(format!("bra {vec_loop};"));

        // The last n % vec elements: element (n / vec) * vec + gid, for gid < n % vec.
        k.place_label(&tail);
        let j = k.reg(RegClass::B64);
        k.push(format!("shl.b64 {j}, {vectors}, {vec_shift};"));
        k.push(format!("add.s64 {j}, {j}, {gid};"));
        k.push(format!("setp.ge.u64 {done}, {j}, {n};"));
        k.push(format!("@{done} bra {exit};"));
        k.push(format!("shl.b64 {offset}, {j}, {elem_shift};"));
        for (ptr, base) in [(pa, a), (pb, b), (pc, c)] {
            k.push(format!("add.s64 {ptr}, {base}, {offset};"));
        }
        let (sx, sy) = (k.reg(scalar_class), k.reg(scalar_class));
        for (dst, ptr) in [(sx, pa), (sy, pb)] {
            k.snippet(
                "common/global_memory",
                "ld_global",
                &[("type", &scalar_type), ("dst", &dst), ("addr", &ptr)],
            )?;
        }
        k.snippet(
            "common/elementwise_add",
            scalar_add,
            &[("dst", &sx), ("a", &sx), ("b", &sy)],
        )?;
        k.snippet(
            "common/global_memory",
            "st_global",
            &[("type", &scalar_type), ("addr", &pc), ("src", &sx)],
        )?;
        k.place_label(&exit);
        Ok(k)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsupported_element_is_an_error_naming_it() {
        let spec = VectorAddSpec {
            element: ElementType::I8,
            arch: ArchKind::Sm80,
        };
        let err = spec.ptx().unwrap_err();
        assert_eq!(
            err.to_string(),
            "vector_add does not support element type i8: expected one of f32, f16"
        );
    }

    #[test]
    fn ptx_has_vector_and_tail_paths() {
        let spec = VectorAddSpec {
            element: ElementType::F32,
            arch: ArchKind::Sm70,
        };
        let ptx = spec.ptx().unwrap();
        assert!(ptx.contains(".visible .entry vector_add_f32("), "{ptx}");
        assert!(ptx.contains(".maxntid 256, 1, 1"), "{ptx}");
        assert_eq!(ptx.matches("ld.global.v4.b32").count(), 2, "{ptx}");
        assert_eq!(ptx.matches("add.rn.f32").count(), 5, "{ptx}");
        assert!(ptx.contains("shr.u64 %rd6, %rd3, 2;"), "{ptx}");
        assert!(ptx.contains("st.global.b32"), "{ptx}");
    }

    #[test]
    fn grid_covers_every_vector_up_to_eight_blocks_per_sm() {
        let f16 = VectorAddSpec {
            element: ElementType::F16,
            arch: ArchKind::Sm80,
        };
        assert_eq!(f16.grid(8 * 256, 108), (1, 256));
        assert_eq!(f16.grid(8 * 256 + 1, 108), (2, 256));
        assert_eq!(f16.grid(u64::MAX, 108), (864, 256));
        assert_eq!(f16.grid(u64::MAX, 0), (8, 256));
    }
}
