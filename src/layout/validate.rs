//! Argument checks shared by the algebra: CuTe's `static_assert`s as errors.

use super::{IntTuple, Layout, LayoutError, Tiler};

/// An `Inadmissible` error of `op` with the given detail.
pub(crate) fn inadmissible(op: &'static str, detail: impl Into<String>) -> LayoutError {
    LayoutError::Inadmissible {
        op,
        detail: detail.into(),
    }
}

/// Fails unless every integer of `shape` is positive.
pub(crate) fn positive_shape(op: &'static str, shape: &IntTuple) -> Result<(), LayoutError> {
    match shape.flatten().into_iter().find(|&s| s < 1) {
        Some(s) => Err(inadmissible(
            op,
            format!("shape {shape} has the non-positive extent {s}, expected every extent >= 1"),
        )),
        None => Ok(()),
    }
}

/// Fails unless every extent of `layout` is positive.
pub(crate) fn layout(op: &'static str, layout: &Layout) -> Result<(), LayoutError> {
    positive_shape(op, layout.shape())
}

/// Fails unless every extent of `layout` is positive and no mode of extent
/// above 1 has a negative stride. A size-1 mode never moves the index, and
/// CuTe's `filter` and `coalesce` drop it before `complement` and
/// `left_inverse` look at strides, so its stride may be anything.
pub(crate) fn layout_nonneg(op: &'static str, layout: &Layout) -> Result<(), LayoutError> {
    positive_shape(op, layout.shape())?;
    let shape = layout.shape().flatten();
    let stride = layout.stride().flatten();
    match shape.iter().zip(stride).find(|&(&s, d)| s > 1 && d < 0) {
        Some((s, d)) => Err(inadmissible(
            op,
            format!(
                "layout {layout} has the negative stride {d} on a mode of extent {s}, expected strides >= 0"
            ),
        )),
        None => Ok(()),
    }
}

/// Fails unless every layout in `tiler` has positive extents.
pub(crate) fn tiler(op: &'static str, tiler: &Tiler) -> Result<(), LayoutError> {
    match tiler {
        Tiler::Layout(l) => layout(op, l),
        Tiler::ByMode(parts) => parts.iter().try_for_each(|t| self::tiler(op, t)),
    }
}

/// Fails when a by-mode tiler has more modes than the layout it applies to.
pub(crate) fn by_mode_rank(
    op: &'static str,
    layout: &Layout,
    parts: &[Tiler],
) -> Result<(), LayoutError> {
    if parts.len() > layout.rank() {
        let tiler = Tiler::ByMode(parts.to_vec());
        return Err(inadmissible(
            op,
            format!(
                "the by-mode tiler {tiler} has {} modes but the layout {layout} has rank {}, expected at most as many modes as the layout",
                parts.len(),
                layout.rank()
            ),
        ));
    }
    Ok(())
}
