//! The SM90 shared-memory matrix descriptor of wgmma ([`GmmaDescriptor`],
//! CuTe's `GmmaDescriptor` and `make_gmma_desc`), the swizzle atoms it
//! describes ([`gmma_smem_atom`], CuTe's `GMMA::Layout_{K,MN}_*_Atom<T>`)
//! and the stage layouts tiled from them ([`gmma_smem_layout`]).
//!
//! The descriptor is derived from a layout, never written by hand: the
//! layout of one wgmma's operand slice, seen in 16-byte units, must have
//! one of the canonical forms of CuTe's `make_gmma_desc` (`T` elements per
//! 16 bytes, `W` = 1, 2, 4, 8 chunks per swizzle row):
//!
//! | major | swizzle | canonical form (16-byte units) | LBO | SBO |
//! |---|---|---|---|---|
//! | K | none | `((8,m),2):((1,SBO),LBO)` | between the two core matrices along K | between 8-row groups |
//! | K | 32/64/128B | `((8,m),2):((W,SBO),1)` | 1 (16 bytes, "assumed 1") | between 8-row groups |
//! | MN | none | `((1,n),(8,k)):((X,SBO),(1,LBO))` | between 8-deep K groups | between MN core matrices |
//! | MN | 32/64/128B | `((W,n),(8,k)):((1,LBO),(W,SBO))` | between swizzle atoms along MN | between 8-deep K groups |
//!
//! [PTX ISA 9.7.15.5.1.2 "Matrix Descriptor Format"; CUTLASS
//! include/cute/arch/mma_sm90_desc.hpp, include/cute/atom/mma_traits_sm90_gmma.hpp]

use super::gmma_tile::{divide_mode, split_mode, tile_to_shape};
use crate::gemm::OperandMajor;
use crate::layout::{upcast, ComposedLayout, Layout, SmemSwizzle, Swizzle};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Reg, RegClass};
use crate::{Error, Result};

/// Bits 0-13 (start), 16-29 (LBO), 32-45 (SBO) hold `(bytes & 0x3FFFF) >> 4`.
const ENCODED_MASK: u64 = 0x3FFF;
/// Offsets the 14-bit fields can hold: below 2^18 bytes.
const MAX_OFFSET_BYTES: u32 = 1 << 18;

/// The swizzle of a wgmma operand in shared memory: the descriptor's
/// layout type, CuTe's `GMMA::LayoutType`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GmmaSwizzle {
    /// No swizzle: 8 x 16-byte core matrices (`INTERLEAVE`).
    Interleave,
    /// 32-byte swizzle span (`B32`, `Swizzle<1,4,3>` on bytes).
    B32,
    /// 64-byte swizzle span (`B64`, `Swizzle<2,4,3>` on bytes).
    B64,
    /// 128-byte swizzle span (`B128`, `Swizzle<3,4,3>` on bytes).
    B128,
}

impl GmmaSwizzle {
    /// Every swizzle, narrowest first.
    pub const ALL: [GmmaSwizzle; 4] = [
        GmmaSwizzle::Interleave,
        GmmaSwizzle::B32,
        GmmaSwizzle::B64,
        GmmaSwizzle::B128,
    ];

    /// `B` of the byte swizzle `Swizzle<B,4,3>`: 0, 1, 2, 3.
    const fn bits(self) -> u32 {
        match self {
            GmmaSwizzle::Interleave => 0,
            GmmaSwizzle::B32 => 1,
            GmmaSwizzle::B64 => 2,
            GmmaSwizzle::B128 => 3,
        }
    }

    /// Bytes of the swizzle span (one row of the atom): 16, 32, 64, 128.
    ///
    /// ```
    /// use cutlet::atom::GmmaSwizzle;
    /// assert_eq!(GmmaSwizzle::B64.span_bytes(), 64);
    /// ```
    pub const fn span_bytes(self) -> u32 {
        16 << self.bits()
    }

    /// The descriptor's 2-bit layout-type code (bits 62-63): 0 interleave,
    /// 1 for 128B, 2 for 64B, 3 for 32B.
    ///
    /// ```
    /// use cutlet::atom::GmmaSwizzle;
    /// assert_eq!(GmmaSwizzle::B128.descriptor_code(), 1);
    /// assert_eq!(GmmaSwizzle::B32.descriptor_code(), 3);
    /// ```
    pub const fn descriptor_code(self) -> u64 {
        match self {
            GmmaSwizzle::Interleave => 0,
            GmmaSwizzle::B32 => 3,
            GmmaSwizzle::B64 => 2,
            GmmaSwizzle::B128 => 1,
        }
    }

