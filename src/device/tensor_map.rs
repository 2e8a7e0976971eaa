//! [`TmaTiled`]: a tiled TMA tensor map, described and checked on the host
//! without a driver, then encoded by the driver's `cuTensorMapEncodeTiled`
//! into the 128-byte [`TensorMapArg`] a kernel takes by value.
//!
//! | item | what it is |
//! |---|---|
//! | [`TmaSwizzle`] | the shared-memory swizzle of the box (`CU_TENSOR_MAP_SWIZZLE_*`) |
//! | [`TmaTiled::from_layout`] | the map of a cutlet [`Layout`] of the global tensor, a box and a swizzle |
//! | [`TmaTiled::validate`] | every rule of `cuTensorMapEncodeTiled`, checked with no driver call |
//! | [`TmaTiled::encode`] | the driver's encoding (no allocation; runs on every launch) |
//!
//! Fixed choices, as CuTe's `make_tma_copy` makes them
//! (`copy_traits_sm90_tma.hpp`): element strides 1, no interleave, L2
//! promotion of 128 bytes; out-of-bounds elements read as zeros
//! (`CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE`) unless `oob_zero` is off. The
//! device side is [`crate::atom::emit_tma_load`] and its siblings.
//! [CUDA Driver API, Tensor Map Object Management, `cuTensorMapEncodeTiled`]

use std::ffi::c_void;
use std::fmt;
use std::sync::OnceLock;

use cudarc::driver::sys::{self, CUresult};
use cudarc::driver::DriverError;

use super::driver::{driver_available, init};
use super::TensorMapArg;
use crate::atom::TMA_MAX_RANK;
use crate::layout::Layout;
use crate::numeric::ElementType;
use crate::{Error, Result};

/// The most elements a box has along one dimension.
pub const TMA_MAX_BOX: u32 = 256;

/// Global addresses, strides and the box's inner extent come in units of
/// 16 bytes.
const TMA_GRANULE: u64 = 16;

/// Global strides are below 2^40 bytes.
const TMA_MAX_STRIDE: u64 = 1 << 40;

/// Global extents are at most 2^32 elements.
const TMA_MAX_DIM: u64 = 1 << 32;

/// The swizzle a TMA applies to the box in shared memory
/// (`CU_TENSOR_MAP_SWIZZLE_*`): with span `S` bytes, 16-byte chunk `c` of
/// the `S`-byte row `r` lands at chunk `c ^ (r % (S / 16))`, on absolute
/// shared addresses. It must equal the swizzle of whatever reads the box
/// (a wgmma descriptor's).
///
/// ```
/// use cutlet::device::TmaSwizzle;
///
/// assert_eq!(TmaSwizzle::B128.span_bytes(), Some(128));
/// assert_eq!(TmaSwizzle::B128.shared_alignment(), 1024);
/// assert_eq!(TmaSwizzle::None.span_bytes(), None);
/// assert_eq!(TmaSwizzle::B64.to_string(), "64B");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum TmaSwizzle {
    /// No swizzle: the box is dense in shared memory.
    #[default]
    None,
    /// 32-byte span (`CU_TENSOR_MAP_SWIZZLE_32B`).
    B32,
    /// 64-byte span (`CU_TENSOR_MAP_SWIZZLE_64B`).
    B64,
    /// 128-byte span (`CU_TENSOR_MAP_SWIZZLE_128B`), the wgmma K-major
    /// 128B layout.
    B128,
}

impl TmaSwizzle {
    /// Every swizzle.
    pub const ALL: [TmaSwizzle; 4] = [
        TmaSwizzle::None,
        TmaSwizzle::B32,
        TmaSwizzle::B64,
        TmaSwizzle::B128,
    ];

    /// The bytes one swizzled row spans, the most the box's inner
    /// dimension may hold; `None` without a swizzle.
    pub const fn span_bytes(self) -> Option<u32> {
        match self {
            TmaSwizzle::None => None,
            TmaSwizzle::B32 => Some(32),
            TmaSwizzle::B64 => Some(64),
            TmaSwizzle::B128 => Some(128),
        }
    }

