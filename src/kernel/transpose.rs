//! `transpose`: a batched transpose of 1-byte elements, the copy that turns
//! an MN-major 8-bit GEMM operand into the K-major one the SM90 8-bit
//! kernels read (their wgmma takes 8-bit operands K-major only).
//!
//! What: batch `b` of the input is a `rows x cols` row-major matrix at
//! `input + b · in_batch` with rows `ld` bytes apart; batch `b` of the
//! output is its transpose, `cols x rows`, at `output + b · out_batch` with
//! rows `out_ld` bytes apart.
//!
//! How: a block of 256 threads (8 warps) moves 64 x 64 tiles through
//! shared memory: each warp reads 32 consecutive bytes of an input row
//! (one sector) at a time, 16 bytes a thread in flight (two columns of
//! eight rows), into a tile padded to 65 bytes a row; after a barrier each
//! warp writes 32 consecutive bytes of an output row from a column of the
//! tile, 16 a thread. Block `(x, y, z)` takes the tiles of column block
//! `x`, row blocks `y`, `y + gridDim.y`, ... of batch `z`. Elements past
//! the edges are neither read nor written. Bytes keep the copy general (any
//! leading dimension, stride or address); 16 of them a thread keep enough
//! in flight.
//!
//! Params, in launch order: `input, output: u64`, `rows, cols: u32`, `ld,
//! in_batch, out_ld, out_batch: u64`.

use crate::arch::ArchKind;
use crate::ptx::{Kernel, Module, ParamType, PtxError, Reg, RegClass, SpecialReg};

/// Rows and columns of one tile.
pub const TILE: u32 = 64;
/// Rows of the tile a pass of the block covers (one per warp).
const ROWS_PER_PASS: u32 = BLOCK_THREADS / 32;
/// Threads per block: 8 warps, each a row of the tile at a time.
pub const BLOCK_THREADS: u32 = 256;
/// Bytes a tile row takes in shared memory (one of padding, so that a
/// warp reading a column of the tile spreads over the banks).
const PITCH: u32 = TILE + 1;

/// The byte transpose's kernel for `arch`: the module cache's key.
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::kernel::transpose::TransposeSpec;
///
/// let spec = TransposeSpec { arch: ArchKind::Sm90 };
/// assert_eq!(spec.kernel_name(), "transpose_b8");
/// let ptx = spec.ptx().unwrap();
/// assert!(ptx.contains("ld.global.nc.u8") && ptx.contains("st.global.u8"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TransposeSpec {
    /// The architecture the PTX targets.
    pub arch: ArchKind,
}

impl TransposeSpec {
    /// The `.entry` name.
    pub fn kernel_name(&self) -> String {
        String::from("transpose_b8")
    }

    /// The PTX module of the kernel.
    ///
    /// # Errors
    /// [`PtxError`] from the emitter.
    pub fn ptx(&self) -> Result<String, PtxError> {
        let mut module = Module::new(self.arch);
        module.add_kernel(kernel(self)?)?;
        module.emit()
    }
}