    /// The swizzle on byte addresses, `Swizzle<B,4,3>`.
    ///
    /// ```
    /// use cutlet::atom::GmmaSwizzle;
    /// assert_eq!(GmmaSwizzle::B128.swizzle().to_string(), "Sw<3,4,3>");
    /// ```
    pub fn swizzle(self) -> Swizzle {
        Swizzle::new(i64::from(self.bits()), 4, 3).expect("Swizzle<0..3,4,3> is admissible")
    }

    /// The alignment in bytes the start of the swizzle pattern needs (the
    /// swizzle's period; the descriptor's base offset is 0 only then):
    /// 1024, 512, 256 for 128B, 64B, 32B, and 16 without swizzle.
    ///
    /// ```
    /// use cutlet::atom::GmmaSwizzle;
    /// assert_eq!(GmmaSwizzle::B128.base_alignment(), 1024);
    /// assert_eq!(GmmaSwizzle::Interleave.base_alignment(), 16);
    /// ```
    pub const fn base_alignment(self) -> u32 {
        match self {
            GmmaSwizzle::Interleave => 16,
            other => 128 << other.bits(),
        }
    }

    /// The matching row width of the layout module's atoms.
    fn smem(self) -> SmemSwizzle {
        match self {
            GmmaSwizzle::Interleave => SmemSwizzle::Interleave,
            GmmaSwizzle::B32 => SmemSwizzle::B32,
            GmmaSwizzle::B64 => SmemSwizzle::B64,
            GmmaSwizzle::B128 => SmemSwizzle::B128,
        }
    }

    /// 16-byte chunks per swizzle row (`W` of `make_gmma_desc`).
    fn chunks(self) -> i64 {
        1 << self.bits()
    }
}

/// CuTe's `GMMA::Layout_{K,MN}_{INTER,SW32,SW64,SW128}_Atom<T>`: the
/// swizzle atom of 8 rows of one span, in elements of `element`.
///
/// ```
/// use cutlet::atom::{gmma_smem_atom, GmmaSwizzle};
/// use cutlet::gemm::OperandMajor;
/// use cutlet::numeric::ElementType::{BF16, TF32};
///
/// // (8 rows, 64 bf16 = 128 bytes), Swizzle<3,4,3> on bytes = Sw<3,3,3> on elements.
/// let k = gmma_smem_atom(OperandMajor::K, BF16, GmmaSwizzle::B128);
/// assert_eq!(k.to_string(), "Sw<3,3,3> o 0 o (8,64):(64,1)");
/// let mn = gmma_smem_atom(OperandMajor::MN, TF32, GmmaSwizzle::B32);
/// assert_eq!(mn.to_string(), "Sw<1,2,3> o 0 o (8,8):(1,8)");
/// ```
pub fn gmma_smem_atom(
    major: OperandMajor,
    element: ElementType,
    swizzle: GmmaSwizzle,
) -> ComposedLayout {
    let bits = i64::from(element.size_bits());
    match major {
        OperandMajor::K => ComposedLayout::smem_atom_k_major(swizzle.smem(), bits),
        OperandMajor::MN => ComposedLayout::smem_atom_mn_major(swizzle.smem(), bits),
    }
    .expect("every element type is 8 to 64 bits, a power of two that divides 128")
}

