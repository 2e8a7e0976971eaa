//! Finishing a split reduction inside the same launch ("last CTA"
//! pattern, as CUDA's threadfence reduction).
//!
//! When the reduced dimension is split over `splits` CTAs, each CTA writes
//! its f32 partial result(s) to the `partials` workspace, makes them
//! visible to the whole GPU (`membar.gl`), then thread 0 adds one to an
//! integer counter of the output item (`atom.global.add.u32` on the
//! `counters` workspace). The CTA that sees `splits - 1` arrived before it
//! is the last one: it sets the counter back to 0 (so the next launch finds
//! it zeroed without a memset), and combines the item's partials in a fixed
//! order (it reads them with `ld.global.cg`, from L2, never from a stale L1
//! line). Which CTA is last varies from run to run, but the order of the
//! f32 operations does not, so results stay deterministic; no float
//! atomics.
//!
//! The counters must be zero when a launch starts: the device layer
//! allocates them zeroed, and every completed launch leaves them zero.

use crate::ptx::{Kernel, Label, Reg, RegClass, SharedVar, SpecialReg};
use crate::Result;

/// The arrival counter of one output item: `counters[index]` (u32), which
/// `arrivals` CTAs increment.
pub(super) struct Counter {
    pub base: Reg,
    pub index: Reg,
    pub arrivals: Reg,
}

/// Emits the arrival: every thread fences its partial stores, the CTA
/// synchronizes, thread 0 counts the CTA in and publishes through `flag`
/// (shared u32) whether it was the last; CTAs that are not the last branch
/// to `skip`. Must be reached by every thread of the CTA.
pub(super) fn last_cta(
    k: &mut Kernel,
    flag: &SharedVar,
    counter: &Counter,
    skip: &Label,
) -> Result<()> {
    let tid = k.special(SpecialReg::TidX);
    let p = k.reg(RegClass::Pred);
    let [addr, expected] = [0; 2].map(|_| k.reg(RegClass::B64));
    let [old, was_last, seen] = [0; 3].map(|_| k.reg(RegClass::B32));
    let counted = k.new_label("counted")?;
    k.push("membar.gl;");
    k.push("bar.sync 0;");
    k.push(format!("setp.ne.u32 {p}, {tid}, 0;"));
    k.push(format!("@{p} bra {counted};"));
    k.push(format!("shl.b64 {addr}, {}, 2;", counter.index));
    k.push(format!("add.u64 {addr}, {addr}, {};", counter.base));
    k.push(format!("atom.global.add.u32 {old}, [{addr}], 1;"));
    k.push(format!("sub.u64 {expected}, {}, 1;", counter.arrivals));
    let narrow = k.reg(RegClass::B32);
    k.push(format!("cvt.u32.u64 {narrow}, {expected};"));
    k.push(format!("setp.eq.u32 {p}, {old}, {narrow};"));
    k.push(format!("selp.u32 {was_last}, 1, 0, {p};"));
    k.push(format!("@{p} st.global.u32 [{addr}], 0;"));
    k.push("membar.gl;");
    k.push(format!("st.shared.u32 [{flag}], {was_last};"));
    k.place_label(&counted);
    k.push("bar.sync 0;");
    k.push(format!("ld.shared.u32 {seen}, [{flag}];"));
    k.push(format!("setp.eq.u32 {p}, {seen}, 0;"));
    k.push(format!("@{p} bra {skip};"));
    Ok(())
}
