//! The three tensor-parallel operations on a [`TpRank`]: all-gather +
//! GEMM, GEMM + reduce-scatter, GEMM + all-reduce, sequential or
//! overlapped in chunks of rows.
//!
//! Streams: the GEMMs run on the caller's stream, the collectives on the
//! rank's own; events order each chunk's collective and GEMM, and at the
//! end the caller's stream waits for the last collective, so that what
//! follows on it sees D complete. Each chunk has buffers of its own (a
//! collective never writes a buffer a GEMM of another chunk reads).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, CudaView, CudaViewMut, DeviceRepr, ValidAsZeroBits};
use cudarc::nccl::{NcclType, ReduceOp};

use super::comm::Communicator;
use super::nccl::nccl_error;
use super::peers::PeerGroup;
use super::rank::TpRank;
use super::rows::RowSplit;
use super::trace::Timeline;
use crate::device::gemm::{Arguments, Gemm, GemmShape, Operand, OutputOperand};
use crate::numeric::Element;
use crate::{Error, Result};

/// The element types the operations take: f16, bf16 and f32 (NCCL sums
/// them in their own type).
pub trait TpElement: Element + DeviceRepr + NcclType + ValidAsZeroBits + Copy {}
impl TpElement for half::f16 {}
impl TpElement for half::bf16 {}
impl TpElement for f32 {}

/// How an operation runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TpOptions {
    /// Chunks of each shard's rows (1 to 64) where the overlapped form
    /// runs over NCCL: the collective of one chunk runs while the GEMM of
    /// another does. Over peer copies ([`TpConfig`](super::TpConfig)) a
    /// shard moves whole (all-gather + GEMM) or in two pieces (GEMM +
    /// reduce-scatter; one where this is 1). Ignored where `overlap` is off.
    pub chunks: usize,
    /// Overlap the data's movement with the GEMMs (`true`), or run the
    /// NCCL collective and the GEMM one after the other, whole (`false`:
    /// the baseline). At decode sizes GEMM + all-reduce gains from the
    /// overlapped form only over peer memory with `check_shapes` off (the
    /// ranks then meet on the GPUs); with the host's checks its GEMM of
    /// tens of microseconds cannot hide them, and the sequential form is
    /// faster.
    pub overlap: bool,
    /// Check, before anything moves, that every rank called the same
    /// operation on the same shape (over NCCL, a small all-gather of each
    /// rank's shape and a wait on it; over peer copies, the exchange every
    /// operation starts with, which also carries whether each rank's own
    /// arguments passed their checks): a mismatch is then an error on
    /// every rank instead of a hang.
    ///
    /// Off, a mismatched call over NCCL may hang the ranks. Over peer
    /// copies all-gather + GEMM and GEMM + reduce-scatter check anyway;
    /// GEMM + all-reduce then lets its ranks meet on the GPUs: each rank's
    /// sum kernel signals the others and waits for their signals (spinning
    /// on the SMs, trapping after 100 s), and the host exchanges only on
    /// the first call and when a rank's buffer must grow (comparing the
    /// calls then). So, as with NCCL, every rank must make the same calls
    /// in the same order, and groups that share a GPU must not queue
    /// theirs on it in different orders; a mismatched shape sums garbage
    /// (reading no further than the ranks' buffers) or hangs. A rank whose
    /// own arguments fail releases the others' kernels (their D is left
    /// unwritten) and abandons the group: their next operation returns the
    /// error.
    pub check_shapes: bool,
}

/// What every overlapped peer operation takes besides its operands: the
/// group, the outcome of this rank's own argument checks (posted to the
/// other ranks, so that every rank returns the same error), the GEMM and
/// its shape, alpha, the options and the stream.
pub(super) struct PeerCall<'a> {
    pub(super) peers: &'a PeerGroup,
    pub(super) local: Result<()>,
    pub(super) gemm: &'a Gemm,
    pub(super) shape: GemmShape,
    pub(super) alpha: f64,
    pub(super) options: &'a TpOptions,
    pub(super) stream: &'a Arc<CudaStream>,
}

impl Default for TpOptions {
    /// 4 chunks, overlapped, shapes checked.
    fn default() -> TpOptions {
        TpOptions {
            chunks: 4,
            overlap: true,
            check_shapes: true,
        }
    }
}

