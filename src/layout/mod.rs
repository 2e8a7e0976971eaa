//! The CuTe layout algebra.
//!
//! A [`Layout`] is a pair of congruent hierarchical integer tuples
//! ([`IntTuple`]), a shape and a stride, read as a function from coordinates to
//! indices. Everything that partitions data among threads, tiles and stages in
//! cutlet is computed with these functions on the host, at kernel-generation
//! time, exactly as CuTe does at C++ compile time: every result is what CuTe
//! C++ gives when all shapes and strides are static (`Int<N>`).
//!
//! | item | CuTe counterpart |
//! |---|---|
//! | [`IntTuple`], `crd2idx`, `idx2crd` | `cute/int_tuple.hpp`, `cute/stride.hpp` |
//! | [`Layout`], [`Major`] | `cute/layout.hpp` |
//! | [`Tiler`] | the `Tiler` argument of `logical_divide` and friends |
//! | notation ([`Parser`]) | `print(layout)` |
//! | [`coalesce`](fn@coalesce), [`filter`], [`composition`](fn@composition), [`complement`](fn@complement) | `cute/layout.hpp` |
//! | [`right_inverse`], [`left_inverse`] | `cute/layout.hpp` |
//! | divides and products | `cute/layout.hpp` |
//! | [`make_layout_tv`] | CuTe DSL `cute.make_layout_tv` |
//! | [`upcast`], [`downcast`], [`recast`](fn@recast), [`max_common_vector`] | `cute/layout.hpp` |

mod coalesce;
mod complement;
mod composition;
mod divide;
mod error;
mod int_tuple;
mod inverse;
#[allow(clippy::module_inception)]
mod layout;
mod notation;
mod ordered;
mod product;
mod rearrange;
mod recast;
mod tiler;
mod tv;
mod validate;

pub use coalesce::{coalesce, coalesce_by_mode, filter, filter_zeros};
pub use complement::complement;
pub use composition::composition;
pub use divide::{flat_divide, logical_divide, tiled_divide, zipped_divide};
pub use error::LayoutError;
pub use int_tuple::IntTuple;
pub use inverse::{left_inverse, right_inverse};
pub use layout::{Layout, Major};
pub use notation::{ParseError, Parser};
pub use ordered::make_ordered_layout;
pub use product::{
    blocked_product, flat_product, logical_product, raked_product, tiled_product, zipped_product,
};
pub use recast::{downcast, max_common_vector, recast, upcast};
pub use tiler::Tiler;
pub use tv::make_layout_tv;

mod composed;
mod print;
mod svg;
mod swizzle;

pub use composed::{ComposedLayout, SmemSwizzle};
pub(crate) use print::print_grid;
pub use print::print_layout;
pub(crate) use svg::{draw_panels, Cell as SvgCell, Panel as SvgPanel};
pub use svg::{layout_svg, tv_layout_svg};
pub use swizzle::Swizzle;
