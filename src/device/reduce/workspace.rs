//! [`ReduceWorkspace`]: the f32 partials and u32 arrival counters that
//! split reductions share, grown on demand and reused.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use crate::{Error, Result};

/// A reusable workspace for reductions that split over CTAs: f32 partials
/// and u32 arrival counters (zeroed when allocated; every completed launch
/// leaves them zero). Starts empty; a call that needs more allocates
/// (once) on its stream.
#[derive(Debug, Default)]
pub struct ReduceWorkspace {
    buffer: Option<CudaSlice<f32>>,
    counters: Option<CudaSlice<u32>>,
}

impl ReduceWorkspace {
    /// An empty workspace (no device memory until a call needs it).
    pub fn new() -> ReduceWorkspace {
        ReduceWorkspace::default()
    }

    /// 4-byte words held now (f32 partials plus u32 counters).
    pub fn len(&self) -> usize {
        self.buffer.as_ref().map_or(0, CudaSlice::len)
            + self.counters.as_ref().map_or(0, CudaSlice::len)
    }

    /// Whether no device memory is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The partials (at least `len` f32) and the counters (at least
    /// `counters` u32, zero).
    pub(super) fn ensure(
        &mut self,
        stream: &Arc<CudaStream>,
        len: usize,
        counters: usize,
    ) -> Result<(&mut CudaSlice<f32>, &mut CudaSlice<u32>)> {
        let buffer = match self.buffer.take() {
            Some(buffer) if buffer.len() >= len => buffer,
            _ => stream.alloc_zeros::<f32>(len.max(1)).map_err(|e| {
                Error::driver(format!("allocating a {len}-element reduction workspace"), e)
            })?,
        };
        let zeroed = match self.counters.take() {
            Some(zeroed) if zeroed.len() >= counters => zeroed,
            _ => stream.alloc_zeros::<u32>(counters.max(1)).map_err(|e| {
                Error::driver(format!("allocating {counters} reduction counters"), e)
            })?,
        };
        Ok((self.buffer.insert(buffer), self.counters.insert(zeroed)))
    }
}