/// Which operation, for the shape check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Op {
    AllGatherGemm = 1,
    GemmReduceScatter = 2,
    GemmAllReduce = 3,
}

impl TpRank {
    /// The overlapped peer path's call, where `options` ask for overlap
    /// and this rank's group shares memory (a [`PeerGroup`]); otherwise
    /// `local` back, for the NCCL path.
    fn peer_call<'a>(
        &'a self,
        local: Result<()>,
        gemm: &'a Gemm,
        shape: GemmShape,
        alpha: f64,
        options: &'a TpOptions,
        stream: &'a Arc<CudaStream>,
    ) -> std::result::Result<PeerCall<'a>, Result<()>> {
        match (options.overlap, self.peers()) {
            (true, Some(peers)) => Ok(PeerCall {
                peers,
                local,
                gemm,
                shape,
                alpha,
                options,
                stream,
            }),
            _ => Err(local),
        }
    }

    /// All-gather + GEMM (a column-parallel layer): every rank holds the
    /// rows of its shard of A (`a_shard`: [`RowSplit`]'s shard of M, K-major,
    /// packed: leading dimension K) and its slice of the weights (`b`: the
    /// N columns of `shape` this rank owns, N x K); D gets all M rows of
    /// those N columns: `D = alpha · A_all · B`. `shape` is (M, N, K, 1):
    /// M the whole of it, N this rank's. Overlapped, this rank's own rows
    /// are multiplied first, then each other shard (over peer copies) or
    /// each chunk of the others' rows (over NCCL) as it arrives. Every
    /// output element is computed once by `gemm` (its fused epilogue
    /// applies; no C, no biases here), so the bits are those of one GPU's
    /// GEMM on the gathered A.
    ///
    /// Errors: [`Error::InvalidArgument`] for a shape, shard or option that
    /// does not fit (on every rank where the shapes differ between ranks,
    /// with `check_shapes`, and over peer copies on every rank where any
    /// rank's own arguments fail); the GEMM's own errors; [`Error::Nccl`]
    /// and [`Error::Driver`]. Over peer copies this rank's own rows of D
    /// are computed before the ranks' calls are compared, so on an error
    /// D may hold them; a rank that fails after the comparison abandons
    /// the group's peer path, and every later overlapped operation of the
    /// group returns an error naming that rank.
    #[allow(clippy::too_many_arguments)]
    pub fn all_gather_gemm<T: TpElement>(
        &self,
        gemm: &Gemm,
        shape: GemmShape,
        a_shard: &CudaView<'_, T>,
        b: &Operand<'_, T>,
        d: &mut OutputOperand<'_, T>,
        alpha: f64,
        options: &TpOptions,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        let (w, r) = (self.world_size(), self.rank());
        let GemmShape { m, n, k, .. } = shape;
        let split = RowSplit::new(m, w, options.chunks);
        let (rows_max, mine) = (split.shard_rows(), split.rows_of(r));
        let local = check_options(options, shape).and_then(|()| {
            check_len(
                "a_shard",
                a_shard.len(),
                mine * k,
                "this rank's rows x K, packed",
            )
        });
        let local = match self.peer_call(local, gemm, shape, alpha, options, stream) {
            Ok(call) => return self.all_gather_gemm_peers(call, a_shard, b, d),
            Err(local) => local,
        };
        local?;
        if options.check_shapes {
            self.agree(Op::AllGatherGemm, shape, options)?;
        }
        if m == 0 || n == 0 {
            return Ok(());
        }
        let comm_stream = self.comm().stream();
        follow(
            &comm_stream,
            stream,
            "the caller's work before the all-gather",
        )?;
        // What this rank sends: its shard, padded to a full one where M is
        // ragged (NCCL gathers equal counts).
        let padded = if mine < rows_max {
            let mut staging = alloc::<T>(&comm_stream, rows_max * k)?;
            if mine > 0 {
                comm_stream
                    .memcpy_dtod(
                        &a_shard.slice(0..mine * k),
                        &mut staging.slice_mut(0..mine * k),
                    )
                    .map_err(|e| Error::driver("padding the ragged shard of A", e))?;
            }
            Some(staging)
        } else {
            None
        };
        let send: CudaView<'_, T> = match &padded {
            Some(staging) => staging.slice(..),
            None => a_shard.slice(0..rows_max * k),
        };
        let b_view = || Operand::new(b.data.slice(..), b.ld, 0);
        if !options.overlap {
            let mut gathered = alloc::<T>(&comm_stream, w * rows_max * k)?;
            self.comm()
                .all_gather(&send, &mut gathered)
                .map_err(|e| nccl_error("all-gathering A", e))?;
            follow(stream, &comm_stream, "the all-gather of A")?;
            let mut args = Arguments::product(
                GemmShape::new(m, n, k, 1),
                Operand::new(gathered.slice(..), k, 0),
                b_view(),
                OutputOperand::new(d.data.slice_mut(..), d.ld, 0),
                alpha,
            );
            gemm.run(&mut args, stream)?;
            drop(args);
            return finish(stream, &comm_stream, vec![gathered], padded);
        }
        let mut trace = Timeline::start(stream)?;
        // This rank's own rows first: they need no collective.
        if mine > 0 {
            let first = split.first_row(r) * d.ld;
            let mut args = Arguments::product(
                GemmShape::new(mine, n, k, 1),
                Operand::new(a_shard.slice(..), k, 0),
                b_view(),
                OutputOperand::new(d.data.slice_mut(first..), d.ld, 0),
                alpha,
            );
            Timeline::span(
                &mut trace,
                stream,
                || format!("GEMM of the own {mine} rows"),
                || self.run_gemm(gemm, &mut args, stream, true),
            )?;
        }
        // Every chunk's gather is queued at once on the collectives' stream.
        let chunks = split.chunks();
        let mut gathered = Vec::with_capacity(chunks.len());
        let mut arrived = Vec::with_capacity(chunks.len());
        for &(first, rows) in &chunks {
            let mut buffer = alloc::<T>(&comm_stream, w * rows * k)?;
            Timeline::span(
                &mut trace,
                &comm_stream,
                || format!("all-gather of rows {first}..+{rows} of each shard"),
                || {
                    self.comm_for(true)
                        .all_gather(&send.slice(first * k..(first + rows) * k), &mut buffer)
                        .map_err(|e| {
                            nccl_error(format!("all-gathering rows {first}.. of A's shards"), e)
                        })
                },
            )?;
            arrived.push(record(&comm_stream, "a chunk's all-gather")?);
            gathered.push(buffer);
        }
        let last = chunks.len() - 1;
        for (index, ((&chunk, buffer), event)) in
            chunks.iter().zip(&gathered).zip(&arrived).enumerate()
        {
            // The last chunk's GEMMs run after every gather: all SMs.
            let beside_a_collective = index < last;
            stream
                .wait(event)
                .map_err(|e| Error::driver("waiting for a chunk's all-gather", e))?;
            let (first, rows) = chunk;
            // The other ranks' rows of this chunk, as batches of equal rows
            // (L = ranks, A batch stride one rank's chunk, D's one shard).
            for (s0, count, valid) in runs(&split, chunk, |s| s != r) {
                let mut args = Arguments::product(
                    GemmShape::new(valid, n, k, count),
                    Operand::new(buffer.slice(s0 * rows * k..), k, rows * k),
                    b_view(),
                    OutputOperand::new(
                        d.data.slice_mut((split.first_row(s0) + first) * d.ld..),
                        d.ld,
                        rows_max * d.ld,
                    ),
                    alpha,
                );
                Timeline::span(
                    &mut trace,
                    stream,
                    || format!("GEMM of rows {first}..+{valid} of {count} shards"),
                    || self.run_gemm(gemm, &mut args, stream, beside_a_collective),
                )?;
            }
        }
        finish(stream, &comm_stream, gathered, padded)?;
        Timeline::print(trace, "all-gather + GEMM, overlapped", r)
    }

    /// GEMM + reduce-scatter (a row-parallel layer): every rank holds all
    /// M rows of A over its slice of K (`a`: M x K_r, K-major) and the
    /// matching rows of the weights (`b`: N x K_r); D (`d_shard`: the rows
    /// of this rank's [`RowSplit`] shard, all N columns, row-major and
    /// packed: leading dimension N) gets the sum over the ranks of
    /// `alpha · A_r · B_r`. `shape` is (M, N, K_r, 1). Overlapped, the
    /// partial products of one chunk of every shard's rows are summed and
    /// scattered while the next chunk's are computed. NCCL adds the
    /// partial products (rounded to the element type) in its own order,
    /// so the result agrees with one GPU's GEMM within the rounding of W
    /// sums of partials in that type. The GEMM's epilogue must be the
    /// plain linear combination (a fused one would run before the sum).
    ///
    /// Errors: as [`all_gather_gemm`](Self::all_gather_gemm).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_reduce_scatter<T: TpElement>(
        &self,
        gemm: &Gemm,
        shape: GemmShape,
        a: &Operand<'_, T>,
        b: &Operand<'_, T>,
        d_shard: &mut CudaViewMut<'_, T>,
        alpha: f64,
        options: &TpOptions,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        let (w, r) = (self.world_size(), self.rank());
        let GemmShape { m, n, k, .. } = shape;
        let split = RowSplit::new(m, w, options.chunks);
        let (rows_max, mine) = (split.shard_rows(), split.rows_of(r));
        let local = check_options(options, shape)
            .and_then(|()| check_linear(gemm))
            .and_then(|()| {
                check_len(
                    "d_shard",
                    d_shard.len(),
                    mine * n,
                    "this rank's rows x N, packed",
                )
            });
        let local = match self.peer_call(local, gemm, shape, alpha, options, stream) {
            Ok(call) => return self.gemm_reduce_scatter_peers(call, a, b, d_shard),
            Err(local) => local,
        };
        local?;
        if options.check_shapes {
            self.agree(Op::GemmReduceScatter, shape, options)?;
        }
        if m == 0 || n == 0 {
            return Ok(());
        }
        let comm_stream = self.comm().stream();
        let b_view = || Operand::new(b.data.slice(..), b.ld, 0);
        let chunks = if options.overlap {
            split.chunks()
        } else {
            vec![(0, rows_max)]
        };
        let comm = self.comm_for(options.overlap);
        let mut trace = Timeline::start(stream)?;
        let mut partials = Vec::with_capacity(chunks.len());
        for (index, &(first, rows)) in chunks.iter().enumerate() {
            // The first chunk's GEMMs run before any collective: all SMs.
            let beside_a_collective = options.overlap && index > 0;
            // Every shard's rows of this chunk, [rank][row][N].
            let mut partial = alloc::<T>(stream, w * rows * n)?;
            for (s0, count, valid) in runs(&split, (first, rows), |_| true) {
                // Whole shards of whole rows lie one after the other in A
                // and in `partial`: one GEMM of count x rows rows.
                let (valid, count) = if rows == rows_max && valid == rows {
                    (count * valid, 1)
                } else {
                    (valid, count)
                };
                let mut args = Arguments::product(
                    GemmShape::new(valid, n, k, count),
                    Operand::new(
                        a.data.slice((split.first_row(s0) + first) * a.ld..),
                        a.ld,
                        rows_max * a.ld,
                    ),
                    b_view(),
                    OutputOperand::new(partial.slice_mut(s0 * rows * n..), n, rows * n),
                    alpha,
                );
                Timeline::span(
                    &mut trace,
                    stream,
                    || format!("GEMM of rows {first}..+{valid} of {count} shards"),
                    || self.run_gemm(gemm, &mut args, stream, beside_a_collective),
                )?;
            }
            follow(&comm_stream, stream, "a chunk's partial products")?;
            let valid = split.valid_rows(r, (first, rows));
            let range = first * n..(first + valid) * n;
            if valid == rows {
                Timeline::span(
                    &mut trace,
                    &comm_stream,
                    || format!("reduce-scatter of rows {first}..+{rows} of each shard"),
                    || {
                        comm.reduce_scatter(&partial, &mut d_shard.slice_mut(range), &ReduceOp::Sum)
                            .map_err(|e| {
                                nccl_error(
                                    format!("reduce-scattering rows {first}.. of the shards"),
                                    e,
                                )
                            })
                    },
                )?;
            } else {
                // This rank's shard ends inside the chunk (M ragged): sum
                // into a buffer of the full chunk, keep the valid rows.
                let mut staging = alloc::<T>(&comm_stream, rows * n)?;
                comm.reduce_scatter(&partial, &mut staging, &ReduceOp::Sum)
                    .map_err(|e| {
                        nccl_error(format!("reduce-scattering rows {first}.. of the shards"), e)
                    })?;
                if valid > 0 {
                    comm_stream
                        .memcpy_dtod(&staging.slice(0..valid * n), &mut d_shard.slice_mut(range))
                        .map_err(|e| Error::driver("copying the ragged shard's rows", e))?;
                }
                partials.push(staging);
            }
            partials.push(partial);
        }
        finish_after_collectives(stream, &comm_stream, partials)?;
        Timeline::print(trace, "GEMM + reduce-scatter", r)
    }

    /// GEMM + all-reduce (a row-parallel layer at decode sizes): as
    /// [`gemm_reduce_scatter`](Self::gemm_reduce_scatter), but every rank
    /// gets all of D (`d`: M x N, row-major, packed: leading dimension N).
    /// Overlapped over NCCL, the rows of D are summed in chunks while the
    /// next chunk's partial products are computed; over peer copies
    /// ([`TpConfig`](super::TpConfig)), one GEMM of all rows is followed
    /// by a one-shot all-reduce: one kernel per rank reads every rank's
    /// partials in place and sums them in rank order (f32, rounded once:
    /// every rank gets the same bits). With `check_shapes` the ranks meet
    /// on the host (cross-GPU events, two exchanges a call), which at
    /// decode sizes costs more than NCCL's all-reduce; without it they
    /// meet on the GPUs (see [`TpOptions::check_shapes`] for the contract
    /// that comes with it), and at M = 16 the call ran in 0.83-0.90x the
    /// time of the sequential form on 4 H200s and 0.89-0.91x on 2
    /// (docs/scale-out.md has the figures).
    ///
    /// Errors: as [`all_gather_gemm`](Self::all_gather_gemm).
    #[allow(clippy::too_many_arguments)]
    pub fn gemm_all_reduce<T: TpElement>(
        &self,
        gemm: &Gemm,
        shape: GemmShape,
        a: &Operand<'_, T>,
        b: &Operand<'_, T>,
        d: &mut CudaViewMut<'_, T>,
        alpha: f64,
        options: &TpOptions,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        let GemmShape { m, n, k, .. } = shape;
        let local = check_options(options, shape)
            .and_then(|()| check_linear(gemm))
            .and_then(|()| check_len("d", d.len(), m * n, "M x N, packed"));
        let local = match self.peer_call(local, gemm, shape, alpha, options, stream) {
            Ok(call) if options.check_shapes => return self.gemm_all_reduce_peers(call, a, b, d),
            Ok(call) => return self.gemm_all_reduce_signalled(call, a, b, d),
            Err(local) => local,
        };
        local?;
        if options.check_shapes {
            self.agree(Op::GemmAllReduce, shape, options)?;
        }
        if m == 0 || n == 0 {
            return Ok(());
        }
        let comm_stream = self.comm().stream();
        let chunks = if options.overlap {
            RowSplit::new(m, 1, options.chunks).chunks()
        } else {
            vec![(0, m)]
        };
        let comm = self.comm_for(options.overlap);
        let mut partials = Vec::with_capacity(chunks.len());
        for (index, (first, rows)) in chunks.into_iter().enumerate() {
            let beside_a_collective = options.overlap && index > 0;
            let mut partial = alloc::<T>(stream, rows * n)?;
            let mut args = Arguments::product(
                GemmShape::new(rows, n, k, 1),
                Operand::new(a.data.slice(first * a.ld..), a.ld, 0),
                Operand::new(b.data.slice(..), b.ld, 0),
                OutputOperand::new(partial.slice_mut(..), n, 0),
                alpha,
            );
            self.run_gemm(gemm, &mut args, stream, beside_a_collective)?;
            follow(&comm_stream, stream, "a chunk's partial products")?;
            comm.all_reduce(
                &partial,
                &mut d.slice_mut(first * n..(first + rows) * n),
                &ReduceOp::Sum,
            )
            .map_err(|e| nccl_error(format!("all-reducing rows {first}.. of D"), e))?;
            partials.push(partial);
        }
        finish_after_collectives(stream, &comm_stream, partials)
    }

    /// NCCL's all-gather of every rank's `send` into `recv` (rank order),
    /// ordered on `stream` as a kernel on it would be: after what `stream`
    /// holds, and before what follows on it. The collective alone, for
    /// timing and for the sequential forms of user code.
    ///
    /// Errors: [`Error::InvalidArgument`] where `recv` does not hold world
    /// size x `send` elements; [`Error::Nccl`] and [`Error::Driver`].
    pub fn all_gather<T: TpElement>(
        &self,
        send: &CudaView<'_, T>,
        recv: &mut CudaViewMut<'_, T>,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        check_len(
            "recv",
            recv.len(),
            send.len() * self.world_size(),
            "world size x send",
        )?;
        self.on_stream(stream, |comm| {
            comm.all_gather(send, &mut recv.slice_mut(0..send.len() * self.world_size()))
                .map_err(|e| nccl_error("all-gathering", e))
        })
    }

    /// NCCL's reduce-scatter (sum): rank r gets the sum over the ranks of
    /// `send`'s r-th `recv.len()` elements; ordered on `stream`.
    ///
    /// Errors: [`Error::InvalidArgument`] where `send` does not hold world
    /// size x `recv` elements; [`Error::Nccl`] and [`Error::Driver`].
    pub fn reduce_scatter<T: TpElement>(
        &self,
        send: &CudaView<'_, T>,
        recv: &mut CudaViewMut<'_, T>,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        check_len(
            "send",
            send.len(),
            recv.len() * self.world_size(),
            "world size x recv",
        )?;
        self.on_stream(stream, |comm| {
            comm.reduce_scatter(
                &send.slice(0..recv.len() * self.world_size()),
                recv,
                &ReduceOp::Sum,
            )
            .map_err(|e| nccl_error("reduce-scattering", e))
        })
    }

    /// NCCL's all-reduce (sum) of `send` into `recv` (of equal length);
    /// ordered on `stream`.
    ///
    /// Errors: [`Error::InvalidArgument`] for lengths that differ;
    /// [`Error::Nccl`] and [`Error::Driver`].
    pub fn all_reduce<T: TpElement>(
        &self,
        send: &CudaView<'_, T>,
        recv: &mut CudaViewMut<'_, T>,
        stream: &Arc<CudaStream>,
    ) -> Result<()> {
        if send.len() != recv.len() {
            return Err(Error::invalid_argument(
                "recv.len()",
                recv.len(),
                format!("{} elements, send's", send.len()),
            ));
        }
        self.on_stream(stream, |comm| {
            comm.all_reduce(send, recv, &ReduceOp::Sum)
                .map_err(|e| nccl_error("all-reducing", e))
        })
    }

    /// Runs one GEMM of an operation on `stream`: where it overlaps the
    /// collectives, on the SMs they leave free.
    fn run_gemm<T: TpElement>(
        &self,
        gemm: &Gemm,
        args: &mut Arguments<'_, T, T, T, T>,
        stream: &Arc<CudaStream>,
        overlapped: bool,
    ) -> Result<()> {
        if overlapped {
            gemm.run_with_sm_count(args, stream, self.gemm_sms())
        } else {
            gemm.run(args, stream)
        }
    }

    /// Runs `collective` on the collectives' stream between two events, so
    /// that it follows `stream`'s work and `stream`'s next work follows it.
    fn on_stream(
        &self,
        stream: &Arc<CudaStream>,
        collective: impl FnOnce(&Communicator) -> Result<()>,
    ) -> Result<()> {
        let comm_stream = self.comm().stream();
        follow(
            &comm_stream,
            stream,
            "the caller's work before a collective",
        )?;
        collective(self.comm())?;
        follow(stream, &comm_stream, "a collective")
    }

    /// Every rank's (operation, shape, options), gathered and compared: an
    /// error on every rank where any differs.
    fn agree(&self, op: Op, shape: GemmShape, options: &TpOptions) -> Result<()> {
        let stream = self.comm().stream();
        let mine = shape_record(op, shape, options);
        let send = stream
            .clone_htod(&mine)
            .map_err(|e| Error::driver("copying this rank's shape for the check", e))?;
        let mut all = stream
            .alloc_zeros::<u64>(mine.len() * self.world_size())
            .map_err(|e| Error::driver("allocating the shape check", e))?;
        self.comm()
            .all_gather(&send, &mut all)
            .map_err(|e| nccl_error("gathering every rank's shape", e))?;
        let all = stream
            .clone_dtoh(&all)
            .map_err(|e| Error::driver("reading every rank's shape", e))?;
        compare_records(all.chunks(mine.len()), &mine, self.rank())
    }
}