/// CuTe's `tile_to_shape(Layout_*_Atom<T>, (mn, k), order)`: the atom
/// repeated over an `mn x k` tile, in the order CUTLASS's SM90 collectives
/// use (`sm90_mma_tma_gmma_ss_warpspecialized.hpp`): along MN first for
/// K-major (`Step<_1,_2>`), along K first for MN-major (`Step<_2,_1>`, so
/// each span-wide column of MN is one TMA box of all K rows). The stage
/// layout that the TMA boxes write and the descriptors read.
///
/// ```
/// use cutlet::atom::{gmma_smem_layout, GmmaSwizzle};
/// use cutlet::gemm::OperandMajor;
/// use cutlet::numeric::ElementType::BF16;
///
/// let a = gmma_smem_layout(OperandMajor::K, BF16, GmmaSwizzle::B128, 128, 64).unwrap();
/// assert_eq!(a.to_string(), "Sw<3,3,3> o 0 o (128,64):(64,1)");
/// let b = gmma_smem_layout(OperandMajor::MN, BF16, GmmaSwizzle::B128, 128, 64).unwrap();
/// assert_eq!(b.to_string(), "Sw<3,3,3> o 0 o ((64,2),64):((1,4096),64)");
/// assert!(gmma_smem_layout(OperandMajor::K, BF16, GmmaSwizzle::B128, 128, 48).is_err());
/// ```
///
/// # Errors
/// [`Error::InvalidArgument`] unless the atom's extents divide `mn` and `k`
/// (for K-major: 8 rows and the span's elements along K; MN-major the
/// reverse).
pub fn gmma_smem_layout(
    major: OperandMajor,
    element: ElementType,
    swizzle: GmmaSwizzle,
    mn: u32,
    k: u32,
) -> Result<ComposedLayout> {
    let atom = gmma_smem_atom(major, element, swizzle);
    let k_first = major == OperandMajor::MN;
    let inner = tile_to_shape(atom.layout(), [i64::from(mn), i64::from(k)], k_first)?;
    Ok(ComposedLayout::new(atom.swizzle(), 0, inner))
}

/// The fields of a wgmma shared-memory matrix descriptor other than the
/// start address: what [`from_layout`](Self::from_layout) reads off a
/// canonical layout. The base offset is 0 (stages aligned to
/// [`GmmaSwizzle::base_alignment`]), as CUTLASS keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GmmaDescriptor {
    /// The leading dimension byte offset (a multiple of 16).
    pub lbo_bytes: u32,
    /// The stride dimension byte offset (a multiple of 16).
    pub sbo_bytes: u32,
    /// The layout type.
    pub swizzle: GmmaSwizzle,
}