    /// The alignment the box's shared address needs: 128 bytes for any
    /// TMA box, and the pattern's repeat (8 rows of the span: 256, 512,
    /// 1024 bytes) with a swizzle, since the hardware swizzles absolute
    /// address bits.
    pub const fn shared_alignment(self) -> u32 {
        match self.span_bytes() {
            Some(span) => span * 8,
            None => 128,
        }
    }

    /// The driver's enum value.
    const fn to_cuda(self) -> sys::CUtensorMapSwizzle {
        match self {
            TmaSwizzle::None => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            TmaSwizzle::B32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            TmaSwizzle::B64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            TmaSwizzle::B128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        }
    }
}

impl fmt::Display for TmaSwizzle {
    /// Writes `none`, `32B`, `64B` or `128B`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.span_bytes() {
            Some(span) => write!(f, "{span}B"),
            None => f.write_str("none"),
        }
    }
}

/// The driver's data type of `element`, as CUTLASS's
/// `to_CUtensorMapDataType` picks it (8-bit integers and FP8 as `UINT8`,
/// tf32 as `TFLOAT32`).
const fn data_type(element: ElementType) -> sys::CUtensorMapDataType {
    use sys::CUtensorMapDataType as T;
    match element {
        ElementType::F16 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        ElementType::BF16 => T::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
        ElementType::F32 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        ElementType::TF32 => T::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32,
        ElementType::F64 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        ElementType::I8 | ElementType::U8 | ElementType::F8E4M3 | ElementType::F8E5M2 => {
            T::CU_TENSOR_MAP_DATA_TYPE_UINT8
        }
        ElementType::I32 => T::CU_TENSOR_MAP_DATA_TYPE_INT32,
    }
}

/// Whether `element` is a floating-point type (the NaN out-of-bounds fill
/// needs one).
const fn is_float(element: ElementType) -> bool {
    matches!(
        element,
        ElementType::F16
            | ElementType::BF16
            | ElementType::F32
            | ElementType::TF32
            | ElementType::F64
    )
}

/// What a tiled tensor map describes: a global tensor of up to 5
/// dimensions and the box one TMA copy moves. Checked without a driver
/// ([`validate`](Self::validate)), encoded with one
/// ([`encode`](Self::encode)).
///
/// A row-major M x K bf16 matrix A loaded in 128 x 64 boxes with the 128B
/// swizzle, coordinates `{k, m}` in the kernel:
///
/// ```
/// use cutlet::device::{TmaSwizzle, TmaTiled};
/// use cutlet::layout::Layout;
/// use cutlet::numeric::ElementType;
///
/// let (m, k) = (512, 1024);
/// // (K, M):(1, K), innermost first
/// let a: Layout = format!("({k},{m}):(1,{k})").parse().unwrap();
/// let map = TmaTiled::from_layout(ElementType::BF16, 0x7f00_0000_0000, &a, &[64, 128], TmaSwizzle::B128)
///     .unwrap();
/// assert_eq!(map.dims, [1024, 512]);
/// assert_eq!(map.strides_bytes, [2048]);
/// assert_eq!(map.box_bytes(), 64 * 128 * 2);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct TmaTiled {
    /// The element type.
    pub element: ElementType,
    /// The device address of element 0, 16-byte aligned.
    pub global_address: u64,
    /// Extent per dimension in elements, innermost first (1 to 5 of them).
    pub dims: Vec<u64>,
    /// Stride in bytes of dimensions 1.. (dimension 0 is contiguous).
    pub strides_bytes: Vec<u64>,
    /// The box's extent per dimension in elements, innermost first.
    pub box_dims: Vec<u32>,
    /// The box's swizzle in shared memory.
    pub swizzle: TmaSwizzle,
    /// Out-of-bounds elements read as zeros (`true`, the usual choice) or
    /// as NaN that a later FMA treats as zero (`false`, float types only).
    pub oob_zero: bool,
}

/// An [`Error::InvalidArgument`] about field `name` of a tensor map.
fn invalid(
    name: impl fmt::Display,
    value: impl fmt::Display,
    expected: impl Into<String>,
) -> Error {
    Error::invalid_argument(format!("tensor map {name}"), value, expected)
}