/// What every rank of an operation must share: the operation, M, chunks
/// and overlap, and K for the all-gather (each rank's B has its own N), N
/// for the reducing operations (each rank's K slice may differ).
pub(super) fn shape_record(op: Op, shape: GemmShape, options: &TpOptions) -> [u64; 6] {
    let (n, k) = match op {
        Op::AllGatherGemm => (0, shape.k),
        Op::GemmReduceScatter | Op::GemmAllReduce => (shape.n, 0),
    };
    [
        op as u64,
        shape.m as u64,
        n as u64,
        k as u64,
        options.chunks as u64,
        u64::from(options.overlap),
    ]
}

/// An error naming the first rank whose record differs from `mine`.
pub(super) fn compare_records<'a>(
    all: impl Iterator<Item = &'a [u64]>,
    mine: &[u64],
    my_rank: usize,
) -> Result<()> {
    for (rank, theirs) in all.enumerate() {
        if theirs != mine {
            return Err(Error::invalid_argument(
                format!("the call on rank {rank}"),
                describe(theirs),
                format!(
                    "the call rank {my_rank} made, {}: every rank runs the same operation with the same M, chunks and overlap, and the same K (all-gather + GEMM) or N (the reducing operations)",
                    describe(mine)
                ),
            ));
        }
    }
    Ok(())
}

