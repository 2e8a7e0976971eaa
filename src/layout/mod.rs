//! The CuTe layout algebra.
//!
//! A [`Layout`] is a pair of congruent hierarchical integer tuples
//! ([`IntTuple`]), a shape and a stride, read as a function from coordinates to
//! indices. Everything that partitions data among threads, tiles and stages in
//! cutlet is computed with these functions on the host, at kernel-generation
//! time, exactly as CuTe does at C++ compile time.
//!
//! | item | CuTe counterpart |
//! |---|---|
//! | [`IntTuple`], `crd2idx`, `idx2crd` | `cute/int_tuple.hpp`, `cute/stride.hpp` |
//! | [`Layout`], [`Major`] | `cute/layout.hpp` |
//! | [`Tiler`] | the `Tiler` argument of `logical_divide` and friends |
//! | notation ([`Parser`]) | `print(layout)` |

mod algebra;
mod error;
mod int_tuple;
#[allow(clippy::module_inception)]
mod layout;
mod notation;
mod tiler;

pub use algebra::{
    blocked_product, coalesce, coalesce_by_mode, complement, composition, downcast, filter,
    filter_zeros, flat_divide, flat_product, left_inverse, logical_divide, logical_product,
    make_layout_tv, make_ordered_layout, max_common_vector, raked_product, recast, right_inverse,
    tiled_divide, tiled_product, upcast, zipped_divide, zipped_product,
};
pub use error::LayoutError;
pub use int_tuple::IntTuple;
pub use layout::{Layout, Major};
pub use notation::{ParseError, Parser};
pub use tiler::Tiler;

mod composed;
mod print;
mod static_layout;
mod static_tuple;
mod svg;
mod swizzle;

pub use composed::{ComposedLayout, SmemSwizzle};
pub use print::print_layout;
pub use static_layout::{StaticLayout, StaticSwizzle};
pub use static_tuple::{Congruent, StaticIntTuple};
pub use svg::{layout_svg, tv_layout_svg};
pub use swizzle::Swizzle;