impl GmmaDescriptor {
    /// The descriptor of one wgmma operand slice, derived as CuTe's
    /// `make_gmma_desc<major>` derives it: `smem` is the slice's
    /// (MN, K) layout in elements of `element` (64 or N rows, the
    /// instruction's K: 16 for 16-bit types, 8 for tf32), recast to 16-byte
    /// units and divided into the canonical form of the module docs. An
    /// offset the slice never steps (one swizzle atom along MN, one 8-row
    /// group) comes out as 0; the instruction does not read it.
    ///
    /// ```
    /// use cutlet::atom::{gmma_smem_layout, GmmaDescriptor, GmmaSwizzle};
    /// use cutlet::gemm::OperandMajor;
    /// use cutlet::numeric::ElementType::BF16;
    ///
    /// let stage = gmma_smem_layout(OperandMajor::K, BF16, GmmaSwizzle::B128, 128, 64).unwrap();
    /// let slice = GmmaDescriptor::slice(&stage, [64, 16], [1, 2]).unwrap();
    /// let desc = GmmaDescriptor::from_layout(OperandMajor::K, BF16, &slice).unwrap();
    /// assert_eq!((desc.lbo_bytes, desc.sbo_bytes, desc.swizzle), (16, 1024, GmmaSwizzle::B128));
    /// // The 2nd m64 half and the 3rd k16 step: 64 rows of 128 bytes + 2 * 32 bytes.
    /// assert_eq!(GmmaDescriptor::slice_offset_bytes(&stage, BF16, [64, 16], [1, 2]).unwrap(), 64 * 128 + 64);
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the layout is not canonical: not of
    /// rank 2, a swizzle other than `Swizzle<0..3,4,3>` on bytes, a K
    /// extent other than one instruction's, strides of another form, or
    /// offsets beyond the descriptor's 14-bit fields.
    pub fn from_layout(
        major: OperandMajor,
        element: ElementType,
        smem: &ComposedLayout,
    ) -> Result<GmmaDescriptor> {
        let refuse = |why: String| {
            Error::invalid_argument(
                "gmma operand layout",
                smem,
                format!(
                    "a canonical {} wgmma layout of {element} (CuTe's make_gmma_desc): {why}",
                    major_name(major)
                ),
            )
        };
        let swizzle = swizzle_of(smem.swizzle(), element).ok_or_else(|| {
            refuse(format!(
                "the swizzle {} is not Swizzle<0..3,4,3> on bytes",
                smem.swizzle()
            ))
        })?;
        let layout = smem.layout();
        if layout.rank() != 2 {
            return Err(refuse(format!("rank {} instead of (MN, K)", layout.rank())));
        }
        let per_chunk = i64::from(128 / element.size_bits());
        let chunks = upcast(layout, per_chunk).map_err(|e| refuse(e.to_string()))?;
        let (mn_size, k_size) = (chunks.sub(&[0]), chunks.sub(&[1]));
        let (mn_size, k_size) = (
            mn_size.map_or(0, |m| m.size()),
            k_size.map_or(0, |m| m.size()),
        );
        let w = swizzle.chunks();
        let split = |mode: usize, tile: i64| {
            divide_mode(&chunks, mode, tile).ok_or_else(|| {
                refuse(format!(
                    "mode {mode} does not split into {tile} and a rest of one stride"
                ))
            })
        };
        let (lbo, sbo) = match major {
            OperandMajor::K => {
                if mn_size % 8 != 0 || k_size != 2 {
                    return Err(refuse(format!(
                        "{mn_size} x {k_size} in 16-byte units, expected a multiple of 8 rows by 2 (one instruction's K)"
                    )));
                }
                let ((_, d00), (_, d01)) = split(0, 8)?;
                let ((_, d10), _) = split(1, 2)?;
                let interleave = swizzle == GmmaSwizzle::Interleave;
                if d00 != w || (!interleave && d10 != 1) {
                    return Err(refuse(format!(
                        "row stride {d00} and K stride {d10} in 16-byte units, expected {w} and {}",
                        if interleave {
                            "any".to_string()
                        } else {
                            "1".to_string()
                        }
                    )));
                }
                (d10, d01)
            }
            OperandMajor::MN => {
                let k_inst = i64::from(256 / element.size_bits());
                if k_size != k_inst || mn_size % w != 0 {
                    return Err(refuse(format!(
                        "{mn_size} (16-byte units) x {k_size}, expected a multiple of {w} by {k_inst} (one instruction's K)"
                    )));
                }
                let ((_, d00), (_, d01)) = split(0, w)?;
                let ((_, d10), (_, d11)) = split(1, 8)?;
                let interleave = swizzle == GmmaSwizzle::Interleave;
                if (!interleave && d00 != 1) || d10 != w {
                    return Err(refuse(format!(
                        "MN stride {d00} and K stride {d10} in 16-byte units, expected 1 and {w}"
                    )));
                }
                if interleave {
                    (d11, d01)
                } else {
                    (d01, d11)
                }
            }
        };
        let bytes = |units: i64, what: &str| {
            u32::try_from(units * 16)
                .ok()
                .filter(|b| *b < MAX_OFFSET_BYTES)
                .ok_or_else(|| {
                    refuse(format!(
                        "{what} of {units} x 16 bytes, expected 0 to {} bytes",
                        MAX_OFFSET_BYTES - 16
                    ))
                })
        };
        Ok(GmmaDescriptor {
            lbo_bytes: bytes(lbo, "a leading byte offset")?,
            sbo_bytes: bytes(sbo, "a stride byte offset")?,
            swizzle,
        })
    }

    /// The descriptor's 64 bits for the matrix at shared-window address
    /// `start_address` (host side, for tests and checks).
    ///
    /// ```
    /// use cutlet::atom::{GmmaDescriptor, GmmaSwizzle};
    ///
    /// // ptx-notes 4.2: bf16 K-major, SW128, BK = 64, stage at 0x400.
    /// let desc = GmmaDescriptor { lbo_bytes: 16, sbo_bytes: 1024, swizzle: GmmaSwizzle::B128 };
    /// let addr = 0x400u32;
    /// let enc = |x: u32| u64::from((x & 0x3FFFF) >> 4);
    /// assert_eq!(desc.bits(addr), enc(addr) | 1 << 16 | (1024 >> 4) << 32 | 1 << 62);
    /// ```
    pub fn bits(&self, start_address: u32) -> u64 {
        encode(start_address) | self.lbo_field() | self.high_word() << 32
    }