/// A shape-check record as text.
fn describe(record: &[u64]) -> String {
    let op = match record.first() {
        Some(1) => "all_gather_gemm",
        Some(2) => "gemm_reduce_scatter",
        Some(3) => "gemm_all_reduce",
        _ => "an unknown operation",
    };
    match record {
        [_, m, n, k, chunks, overlap] => {
            let size = if *k != 0 {
                format!("K = {k}")
            } else {
                format!("N = {n}")
            };
            format!(
                "{op} with M = {m}, {size}, {chunks} chunks, overlap {}",
                *overlap != 0
            )
        }
        _ => op.to_string(),
    }
}

/// Runs of consecutive ranks (those `take` keeps) whose rows of `chunk`
/// are equal and not 0: `(first rank, ranks, rows)`, one batched GEMM
/// each (only the ragged last shards break a run).
fn runs(
    split: &RowSplit,
    chunk: (usize, usize),
    take: impl Fn(usize) -> bool,
) -> Vec<(usize, usize, usize)> {
    let mut out: Vec<(usize, usize, usize)> = Vec::new();
    for s in 0..split.ranks() {
        let valid = split.valid_rows(s, chunk);
        if !take(s) || valid == 0 {
            continue;
        }
        match out.last_mut() {
            Some((s0, count, rows)) if *s0 + *count == s && *rows == valid => *count += 1,
            _ => out.push((s, 1, valid)),
        }
    }
    out
}

