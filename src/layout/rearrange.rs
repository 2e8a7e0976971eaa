//! Mode rearrangements shared by the divides and products: CuTe's `zip2_by`
//! (behind `zipped_*`), the unpacking slices of `tiled_*`/`flat_*`, and `zip`.

use super::validate::{self, inadmissible};
use super::{Layout, LayoutError, Tiler};

/// Applies `f` to each mode of `layout` that a by-mode tiler reaches, with
/// that mode's part, and keeps the modes it does not reach as they are (the
/// by-mode rule of CuTe's `logical_divide` and `logical_product`).
pub(crate) fn by_mode_keeping_rest(
    op: &'static str,
    layout: &Layout,
    parts: &[Tiler],
    f: impl Fn(&Layout, &Tiler) -> Result<Layout, LayoutError>,
) -> Result<Layout, LayoutError> {
    validate::by_mode_rank(op, layout, parts)?;
    let modes = layout
        .modes()
        .iter()
        .enumerate()
        .map(|(i, m)| match parts.get(i) {
            Some(p) => f(m, p),
            None => Ok(m.clone()),
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Layout::from_modes(modes))
}

/// CuTe's `tile_unzip`: gathers the rank-2 modes at the terminals of `tiler`
/// into `((tiles...), (rests..., untouched modes...))`.
pub(crate) fn tile_unzip(
    op: &'static str,
    layout: &Layout,
    tiler: &Tiler,
) -> Result<Layout, LayoutError> {
    let mismatch = || {
        inadmissible(
            op,
            format!("cannot zip {layout} by the tiler {tiler}: mismatched ranks"),
        )
    };
    match tiler {
        Tiler::Layout(_) if layout.shape().is_int() || layout.rank() != 2 => Err(mismatch()),
        Tiler::Layout(_) => Ok(layout.clone()),
        Tiler::ByMode(parts) => {
            if layout.shape().is_int() || layout.rank() < parts.len() {
                return Err(mismatch());
            }
            let modes = layout.modes();
            let (mut tiles, mut rests) = (Vec::new(), Vec::new());
            for (mode, part) in modes.iter().zip(parts) {
                let split = tile_unzip(op, mode, part)?;
                let mut halves = split.modes().into_iter();
                tiles.push(halves.next().ok_or_else(mismatch)?);
                rests.push(halves.next().ok_or_else(mismatch)?);
            }
            rests.extend(modes[parts.len()..].iter().cloned());
            Ok(Layout::from_modes([
                Layout::from_modes(tiles),
                Layout::from_modes(rests),
            ]))
        }
    }
}

/// The modes that slicing mode `m` with `repeat<rank(m)>(_)` contributes: the
/// mode itself when its rank is 1, its top-level modes otherwise.
fn unpacked(m: &Layout) -> Vec<Layout> {
    if m.rank() == 1 {
        vec![m.clone()]
    } else {
        m.modes()
    }
}

/// `result(_, repeat<R1>(_))`: keeps mode 0, unpacks mode 1 (CuTe's `tiled_*`).
pub(crate) fn unpack_second(result: &Layout) -> Layout {
    let modes = result.modes();
    let mut out = vec![modes[0].clone()];
    out.extend(modes[1..].iter().flat_map(unpacked));
    Layout::from_modes(out)
}

/// `result(repeat<R0>(_), repeat<R1>(_))`: unpacks both modes (CuTe's `flat_*`).
pub(crate) fn unpack_both(result: &Layout) -> Layout {
    Layout::from_modes(result.modes().iter().flat_map(unpacked))
}

/// CuTe's `zip(a, b)` of two layouts: `((a0,b0),(a1,b1),...)` for tuples,
/// `((a,b))` when `a` is an integer layout.
pub(crate) fn zip(op: &'static str, a: &Layout, b: &Layout) -> Result<Layout, LayoutError> {
    if a.shape().is_int() {
        return Ok(Layout::from_modes([Layout::from_modes([
            a.clone(),
            b.clone(),
        ])]));
    }
    if b.shape().is_int() || a.rank() != b.rank() {
        return Err(inadmissible(
            op,
            format!(
                "cannot zip {a} with {b}: ranks {} and {} differ",
                a.rank(),
                b.rank()
            ),
        ));
    }
    Ok(Layout::from_modes(
        a.modes()
            .into_iter()
            .zip(b.modes())
            .map(|(x, y)| Layout::from_modes([x, y])),
    ))
}