impl TmaTiled {
    /// The map of a global tensor given as a cutlet [`Layout`] in elements:
    /// each top-level mode a dimension (innermost first, so mode 0 must
    /// have stride 1), its extent a dim and its stride (times the element
    /// size) a byte stride; `box_dims` per mode; zeros out of bounds.
    /// Checked with [`validate`](Self::validate).
    ///
    /// ```
    /// use cutlet::device::{TmaSwizzle, TmaTiled};
    /// use cutlet::layout::Layout;
    /// use cutlet::numeric::ElementType;
    ///
    /// // a batch of 4 row-major 100 x 96 f16 matrices, batch stride 100 * 96
    /// let c: Layout = "(96,100,4):(1,96,9600)".parse().unwrap();
    /// let map = TmaTiled::from_layout(ElementType::F16, 0x1000, &c, &[32, 64, 1], TmaSwizzle::B64)
    ///     .unwrap();
    /// assert_eq!(map.dims, [96, 100, 4]);
    /// assert_eq!(map.strides_bytes, [192, 19200]);
    ///
    /// // K-contiguous is required: a column-major view is refused by name
    /// let t: Layout = "(96,100):(100,1)".parse().unwrap();
    /// let err = TmaTiled::from_layout(ElementType::F16, 0x1000, &t, &[32, 64], TmaSwizzle::None)
    ///     .unwrap_err();
    /// assert!(err.to_string().contains("stride 100"));
    /// ```
    ///
    /// Errors: [`Error::InvalidArgument`] for a nested mode, a mode 0 that
    /// is not contiguous, a negative extent or stride, or any rule of
    /// [`validate`](Self::validate).
    pub fn from_layout(
        element: ElementType,
        global_address: u64,
        layout: &Layout,
        box_dims: &[u32],
        swizzle: TmaSwizzle,
    ) -> Result<TmaTiled> {
        let modes = layout.modes();
        let mut dims = Vec::with_capacity(modes.len());
        let mut strides_bytes = Vec::with_capacity(modes.len().saturating_sub(1));
        for (i, mode) in modes.iter().enumerate() {
            let (Some(extent), Some(stride)) = (mode.shape().as_int(), mode.stride().as_int())
            else {
                return Err(invalid(
                    format!("layout mode {i}"),
                    mode,
                    "a single extent and stride per mode (group or flatten the layout first)",
                ));
            };
            let extent = u64::try_from(extent)
                .map_err(|_| invalid(format!("layout mode {i}"), mode, "a positive extent"))?;
            dims.push(extent);
            if i == 0 {
                if stride != 1 {
                    return Err(invalid(
                        "layout mode 0",
                        format!("{mode} (stride {stride})"),
                        "stride 1: the innermost dimension is contiguous in memory",
                    ));
                }
                continue;
            }
            let stride = u64::try_from(stride).map_err(|_| {
                invalid(
                    format!("layout mode {i}"),
                    format!("{mode} (stride {stride})"),
                    "a non-negative stride",
                )
            })?;
            strides_bytes.push(stride.saturating_mul(u64::from(element.size_bytes())));
        }
        let map = TmaTiled {
            element,
            global_address,
            dims,
            strides_bytes,
            box_dims: box_dims.to_vec(),
            swizzle,
            oob_zero: true,
        };
        map.validate()?;
        Ok(map)
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Bytes of one box, in-bounds or not: what one load completes on its
    /// mbarrier (`mbarrier.arrive.expect_tx`).
    pub fn box_bytes(&self) -> u64 {
        self.box_dims.iter().map(|&b| u64::from(b)).product::<u64>()
            * u64::from(self.element.size_bytes())
    }

    /// Checks every rule `cuTensorMapEncodeTiled` sets, with no driver
    /// call: rank 1..=5, as many box extents and rank - 1 strides; address
    /// 16-byte aligned; each dim in `[1, 2^32]`; each stride a multiple
    /// of 16 bytes below 2^40; each box extent in `[1, 256]`; the box's
    /// inner extent a multiple of 16 bytes, and with a swizzle at most its
    /// span; a NaN fill only for floating-point elements. Every element
    /// type has a driver data type.
    ///
    /// Errors: [`Error::InvalidArgument`] naming the field, its value and
    /// the rule.
    pub fn validate(&self) -> Result<()> {
        let rank = self.dims.len();
        if rank == 0 || rank > TMA_MAX_RANK {
            return Err(invalid(
                "rank",
                format!("{rank} dimensions"),
                format!("1 to {TMA_MAX_RANK} dimensions"),
            ));
        }
        if self.box_dims.len() != rank {
            return Err(invalid(
                "box_dims",
                format!("{} extents", self.box_dims.len()),
                format!("one per dimension: {rank}"),
            ));
        }
        if self.strides_bytes.len() != rank - 1 {
            return Err(invalid(
                "strides_bytes",
                format!("{} strides", self.strides_bytes.len()),
                format!("one per dimension after the first: {}", rank - 1),
            ));
        }
        if !self.global_address.is_multiple_of(TMA_GRANULE) {
            return Err(invalid(
                "global_address",
                format!("{:#x}", self.global_address),
                "a 16-byte aligned address",
            ));
        }
        for (i, &dim) in self.dims.iter().enumerate() {
            if dim == 0 || dim > TMA_MAX_DIM {
                return Err(invalid(
                    format!("dims[{i}]"),
                    dim,
                    "an extent from 1 to 2^32 elements",
                ));
            }
        }
        for (i, &stride) in self.strides_bytes.iter().enumerate() {
            if !stride.is_multiple_of(TMA_GRANULE) || stride >= TMA_MAX_STRIDE {
                return Err(invalid(
                    format!("strides_bytes[{i}]"),
                    format!("{stride} bytes (dimension {})", i + 1),
                    "a multiple of 16 bytes below 2^40",
                ));
            }
        }
        for (i, &extent) in self.box_dims.iter().enumerate() {
            if extent == 0 || extent > TMA_MAX_BOX {
                return Err(invalid(
                    format!("box_dims[{i}]"),
                    extent,
                    format!("a box extent from 1 to {TMA_MAX_BOX} elements"),
                ));
            }
        }
        let inner = u64::from(self.box_dims[0]) * u64::from(self.element.size_bytes());
        if !inner.is_multiple_of(TMA_GRANULE) {
            return Err(invalid(
                "box_dims[0]",
                format!("{} ({inner} bytes of {})", self.box_dims[0], self.element),
                "an inner box extent that is a multiple of 16 bytes",
            ));
        }
        if let Some(span) = self.swizzle.span_bytes() {
            if inner > u64::from(span) {
                return Err(invalid(
                    "box_dims[0]",
                    format!("{} ({inner} bytes of {})", self.box_dims[0], self.element),
                    format!(
                        "an inner box extent of at most {span} bytes with the {} swizzle",
                        self.swizzle
                    ),
                ));
            }
        }
        if !self.oob_zero && !is_float(self.element) {
            return Err(invalid(
                "oob_zero",
                format!("false (NaN fill) for {}", self.element),
                "a zero fill for integer elements: the NaN fill needs a floating-point type",
            ));
        }
        Ok(())
    }

    /// Encodes the map with the driver's `cuTensorMapEncodeTiled`, after
    /// [`validate`](Self::validate); cheap enough for every launch (small
    /// arrays on the stack, one driver call).
    ///
    /// Errors: [`Error::NoDriver`] without a driver (never a panic); the
    /// rules of [`validate`](Self::validate); [`Error::Driver`] when the
    /// driver lacks the function (drivers before CUDA 12.0) or refuses the
    /// map.
    pub fn encode(&self) -> Result<TensorMapArg> {
        self.validate()?;
        encoder_ready()?;
        let rank = self.dims.len();
        let mut dims = [1u64; TMA_MAX_RANK];
        dims[..rank].copy_from_slice(&self.dims);
        let mut strides = [0u64; TMA_MAX_RANK - 1];
        strides[..rank - 1].copy_from_slice(&self.strides_bytes);
        let mut boxes = [1u32; TMA_MAX_RANK];
        boxes[..rank].copy_from_slice(&self.box_dims);
        let element_strides = [1u32; TMA_MAX_RANK];
        let oob = if self.oob_zero {
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE
        } else {
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
        };
        let mut map = TensorMapArg(sys::CUtensorMap { opaque: [0; 16] });
        // SAFETY: the driver library is loaded and has the symbol
        // (`encoder_ready`); `map.0` is a writable `CUtensorMap`, 64-byte
        // aligned (`TensorMapArg` is `align(64)`); the four arrays hold at
        // least `rank` (rank - 1 for the strides) values and outlive the
        // call; the address is only stored in the map, never dereferenced.
        let status = unsafe {
            sys::cuTensorMapEncodeTiled(
                &mut map.0,
                data_type(self.element),
                rank as u32,
                self.global_address as *mut c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                element_strides.as_ptr(),
                sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                self.swizzle.to_cuda(),
                sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                oob,
            )
        };
        status.result().map_err(|e| {
            Error::driver(
                format!(
                    "encoding a tiled tensor map (cuTensorMapEncodeTiled) of {} dims {:?}, strides {:?} bytes, box {:?}, swizzle {}",
                    self.element, self.dims, self.strides_bytes, self.box_dims, self.swizzle
                ),
                e,
            )
        })?;
        Ok(map)
    }
}

/// Whether `cuTensorMapEncodeTiled` may be called, found once per process.
#[derive(Clone, Copy, Debug)]
enum Encoder {
    /// The driver is loaded, initialized and has the function.
    Ready,
    /// No driver library.
    NoDriver,
    /// A driver without the function (before CUDA 12.0).
    Missing,
    /// `cuInit` failed with this code.
    InitFailed(CUresult),
}

/// `Ok` once the driver can encode tensor maps; cudarc would panic on a
/// missing library or symbol, so both are looked up first.
fn encoder_ready() -> Result<()> {
    static STATE: OnceLock<Encoder> = OnceLock::new();
    let state = *STATE.get_or_init(|| {
        if !driver_available() {
            return Encoder::NoDriver;
        }
        // SAFETY: the library loads (checked above), so `culib` returns
        // it; looking a symbol up calls nothing, and the symbol is dropped
        // at once.
        let found = unsafe {
            sys::culib()
                .get::<unsafe extern "C" fn()>(b"cuTensorMapEncodeTiled\0")
                .is_ok()
        };
        if !found {
            return Encoder::Missing;
        }
        match init() {
            Ok(_) => Encoder::Ready,
            Err(Error::Driver { source, .. }) => Encoder::InitFailed(source.0),
            Err(_) => Encoder::NoDriver,
        }
    });
    match state {
        Encoder::Ready => Ok(()),
        Encoder::NoDriver => Err(Error::NoDriver),
        Encoder::Missing => Err(Error::driver(
            "looking up cuTensorMapEncodeTiled: the installed driver lacks it (TMA needs a CUDA 12.0 driver or newer)",
            DriverError(CUresult::CUDA_ERROR_NOT_SUPPORTED),
        )),
        Encoder::InitFailed(code) => Err(Error::driver(
            "initializing the CUDA driver (cuInit) to encode a tensor map",
            DriverError(code),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes per element of each driver data type cutlet uses, from the
    /// driver's documentation of `CUtensorMapDataType`.
    fn driver_bytes(data: sys::CUtensorMapDataType) -> u32 {
        use sys::CUtensorMapDataType as T;
        match data {
            T::CU_TENSOR_MAP_DATA_TYPE_UINT8 => 1,
            T::CU_TENSOR_MAP_DATA_TYPE_FLOAT16 | T::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 => 2,
            T::CU_TENSOR_MAP_DATA_TYPE_INT32
            | T::CU_TENSOR_MAP_DATA_TYPE_FLOAT32
            | T::CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 => 4,
            T::CU_TENSOR_MAP_DATA_TYPE_FLOAT64 => 8,
            other => panic!("cutlet maps no element type to {other:?}"),
        }
    }

    #[test]
    fn every_element_type_has_a_driver_type_of_its_size() {
        for element in ElementType::ALL {
            assert_eq!(
                driver_bytes(data_type(element)),
                element.size_bytes(),
                "{element}"
            );
        }
    }

    #[test]
    fn swizzles_map_to_the_driver_codes() {
        let codes: Vec<u32> = TmaSwizzle::ALL.iter().map(|s| s.to_cuda() as u32).collect();
        assert_eq!(codes, [0, 1, 2, 3]);
    }
}