/// The options' and shape's own limits: 1 to 64 chunks, one batch.
pub(super) fn check_options(options: &TpOptions, shape: GemmShape) -> Result<()> {
    if !(1..=64).contains(&options.chunks) {
        return Err(Error::invalid_argument(
            "chunks",
            options.chunks,
            "1 to 64 chunks of each shard's rows",
        ));
    }
    if shape.l != 1 {
        return Err(Error::invalid_argument(
            "shape.l",
            shape.l,
            "1 (the tensor-parallel operations take one batch)",
        ));
    }
    Ok(())
}

/// A buffer of `len` elements where `needed` are: an error naming it.
pub(super) fn check_len(name: &str, len: usize, needed: usize, what: &str) -> Result<()> {
    if len < needed {
        return Err(Error::invalid_argument(
            format!("{name}.len()"),
            len,
            format!("at least {needed} elements ({what})"),
        ));
    }
    Ok(())
}

/// A reducing operation sums the GEMMs' outputs: only the plain linear
/// combination commutes with the sum.
pub(super) fn check_linear(gemm: &Gemm) -> Result<()> {
    let fusion = &gemm.spec().epilogue.fusion;
    if fusion.is_linear_combination() {
        return Ok(());
    }
    Err(Error::invalid_argument(
        "gemm epilogue",
        format!("`{fusion}`"),
        "the linear combination (a fused epilogue would apply to each rank's partial product before the sum): apply it to the reduced D",
    ))
}