/// The kernel (see the module's docs).
fn kernel(spec: &TransposeSpec) -> Result<Kernel, PtxError> {
    let mut k = Kernel::new(&spec.kernel_name())?;
    k.max_threads(BLOCK_THREADS, 1, 1);
    let input = k.global_address_param("input")?;
    let output = k.global_address_param("output")?;
    let rows = k.param_value("rows", ParamType::U32)?;
    let cols = k.param_value("cols", ParamType::U32)?;
    let [ld, in_batch, out_ld, out_batch] =
        ["ld", "in_batch", "out_ld", "out_batch"].map(|name| k.param_value(name, ParamType::U64));
    let (ld, in_batch, out_ld, out_batch) = (ld?, in_batch?, out_ld?, out_batch?);
    let tile = k.shared_static("tile", 4, TILE * PITCH)?;
    let tile = k.shared_address(&tile);
    let tid = k.special(SpecialReg::TidX);
    let (tx, ty) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
    k.push(format!("and.b32 {tx}, {tid}, 31;"));
    k.push(format!("shr.u32 {ty}, {tid}, 5;"));
    // The batch's bases and the block's first input column.
    let batch = k.special(SpecialReg::CtaidZ);
    let (in_base, out_base) = (k.reg(RegClass::B64), k.reg(RegClass::B64));
    let wide = k.reg(RegClass::B64);
    k.push(format!("cvt.u64.u32 {wide}, {batch};"));
    k.push(format!(
        "mad.lo.u64 {in_base}, {wide}, {in_batch}, {input};"
    ));
    k.push(format!(
        "mad.lo.u64 {out_base}, {wide}, {out_batch}, {output};"
    ));
    let c0 = k.special(SpecialReg::CtaidX);
    k.push(format!("shl.b32 {c0}, {c0}, {};", TILE.trailing_zeros()));
    // This thread's shared-memory places: row ty, column tx of the tile as
    // it is written (+ 8 · PITCH a pass, + 32 for the second column), row
    // tx, column ty as it is read (+ 8 a pass, + 32 · PITCH for the second
    // row).
    let (write_at, read_at) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
    k.push(format!("mad.lo.u32 {write_at}, {ty}, {PITCH}, {tx};"));
    k.push(format!("add.u32 {write_at}, {write_at}, {tile};"));
    k.push(format!("mad.lo.u32 {read_at}, {tx}, {PITCH}, {ty};"));
    k.push(format!("add.u32 {read_at}, {read_at}, {tile};"));
    let row_block = k.special(SpecialReg::CtaidY);
    let row_blocks = k.special(SpecialReg::NctaidY);
    let (next, done) = (k.new_label("row_block")?, k.new_label("done")?);
    let (r0, p, q) = (
        k.reg(RegClass::B32),
        k.reg(RegClass::Pred),
        k.reg(RegClass::Pred),
    );
    k.place_label(&next);
    k.push(format!(
        "shl.b32 {r0}, {row_block}, {};",
        TILE.trailing_zeros()
    ));
    k.push(format!("setp.ge.u32 {p}, {r0}, {rows};"));
    k.push(format!("@{p} bra {done};"));
    let (index, addr) = (k.reg(RegClass::B32), k.reg(RegClass::B64));
    let halves = TILE / 32;
    let passes = TILE / ROWS_PER_PASS;
    let column = |k: &mut Kernel, base: Reg, half: u32| {
        let c = k.reg(RegClass::B32);
        k.push(format!("add.u32 {c}, {base}, {tx};"));
        k.push(format!("add.u32 {c}, {c}, {};", 32 * half));
        c
    };
    // Input rows r0 + ty + 8i, columns c0 + tx (+ 32), into the tile: all
    // the loads first, then the shared stores.
    let in_cols: Vec<Reg> = (0..halves).map(|h| column(&mut k, c0, h)).collect();
    let mut loaded = Vec::new();
    let input = Matrix {
        base: in_base,
        rows,
        cols,
        ld,
    };
    for pass in 0..passes {
        let row = input.emit_row(&mut k, [r0, ty, index], pass, q);
        for (half, &col) in in_cols.iter().enumerate() {
            let value = k.reg(RegClass::B16);
            input.emit_element(&mut k, [row, col], [q, p], [addr, wide]);
            k.push(format!("mov.b16 {value}, 0;"));
            k.push(format!("@{p} ld.global.nc.u8 {value}, [{addr}];"));
            loaded.push((pass * ROWS_PER_PASS * PITCH + 32 * half as u32, value));
        }
    }
    for (offset, value) in loaded {
        k.push(format!("st.shared.u8 [{write_at}+{offset}], {value};"));
    }
    k.push("bar.sync 0;");
    // Output rows c0 + ty + 8i (input columns), columns r0 + tx (+ 32)
    // (input rows), from the tile's columns: the shared loads first.
    let out_cols: Vec<Reg> = (0..halves).map(|h| column(&mut k, r0, h)).collect();
    let mut values = Vec::new();
    for pass in 0..passes {
        for half in 0..halves {
            let value = k.reg(RegClass::B16);
            k.push(format!(
                "ld.shared.u8 {value}, [{read_at}+{}];",
                ROWS_PER_PASS * pass + 32 * half * PITCH
            ));
            values.push(value);
        }
    }
    let mut values = values.into_iter();
    let output = Matrix {
        base: out_base,
        rows: cols,
        cols: rows,
        ld: out_ld,
    };
    for pass in 0..passes {
        let row = output.emit_row(&mut k, [c0, ty, index], pass, q);
        for &col in &out_cols {
            let value = values.next().expect("one value per pass and half");
            output.emit_element(&mut k, [row, col], [q, p], [addr, wide]);
            k.push(format!("@{p} st.global.u8 [{addr}], {value};"));
        }
    }
    k.push("bar.sync 0;");
    k.push(format!("add.u32 {row_block}, {row_block}, {row_blocks};"));
    k.push(format!("bra {next};"));
    k.place_label(&done);
    k.push("ret;");
    Ok(k)
}

/// One batch of the input or the output in registers: its base address
/// and row pitch (`.b64`), its rows and columns (`.b32`).
struct Matrix {
    base: Reg,
    rows: Reg,
    cols: Reg,
    ld: Reg,
}

impl Matrix {
    /// The address (`.b64`) of row `first + ty + 8 · pass` (`index`
    /// takes the row), and `inside` set where that row is in the matrix.
    fn emit_row(
        &self,
        k: &mut Kernel,
        [first, ty, index]: [Reg; 3],
        pass: u32,
        inside: Reg,
    ) -> Reg {
        k.push(format!("add.u32 {index}, {first}, {ty};"));
        k.push(format!(
            "add.u32 {index}, {index}, {};",
            ROWS_PER_PASS * pass
        ));
        k.push(format!("setp.lt.u32 {inside}, {index}, {};", self.rows));
        let row = k.reg(RegClass::B64);
        k.push(format!("mul.wide.u32 {row}, {index}, 1;"));
        k.push(format!(
            "mad.lo.u64 {row}, {row}, {}, {};",
            self.ld, self.base
        ));
        row
    }

    /// `addr` = the address of column `col` of `row` (`wide` a scratch
    /// `.b64`), `p` = the row is inside (`row_inside`) and so is the column.
    fn emit_element(
        &self,
        k: &mut Kernel,
        [row, col]: [Reg; 2],
        [row_inside, p]: [Reg; 2],
        [addr, wide]: [Reg; 2],
    ) {
        k.push(format!(
            "setp.lt.and.u32 {p}, {col}, {}, {row_inside};",
            self.cols
        ));
        k.push(format!("cvt.u64.u32 {wide}, {col};"));
        k.push(format!("add.u64 {addr}, {row}, {wide};"));
    }
}
