//! Host-side validation of an elementwise call: shapes, broadcasting,
//! scalars, output self-overlap, orientation and flattening. No device call.

use crate::device::scalars::check_scalar;
use crate::kernel::elementwise::{TvPlan, SUPPORTED_ELEMENTS};
use crate::numeric::ElementType;
use crate::tensor::ViewLayout;
use crate::{Error, Result};

/// Most inputs one elementwise kernel takes.
pub const MAX_INPUTS: usize = 8;

/// One tensor as validation sees it: its element type and layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TensorDesc {
    /// Element type in memory.
    pub element: ElementType,
    /// Shape and strides in elements.
    pub layout: ViewLayout,
}

/// The kernel's view of a validated call: `(rows, n)` with `len` elements,
/// and each tensor's `(row stride, col stride)` in that view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Whether the output has no element (the call is a no-op).
    pub empty: bool,
    /// Columns of the kernel's view (the contiguous mode of the output).
    pub n: u64,
    /// Elements of the kernel's view (`rows * n`, or the flattened length).
    pub len: u64,
    /// Tiles along `N`.
    pub tiles_n: u32,
    /// Blocks in the grid.
    pub blocks: u32,
    /// `(row stride, col stride)` of the output, then of each input.
    pub strides: Vec<(u64, u64)>,
    /// Whether the view is the 1-D flattening (rows of `tile_n` elements:
    /// every row stride is `tile_n` times the column stride).
    pub flat: bool,
}

/// The arity, scalar and element-type checks of a call: `arity` inputs (at
/// most [`MAX_INPUTS`]), `scalar_count` scalars, each finite in
/// `finite_in` (the compute type) where that is given, and element types
/// the kernels support.
///
/// ```
/// use cutlet::device::{check_arguments, TensorDesc};
/// use cutlet::numeric::ElementType::F32;
/// use cutlet::tensor::ViewLayout;
///
/// let x = TensorDesc { element: F32, layout: ViewLayout::vector(8) };
/// assert!(check_arguments(1, 1, &[x], &x, &[0.5], Some(F32)).is_ok());
/// let nan = check_arguments(1, 1, &[x], &x, &[f64::NAN], Some(F32)).unwrap_err();
/// assert!(nan.to_string().contains("`scalars[0]` = NaN"), "{nan}");
/// assert!(check_arguments(1, 1, &[x], &x, &[f64::NAN], None).is_ok());
/// ```
///
/// Errors: [`Error::InvalidArgument`] naming the count, the scalar and its
/// value, or the tensor and its element type.
pub fn check_arguments(
    arity: usize,
    scalar_count: usize,
    inputs: &[TensorDesc],
    output: &TensorDesc,
    scalars: &[f64],
    finite_in: Option<ElementType>,
) -> Result<()> {
    if inputs.len() > MAX_INPUTS {
        return Err(Error::invalid_argument(
            "inputs",
            format!("{} tensors", inputs.len()),
            format!("at most {MAX_INPUTS} inputs"),
        ));
    }
    if inputs.len() != arity {
        return Err(Error::invalid_argument(
            "inputs",
            format!("{} tensors", inputs.len()),
            format!("{arity}, the expression's arity"),
        ));
    }
    if scalars.len() != scalar_count {
        return Err(Error::invalid_argument(
            "scalars",
            format!("{} values", scalars.len()),
            format!("{scalar_count}, the scalars the expression uses"),
        ));
    }
    if let Some(compute) = finite_in {
        for (i, &value) in scalars.iter().enumerate() {
            check_scalar(|| format!("scalars[{i}]"), value, compute)?;
        }
    }
    for (name, desc) in std::iter::once(("output".to_string(), output)).chain(
        inputs
            .iter()
            .enumerate()
            .map(|(i, d)| (format!("inputs[{i}]"), d)),
    ) {
        if !SUPPORTED_ELEMENTS.contains(&desc.element) {
            return Err(Error::invalid_argument(
                format!("{name} element type"),
                desc.element,
                "f16, bf16, f32, f64 or i32",
            ));
        }
    }
    Ok(())
}

/// Whether two distinct elements of `layout` share an address.
fn addresses_some_element_twice(layout: &ViewLayout) -> bool {
    let mut modes: Vec<(usize, usize)> = layout
        .shape()
        .into_iter()
        .zip(layout.strides())
        .filter(|(extent, _)| *extent > 1)
        .map(|(extent, stride)| (stride, extent))
        .collect();
    modes.sort_unstable();
    match modes[..] {
        [(0, _), ..] => true,
        [(small, extent), (large, _)] => small.saturating_mul(extent) > large,
        _ => false,
    }
}