/// `len` elements on `stream`, not initialized.
pub(super) fn alloc<T: TpElement>(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<T>> {
    // SAFETY: every element a caller reads is written first (a collective
    // fills the gather and reduce buffers, the GEMMs the partial products;
    // rows past a ragged shard are read only by a collective whose result
    // for them is dropped).
    unsafe { stream.alloc::<T>(len.max(1)) }
        .map_err(|e| Error::driver(format!("allocating {len} elements for a collective"), e))
}

/// An event recorded on `stream` now.
fn record(stream: &Arc<CudaStream>, what: &str) -> Result<cudarc::driver::CudaEvent> {
    stream
        .record_event(None)
        .map_err(|e| Error::driver(format!("recording {what}"), e))
}

/// `waiter`'s next work waits for `waited`'s work so far (an event
/// recorded on `waited` now); `what` names that work in errors.
fn follow(waiter: &CudaStream, waited: &Arc<CudaStream>, what: &str) -> Result<()> {
    waiter
        .wait(&record(waited, what)?)
        .map_err(|e| Error::driver(format!("waiting for {what}"), e))
}

/// All-gather + GEMM's end: the gather buffers (made on the collectives'
/// stream, read by the GEMMs) are freed on that stream after the GEMMs.
fn finish<T: TpElement>(
    stream: &Arc<CudaStream>,
    comm_stream: &Arc<CudaStream>,
    gathered: Vec<CudaSlice<T>>,
    padded: Option<CudaSlice<T>>,
) -> Result<()> {
    follow(comm_stream, stream, "the GEMMs on the gathered rows")?;
    drop((gathered, padded));
    Ok(())
}

/// The reducing operations' end: the caller's stream waits for the last
/// collective (D is complete for what follows on it), then the partial
/// products (made on it, read by the collectives) are freed.
fn finish_after_collectives<T: TpElement>(
    stream: &Arc<CudaStream>,
    comm_stream: &Arc<CudaStream>,
    buffers: Vec<CudaSlice<T>>,
) -> Result<()> {
    follow(stream, comm_stream, "the last collective")?;
    drop(buffers);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 10 rows on 4 ranks (shards 3, 3, 3, 1) in chunks of 2 and 1: the
    /// full shards batch together, the short last one runs alone or not
    /// at all, and a rank left out splits the run.
    #[test]
    fn runs_batch_the_ranks_of_equal_rows() {
        let split = RowSplit::new(10, 4, 2);
        assert_eq!(runs(&split, (0, 2), |_| true), vec![(0, 3, 2), (3, 1, 1)]);
        assert_eq!(runs(&split, (2, 1), |_| true), vec![(0, 3, 1)]);
        assert_eq!(
            runs(&split, (0, 2), |s| s != 1),
            vec![(0, 1, 2), (2, 1, 2), (3, 1, 1)]
        );
        // M = 3 on 4 ranks: shards of 1, the last rank holds none.
        let split = RowSplit::new(3, 4, 8);
        assert_eq!(split.chunks(), vec![(0, 1)]);
        assert_eq!(runs(&split, (0, 1), |_| true), vec![(0, 3, 1)]);
    }

    #[test]
    fn options_and_lengths_are_checked_with_their_values() {
        let shape = GemmShape::new(8, 8, 8, 1);
        let bad = TpOptions {
            chunks: 0,
            ..TpOptions::default()
        };
        let err = check_options(&bad, shape).unwrap_err().to_string();
        assert!(err.contains("chunks") && err.contains("1 to 64"), "{err}");
        let err = check_options(&TpOptions::default(), GemmShape::new(8, 8, 8, 2))
            .unwrap_err()
            .to_string();
        assert!(err.contains("shape.l"), "{err}");
        let err = check_len("d", 10, 12, "M x N").unwrap_err().to_string();
        assert!(err.contains("d.len()") && err.contains("12"), "{err}");
    }
}
