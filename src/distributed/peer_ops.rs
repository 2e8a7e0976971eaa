//! The overlapped operations of a [`PeerGroup`] (ranks of one process
//! whose GPUs reach each other's memory): the data moves by peer copies
//! on the copy engines, so every GEMM keeps all the SMs.
//!
//! All-gather + GEMM: each rank multiplies its own rows while it pulls the
//! other ranks' shards (rank r + 1 first, one copy stream per peer), then
//! multiplies each shard as it arrives.
//!
//! GEMM + reduce-scatter: each rank computes the partial products of the
//! other ranks' rows first (rank r + 1's first) and its own last; each
//! rank pulls the partials of its rows from the others as they are
//! computed, and sums them, in rank order, in f32, rounded once to the
//! element type (one kernel of `W` inputs).
//!
//! GEMM + all-reduce (decode sizes): a one-shot all-reduce. Each rank
//! multiplies all its rows, then one kernel reads every rank's partials in
//! place, over the GPUs' link, and sums them in rank order as above: no
//! copy engine, no staging buffer.
//!
//! Every operation starts with an exchange on the group's board that
//! carries each rank's shape record and whether its own checks passed,
//! so that every rank returns the same error before anything moves, and
//! ends with one that carries the events of the copies, so that no rank
//! reuses a buffer another still reads. A failure in between abandons
//! the group (see [`PeerGroup::abandon`]).

use std::sync::Arc;

use cudarc::driver::{CudaEvent, CudaStream, CudaView, CudaViewMut, DevicePtr, DevicePtrMut};

use super::ops::{alloc, compare_records, shape_record, Op, PeerCall, TpElement};
use super::peers::{post_event, wait_for, PeerGroup, Posting, RawEvent};
use super::rank::TpRank;
use super::rows::RowSplit;
use super::trace::Timeline;
use crate::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use crate::device::{Device, Elementwise};
use crate::fusion::{input, Expression};
use crate::tensor::{TensorMut, TensorRef};
use crate::{Error, Result};