    /// Emits the `.b64` descriptor of the operand slice at `start`, a `.b32`
    /// shared-window address register (the stage base plus
    /// [`slice_offset_bytes`](Self::slice_offset_bytes)); the high word is
    /// a constant.
    ///
    /// ```
    /// use cutlet::atom::{GmmaDescriptor, GmmaSwizzle};
    /// use cutlet::ptx::{Kernel, RegClass};
    ///
    /// let desc = GmmaDescriptor { lbo_bytes: 16, sbo_bytes: 1024, swizzle: GmmaSwizzle::B128 };
    /// let mut k = Kernel::new("demo").unwrap();
    /// let start = k.reg(RegClass::B32);
    /// let d = desc.emit(&mut k, start).unwrap();
    /// assert_eq!(d.class(), RegClass::B64);
    /// let ptx = k.emit().unwrap();
    /// assert!(ptx.contains("bfe.u32 lo, %r0, 4, 14;"));
    /// assert!(ptx.contains("or.b32 lo, lo, 65536;"));
    /// assert!(ptx.contains(&format!("mov.b32 hi, {};", 64 | 1 << 30)));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `start` is not a `.b32` register.
    pub fn emit(&self, k: &mut Kernel, start: Reg) -> Result<Reg> {
        check_start(start)?;
        let desc = k.reg(RegClass::B64);
        k.snippet(
            "sm90/wgmma",
            "wgmma_desc",
            &[
                ("desc", &desc),
                ("start", &start),
                ("lbo_bits", &self.lbo_field()),
                ("high", &self.high_word()),
            ],
        )?;
        Ok(desc)
    }

    /// Emits the descriptor's two 32-bit words for the matrix at `start`
    /// (a `.b32` shared-window address): the low word (start field and
    /// LBO) and the high word (a constant), from which
    /// [`emit_at`](Self::emit_at) builds the descriptors of matrices at
    /// offsets from it with one 32-bit add each.
    ///
    /// ```
    /// use cutlet::atom::{GmmaDescriptor, GmmaSwizzle};
    /// use cutlet::ptx::{Kernel, RegClass};
    ///
    /// let desc = GmmaDescriptor { lbo_bytes: 16, sbo_bytes: 1024, swizzle: GmmaSwizzle::B128 };
    /// let mut k = Kernel::new("demo").unwrap();
    /// let start = k.reg(RegClass::B32);
    /// let words = desc.emit_words(&mut k, start).unwrap();
    /// // The k-step 32 bytes further: start field + 2.
    /// let d = GmmaDescriptor::emit_at(&mut k, words, 32).unwrap();
    /// assert_eq!(d.class(), RegClass::B64);
    /// let ptx = k.emit().unwrap();
    /// assert!(ptx.contains("add.u32 at, %r1, 2;"));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `start` is not a `.b32` register.
    pub fn emit_words(&self, k: &mut Kernel, start: Reg) -> Result<[Reg; 2]> {
        check_start(start)?;
        let (lo, hi) = (k.reg(RegClass::B32), k.reg(RegClass::B32));
        k.snippet(
            "sm90/wgmma",
            "wgmma_desc_words",
            &[
                ("lo", &lo),
                ("hi", &hi),
                ("start", &start),
                ("lbo_bits", &self.lbo_field()),
                ("high", &self.high_word()),
            ],
        )?;
        Ok([lo, hi])
    }

    /// Emits the descriptor of the matrix `offset_bytes` (a multiple of
    /// 16) past the one whose [`emit_words`](Self::emit_words) are `words`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for an offset that is not a multiple of
    /// 16 bytes or reaches past the 14-bit start field.
    pub fn emit_at(k: &mut Kernel, [lo, hi]: [Reg; 2], offset_bytes: u32) -> Result<Reg> {
        if !offset_bytes.is_multiple_of(16) || u64::from(offset_bytes >> 4) > ENCODED_MASK {
            return Err(Error::invalid_argument(
                "gmma descriptor offset",
                offset_bytes,
                "a multiple of 16 bytes below 256 KiB",
            ));
        }
        let desc = k.reg(RegClass::B64);
        k.snippet(
            "sm90/wgmma",
            "wgmma_desc_at",
            &[
                ("desc", &desc),
                ("lo", &lo),
                ("hi", &hi),
                ("offset", &(offset_bytes >> 4)),
            ],
        )?;
        Ok(desc)
    }