/// Validates the tensors against each other and computes the kernel's view.
///
/// Errors: [`Error::InvalidArgument`] naming the tensor and both shapes when
/// an input does not broadcast to the output's shape, when the output
/// addresses an element twice, or when the grid would exceed `2^31 - 1`
/// blocks.
pub fn plan_problem(inputs: &[TensorDesc], output: &TensorDesc, tv: &TvPlan) -> Result<Problem> {
    let out = output.layout;
    let shape = out.shape();
    if addresses_some_element_twice(&out) {
        return Err(Error::invalid_argument(
            "output",
            out,
            "a layout that addresses each element once (an output with a stride-0 or overlapping mode is not elementwise-safe)",
        ));
    }
    let mut layouts = vec![out];
    for (i, input) in inputs.iter().enumerate() {
        let b = input.layout.broadcast_to(shape).ok_or_else(|| {
            Error::invalid_argument(
                format!("inputs[{i}] shape"),
                format!("{:?}", input.layout.shape()),
                format!("the output's shape {shape:?} (or one that broadcasts to it)"),
            )
        })?;
        layouts.push(b);
    }
    let tile_n = tv.tile_n as u64;
    let tile_m = tv.tile_m as u64;
    if out.is_empty() {
        return Ok(Problem {
            empty: true,
            n: 0,
            len: 0,
            tiles_n: 0,
            blocks: 0,
            strides: Vec::new(),
            flat: false,
        });
    }
    // Orientation: the output's smaller-stride mode (of extent > 1) is N.
    let [sm, sn] = out.strides();
    if shape[0] > 1 && (shape[1] == 1 || sm < sn) {
        layouts.iter_mut().for_each(|l| *l = l.transposed());
    }
    let [rows, cols] = layouts[0].shape();
    let total = (rows as u64)
        .checked_mul(cols as u64)
        .ok_or_else(|| Error::invalid_argument("output", out, "fewer than 2^64 elements"))?;
    let flat = rows == 1
        || layouts
            .iter()
            .all(|l| l.strides()[0] == cols.wrapping_mul(l.strides()[1]));
    let (n, strides): (u64, Vec<(u64, u64)>) = if flat {
        (
            tile_n,
            layouts
                .iter()
                .map(|l| {
                    let s = l.strides()[1] as u64;
                    (s.wrapping_mul(tile_n), s)
                })
                .collect(),
        )
    } else {
        (
            cols as u64,
            layouts
                .iter()
                .map(|l| (l.strides()[0] as u64, l.strides()[1] as u64))
                .collect(),
        )
    };
    let view_rows = if flat {
        total.div_ceil(tile_n)
    } else {
        rows as u64
    };
    let tiles_n = n.div_ceil(tile_n);
    let tiles_m = view_rows.div_ceil(tile_m);
    let blocks = tiles_n
        .checked_mul(tiles_m)
        .filter(|b| *b <= i32::MAX as u64)
        .ok_or_else(|| {
            Error::invalid_argument(
                "output",
                out,
                format!("at most {} tiles of {tile_m}x{tile_n}", i32::MAX),
            )
        })?;
    Ok(Problem {
        empty: false,
        n,
        len: total,
        tiles_n: tiles_n as u32,
        blocks: blocks as u32,
        strides,
        flat,
    })
}

/// Checks that the output, at `out_addr`, and each input either share no
/// byte or are the same elements in the same order (in place). Returns, per
/// input, whether it is disjoint from the output (so it may be read through
/// the non-coherent cache).
///
/// Errors: [`Error::InvalidArgument`] naming the input and both layouts.
pub fn check_overlap(
    output: &TensorDesc,
    out_addr: u64,
    inputs: &[TensorDesc],
    in_addrs: &[u64],
) -> Result<Vec<bool>> {
    let span = |d: &TensorDesc| -> u64 {
        d.layout.required_len().unwrap_or(usize::MAX) as u64 * u64::from(d.element.size_bytes())
    };
    let out_end = out_addr.saturating_add(span(output));
    let mut disjoint = Vec::with_capacity(inputs.len());
    for (i, (input, addr)) in inputs.iter().zip(in_addrs).enumerate() {
        let end = addr.saturating_add(span(input));
        if end <= out_addr || out_end <= *addr || span(input) == 0 || span(output) == 0 {
            disjoint.push(true);
            continue;
        }
        let same = *addr == out_addr
            && input.element.size_bytes() == output.element.size_bytes()
            && input
                .layout
                .broadcast_to(output.layout.shape())
                .map(|l| l.strides())
                == Some(output.layout.strides());
        if !same {
            return Err(Error::invalid_argument(
                format!("inputs[{i}]"),
                format!("{} at {addr:#x}, overlapping the output {} at {out_addr:#x}", input.layout, output.layout),
                "an input that shares no memory with the output, or is the output itself (same address, element size and layout)",
            ));
        }
        disjoint.push(false);
    }
    Ok(disjoint)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_overlapping_outputs_are_detected() {
        assert!(addresses_some_element_twice(
            &ViewLayout::with_strides(&[4, 8], &[0, 1]).unwrap()
        ));
        assert!(addresses_some_element_twice(
            &ViewLayout::with_strides(&[4, 8], &[4, 1]).unwrap()
        ));
        assert!(!addresses_some_element_twice(
            &ViewLayout::with_strides(&[4, 8], &[8, 1]).unwrap()
        ));
        assert!(!addresses_some_element_twice(&ViewLayout::col_major(4, 8)));
        assert!(!addresses_some_element_twice(
            &ViewLayout::with_strides(&[1, 8], &[0, 1]).unwrap()
        ));
    }
}