/// `target` = the sum of `parts` (each as long as `target`), in their
/// order, in f32, rounded once to `T`: one elementwise kernel of
/// `parts.len()` inputs (at most the elementwise family's 8) on `stream`.
pub(super) fn sum_into<T: TpElement>(
    device: &Device,
    parts: &[CudaView<'_, T>],
    target: &mut CudaViewMut<'_, T>,
    stream: &Arc<CudaStream>,
) -> Result<()> {
    let parts: Vec<TensorRef<'_, T>> = parts.iter().map(TensorRef::vector).collect();
    sum_refs_into(device, &parts, target, stream)
}

/// [`sum_into`] of parts that may live on other GPUs
/// ([`TensorRef::peer_vector`]).
pub(super) fn sum_refs_into<T: TpElement>(
    device: &Device,
    parts: &[TensorRef<'_, T>],
    target: &mut CudaViewMut<'_, T>,
    stream: &Arc<CudaStream>,
) -> Result<()> {
    let sum = (1..parts.len()).fold(input(0), |acc, i| acc + input(i));
    let expression = Expression::new(parts.len(), &sum)?;
    let inputs: Vec<_> = parts.iter().map(|&v| v.into()).collect();
    Elementwise::new(device, expression).run(&inputs, TensorMut::vector(target).into(), &[], stream)
}

/// This rank's partial products of GEMM + all-reduce: `out` (M x N,
/// packed) = `alpha` · A B over this rank's slice of K, in a span of the
/// trace.
#[allow(clippy::too_many_arguments)]
pub(super) fn gemm_partials<T: TpElement>(
    gemm: &Gemm,
    shape: GemmShape,
    a: &Operand<'_, T>,
    b: &Operand<'_, T>,
    out: CudaViewMut<'_, T>,
    alpha: f64,
    trace: &mut Option<Timeline>,
    stream: &Arc<CudaStream>,
) -> Result<()> {
    let mut args = Arguments::product(
        shape,
        Operand::new(a.data.slice(..), a.ld, 0),
        Operand::new(b.data.slice(..), b.ld, 0),
        OutputOperand::new(out, shape.n, 0),
        alpha,
    );
    Timeline::span(
        trace,
        stream,
        || format!("GEMM of {} rows", shape.m),
        || gemm.run(&mut args, stream),
    )
}

/// The handles of `events`, as [`TpRank::release`] posts them.
pub(super) fn raw_events(events: &[Option<(CudaEvent, RawEvent)>]) -> Vec<Option<RawEvent>> {
    events
        .iter()
        .map(|e| e.as_ref().map(|(_, raw)| *raw))
        .collect()
}

/// Where a posting's addresses start: after the shape record and the
/// flag of the rank's own checks.
pub(super) const RECORD: usize = 7;

/// Device address of element `offset` of a buffer at `base`.
pub(super) fn at<T>(base: u64, offset: usize) -> u64 {
    base + (offset * std::mem::size_of::<T>()) as u64
}

impl TpRank {
    /// The board's first exchange: every rank's shape record, whether its
    /// own checks (`local`) passed, and (where they did) its buffers'
    /// addresses and events. The same error on every rank where a record
    /// differs or a rank's checks failed; else every rank's posting, with
    /// the addresses after the record (`all[p].addresses[RECORD + i]`).
    pub(super) fn exchange_checked(
        &self,
        peers: &PeerGroup,
        record: [u64; 6],
        local: Result<()>,
        addresses: &[u64],
        events: Vec<Option<RawEvent>>,
    ) -> Result<Vec<Posting>> {
        let mut posted = record.to_vec();
        posted.push(u64::from(local.is_ok()));
        posted.extend_from_slice(addresses);
        let all = peers.exchange(
            self.rank(),
            Posting {
                addresses: posted,
                events,
            },
        )?;
        local?;
        if let Some(rank) = all
            .iter()
            .position(|p| p.addresses.get(RECORD - 1) != Some(&1))
        {
            return Err(Error::invalid_argument(
                format!("the call on rank {rank}"),
                "an error in its own arguments (see that rank's error)",
                "valid arguments on every rank",
            ));
        }
        compare_records(
            all.iter().map(|p| &p.addresses[..record.len()]),
            &record,
            self.rank(),
        )?;
        Ok(all)
    }

    /// [`exchange_checked`](Self::exchange_checked) for an operation that
    /// did its own part first (`prepared`: its buffers and the GEMMs that
    /// need nothing from the other ranks): a failure there is posted as
    /// this rank's, so that no rank waits for it; else `posting` says what
    /// to post. Returns every rank's posting and the prepared part.
    pub(super) fn exchange_prepared<P>(
        &self,
        peers: &PeerGroup,
        record: [u64; 6],
        prepared: Result<P>,
        posting: impl FnOnce(&P) -> (Vec<u64>, Vec<Option<RawEvent>>),
    ) -> Result<(Vec<Posting>, P)> {
        let (local, prepared, addresses, events) = match prepared {
            Ok(p) => {
                let (addresses, events) = posting(&p);
                (Ok(()), Some(p), addresses, events)
            }
            Err(e) => (Err(e), None, Vec::new(), Vec::new()),
        };
        let all = self.exchange_checked(peers, record, local, &addresses, events)?;
        // `exchange_checked` returned this rank's own error where there
        // was one: `prepared` is there.
        let prepared = prepared.ok_or_else(|| {
            Error::invalid_argument(
                "tensor-parallel operation",
                "nothing prepared after a successful exchange",
                "this rank's part prepared before the exchange",
            )
        })?;
        Ok((all, prepared))
    }

    /// Runs `body` (the part after the agreement), abandoning the group
    /// where it fails so that the other ranks do not wait forever.
    pub(super) fn or_abandon(
        peers: &PeerGroup,
        rank: usize,
        body: impl FnOnce() -> Result<()>,
    ) -> Result<()> {
        let result = body();
        if result.is_err() {
            peers.abandon(rank);
        }
        result
    }

    /// The board's last exchange: `read[p]` is the event after which this
    /// rank no longer reads rank p's buffers (the caller keeps it alive
    /// through this call). `stream` waits for every other rank's event of
    /// this rank's buffers, and the ranks wait for each other, so that
    /// every event stays alive until all waits on it are queued.
    pub(super) fn release(
        &self,
        peers: &PeerGroup,
        read: &[Option<RawEvent>],
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        let r = self.rank();
        let all = peers.exchange(
            r,
            Posting {
                addresses: Vec::new(),
                events: read.to_vec(),
            },
        )?;
        for (p, theirs) in all.iter().enumerate() {
            if p != r {
                wait_for(stream, theirs.events.get(r).copied().flatten())?;
            }
        }
        peers.wait()
    }

    /// [`all_gather_gemm`](TpRank::all_gather_gemm) over peer copies.
    pub(super) fn all_gather_gemm_peers<T: TpElement>(
        &self,
        call: PeerCall<'_>,
        a_shard: &CudaView<'_, T>,
        b: &Operand<'_, T>,
        d: &mut OutputOperand<'_, T>,
    ) -> Result<()> {
        let PeerCall {
            peers,
            local,
            gemm,
            shape,
            alpha,
            options,
            stream,
        } = call;
        let (w, r) = (self.world_size(), self.rank());
        let GemmShape { m, n, k, .. } = shape;
        let split = RowSplit::new(m, w, 1);
        let rows_max = split.shard_rows();
        let gemm_rows = |rows: usize,
                         a: CudaView<'_, T>,
                         d: &mut OutputOperand<'_, T>,
                         first: usize|
         -> Result<()> {
            let mut args = Arguments::product(
                GemmShape::new(rows, n, k, 1),
                Operand::new(a, k, 0),
                Operand::new(b.data.slice(..), b.ld, 0),
                OutputOperand::new(d.data.slice_mut(first * d.ld..), d.ld, 0),
                alpha,
            );
            gemm.run(&mut args, stream)
        };
        // Before the exchange: A is complete on the caller's stream as of
        // `ready`; the other shards' buffer exists before this rank's own
        // GEMM starts (so that the copies into it run beside that GEMM);
        // the own rows' GEMM needs nothing from the other ranks and starts
        // at once. A failure here is posted as this rank's, so that no rank
        // waits for it.
        let mine = split.rows_of(r);
        let prepared = local.and_then(|()| {
            let mut trace = Timeline::start(stream)?;
            let ready = post_event(stream)?;
            let mut others = alloc::<T>(stream, w * rows_max * k)?;
            let others_address = {
                let (address, _write) = others.device_ptr_mut(stream);
                address
            };
            let allocated = post_event(stream)?;
            if mine > 0 {
                Timeline::span(
                    &mut trace,
                    stream,
                    || format!("GEMM of the own {mine} rows"),
                    || gemm_rows(mine, a_shard.slice(0..mine * k), d, split.first_row(r)),
                )?;
            }
            Ok((trace, ready, others, others_address, allocated))
        });
        let a_address = {
            let (address, _read) = a_shard.device_ptr(stream);
            address
        };
        let (all, (mut trace, ready, others, others_address, allocated)) = self.exchange_prepared(
            peers,
            shape_record(Op::AllGatherGemm, shape, options),
            prepared,
            |p| (vec![a_address], vec![Some(p.1 .1)]),
        )?;
        Self::or_abandon(peers, r, || {
            let mut copied: Vec<Option<(CudaEvent, RawEvent)>> = (0..w).map(|_| None).collect();
            for j in 1..w {
                let p = (r + j) % w;
                let rows = split.rows_of(p);
                if rows == 0 {
                    continue;
                }
                let copies = &self.copy_streams()[j - 1];
                wait_for(copies, Some(allocated.1))?;
                wait_for(copies, all[p].events[0])?;
                Timeline::span(
                    &mut trace,
                    copies,
                    || format!("copy of rank {p}'s {rows} rows"),
                    || {
                        // SAFETY: rank p's shard stays live and unchanged
                        // until its stream passes this rank's `copied[p]`
                        // (`release`); `others` is freed on `stream` after
                        // the GEMMs that wait for the copy.
                        unsafe {
                            peers.copy(
                                (r, at::<T>(others_address, p * rows_max * k)),
                                (p, all[p].addresses[RECORD]),
                                rows * k * std::mem::size_of::<T>(),
                                copies,
                            )
                        }
                    },
                )?;
                copied[p] = Some(post_event(copies)?);
            }
            for j in 1..w {
                let p = (r + j) % w;
                let rows = split.rows_of(p);
                let Some((event, _)) = &copied[p] else {
                    continue;
                };
                stream
                    .wait(event)
                    .map_err(|e| Error::driver("waiting for a shard's copy", e))?;
                let first = p * rows_max * k;
                Timeline::span(
                    &mut trace,
                    stream,
                    || format!("GEMM of rank {p}'s {rows} rows"),
                    || {
                        gemm_rows(
                            rows,
                            others.slice(first..first + rows * k),
                            d,
                            split.first_row(p),
                        )
                    },
                )?;
            }
            self.release(peers, &raw_events(&copied), stream)?;
            drop((others, allocated, ready));
            Timeline::print(trace, "all-gather + GEMM over peer copies", r)
        })
    }
}

/// What a reducing operation has done before its exchange: the GEMMs of
/// the rows the other ranks pull into `partials`, each piece announced by
/// an event of `computed` (kept alive by `alive`), and `incoming`, the
/// buffer the other ranks' partials arrive in, allocated before the GEMMs
/// (as of `allocated`) so that the copies into it run beside them.
pub(super) struct Prepared<T: TpElement> {
    pub(super) trace: Option<Timeline>,
    pub(super) partials: cudarc::driver::CudaSlice<T>,
    pub(super) partials_address: u64,
    pub(super) incoming: cudarc::driver::CudaSlice<T>,
    pub(super) incoming_address: u64,
    pub(super) allocated: (CudaEvent, RawEvent),
    pub(super) computed: Vec<Option<RawEvent>>,
    pub(super) alive: Vec<CudaEvent>,
}