    /// The `shape` (MN, K) slice at `block` (in units of the slice, e.g.
    /// `[64, 16]` at `[m64, k16]`) of a stage layout: the slice's layout
    /// with its element offset in the stage as the composed offset, so
    /// [`from_layout`](Self::from_layout) reads it and its start is
    /// [`slice_offset_bytes`](Self::slice_offset_bytes).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when `shape` does not divide the stage
    /// into whole slices or `block` lies outside it.
    pub fn slice(
        stage: &ComposedLayout,
        shape: [u32; 2],
        block: [u32; 2],
    ) -> Result<ComposedLayout> {
        let layout = stage.layout();
        let bad = |why: String| {
            Error::invalid_argument(
                "gmma slice",
                format!("shape {shape:?} at block {block:?} of {stage}"),
                why,
            )
        };
        if layout.rank() != 2 {
            return Err(bad(format!(
                "a stage layout of rank 2, not {}",
                layout.rank()
            )));
        }
        let mut tile = Vec::with_capacity(2);
        let mut offset = stage.offset();
        for mode in 0..2 {
            let extent = layout.sub(&[mode]).map_or(0, |m| m.size());
            let (s, b) = (i64::from(shape[mode]), i64::from(block[mode]));
            if s < 1 || extent % s != 0 || b >= extent / s {
                return Err(bad(format!(
                    "slices that divide the stage's {extent} along mode {mode} and a block below {}",
                    if s < 1 { 0 } else { extent / s }
                )));
            }
            let (part, rest) = split_mode(layout, mode, s)
                .ok_or_else(|| bad(format!("mode {mode} that splits into slices of {s}")))?;
            tile.push(part);
            offset += rest.at(b);
        }
        Ok(ComposedLayout::new(
            stage.swizzle(),
            offset,
            Layout::from_modes(tile),
        ))
    }

    /// The byte offset in the stage of the `shape` slice at `block` (see
    /// [`slice`](Self::slice)): what the mainloop adds to the stage's start
    /// address for that wgmma.
    ///
    /// # Errors
    /// As [`slice`](Self::slice), and when the offset is not a multiple of
    /// 16 bytes.
    pub fn slice_offset_bytes(
        stage: &ComposedLayout,
        element: ElementType,
        shape: [u32; 2],
        block: [u32; 2],
    ) -> Result<u32> {
        let slice = Self::slice(stage, shape, block)?;
        let bytes = slice.offset() * i64::from(element.size_bytes());
        u32::try_from(bytes)
            .ok()
            .filter(|b| b % 16 == 0)
            .ok_or_else(|| {
                Error::invalid_argument(
                    "gmma slice offset",
                    format!("{bytes} bytes"),
                    "a multiple of 16 bytes below 4 GiB",
                )
            })
    }

    /// The LBO field in place (bits 16-29).
    fn lbo_field(&self) -> u64 {
        encode(self.lbo_bytes) << 16
    }

    /// The high 32 bits: the SBO field (bits 0-13), base offset 0, the
    /// layout type in bits 30-31.
    fn high_word(&self) -> u64 {
        encode(self.sbo_bytes) | self.swizzle.descriptor_code() << 30
    }
}

/// Refuses a descriptor start that is not a `.b32` shared-window address.
fn check_start(start: Reg) -> Result<()> {
    if start.class() != RegClass::B32 {
        return Err(Error::invalid_argument(
            "gmma descriptor start",
            format!("register {start} of class {}", start.class()),
            "a .b32 shared-window address register",
        ));
    }
    Ok(())
}

/// `(bytes & 0x3FFFF) >> 4`, a 14-bit field.
fn encode(bytes: u32) -> u64 {
    (u64::from(bytes) >> 4) & ENCODED_MASK
}

/// The GMMA swizzle a layout's element-unit swizzle is, for `element`:
/// `Swizzle<B,4,3>` on bytes is `Swizzle<B, log2(16 bytes in elements), 3>`
/// on elements; a swizzle of 0 bits is none.
fn swizzle_of(sw: Swizzle, element: ElementType) -> Option<GmmaSwizzle> {
    if sw.bits() == 0 {
        return Some(GmmaSwizzle::Interleave);
    }
    let base = (128 / element.size_bits()).trailing_zeros();
    if sw.base() != base || sw.shift() != 3 {
        return None;
    }
    GmmaSwizzle::ALL.into_iter().find(|g| g.bits() == sw.bits())
}

fn major_name(major: OperandMajor) -> &'static str {
    match major {
        OperandMajor::K => "K-major",
        OperandMajor::MN => "MN-major",
    }
}
