//! [`PipelineTmaStore`]: a ring of shared-memory stages that threads write
//! and the copy engine reads back out to global memory with bulk stores,
//! sm_90 (CUTLASS's `PipelineTmaStore<Stages, UnacquiredStages>`,
//! `sm90_pipeline.hpp`).
//!
//! The ring has a producer side only: its consumer is the copy engine,
//! which no thread emits code for, so it has no `consumer_wait` or
//! `consumer_release` and does not implement [`Pipeline`](super::Pipeline).
//! Nor does it have a barrier: a bulk store belongs to the *bulk
//! async-groups* of the thread that issues it, counted per thread in commit
//! order (like `cp.async` groups), so no step names a stage and the ring
//! keeps no state in registers. The caller addresses the stages, in a ring
//! of its own or in the stages a load pipeline walks.
//!
//! Two roles: the *writers* (every thread that writes a stage with
//! `st.shared`) and the *issuer* (the one thread that issues the stores;
//! its groups are the ones counted, so it alone acquires, commits and
//! waits at the end). Per stage, in this order:
//!
//! | step | who | emits | guarantees, once it returns |
//! |---|---|---|---|
//! | [`producer_acquire`](PipelineTmaStore::producer_acquire) | the issuer (branches around itself on [`issuer`](PipelineTmaStore::issuer)) | `cp.async.bulk.wait_group.read` [`unacquired`](PipelineTmaStore::unacquired) | the store that read the stage last has read it; a barrier after it tells the writers |
//! | writes | every writer | `st.shared` into the stage | |
//! | [`producer_fence`](PipelineTmaStore::producer_fence) | every writer, after its last write | `fence.proxy.async.shared::cta` | the writes are ordered before the copy engine's (async-proxy) reads |
//! | barrier | every writer and the issuer | the caller's (`bar.sync`) | every write is fenced |
//! | [`issue_store`](PipelineTmaStore::issue_store) or [`issue_tma_store`](PipelineTmaStore::issue_tma_store) | the issuer, in the caller's branch | `cp.async.bulk.global.shared::cta.bulk_group` (a byte range) or `cp.async.bulk.tensor` (a box through a tensor map) | the store joins the issuer's open group |
//! | [`producer_commit`](PipelineTmaStore::producer_commit) | the issuer, in the caller's branch | `cp.async.bulk.commit_group` | the stage's stores form one group, the newest |
//! | [`producer_tail`](PipelineTmaStore::producer_tail) | the issuer, at the end (branches around itself) | `cp.async.bulk.wait_group 0` | every store has written global memory |
//!
//! Where a walk reuses the whole ring for something else (another tile's
//! loads into the same buffers), [`producer_drain`](PipelineTmaStore::producer_drain)
//! (or [`reads_done`](PipelineTmaStore::reads_done) in the caller's
//! issuer branch) waits until no committed store still reads any stage.
//!
//! Where the acquire sits sets how many groups may stay in flight
//! ([`StoreAcquire`]): CUTLASS acquires a stage just before the barrier
//! that precedes its writes (`Stages - 1`); a kernel with one barrier per
//! stage acquires the next stage before the barrier that precedes this
//! stage's store, one commit earlier (`Stages - 2`).

use crate::atom::{emit_tma_store, Coord};
use crate::ptx::{Kernel, Reg};
use crate::{Error, Result};

/// Bulk copies move multiples of 16 bytes.
const BULK_GRANULE: u32 = 16;

/// Where [`PipelineTmaStore::producer_acquire`] of a stage sits in the
/// issuer's walk: it sets how many committed store groups may still read
/// shared memory when the acquire returns
/// ([`PipelineTmaStore::unacquired`], CUTLASS's `UnacquiredStages`).
///
/// Stage `s` of a ring of `S` is written by chunks `j` and `j + S`: before
/// chunk `j + S` writes it, the store of chunk `j` must have read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StoreAcquire {
    /// CUTLASS's placement: the issuer acquires the stage of chunk `j`
    /// after committing chunk `j - 1`'s store and before the barrier that
    /// precedes chunk `j`'s writes. Of the `j` groups committed, the newest
    /// `S - 1` may still read (`j - 1` down to `j - S + 1`): chunk `j - S`'s
    /// has read the stage.
    BeforeWrites,
    /// The acquire of chunk `j + 1`'s stage folded into the barrier that
    /// precedes chunk `j`'s store (one barrier per stage instead of two):
    /// the issuer acquires before committing chunk `j`, so of the `j`
    /// groups committed the newest `S - 2` may still read (`j - 1` down to
    /// `j - S + 2`): chunk `j + 1 - S`'s has read the stage. Needs 2 stages.
    BeforePreviousStore,
    /// Each stage is written once (the walk is no longer than the ring):
    /// nothing to wait for, the acquire emits nothing.
    WriteOnce,
}

/// The bulk-store ring of one kernel: `stages` stages, the acquire's
/// placement, and the issuing thread.
///
/// ```
/// use cutlet::pipeline::{PipelineTmaStore, StoreAcquire};
/// use cutlet::ptx::{Kernel, RegClass};
///
/// let mut k = Kernel::new("store_ring").unwrap();
/// let issuer = k.reg(RegClass::Pred);
/// let ring = PipelineTmaStore::new(4, StoreAcquire::BeforeWrites, issuer, "out").unwrap();
/// assert_eq!(ring.unacquired(), 3);
/// let folded = PipelineTmaStore::new(4, StoreAcquire::BeforePreviousStore, issuer, "out").unwrap();
/// assert_eq!(folded.unacquired(), 2);
/// assert!(PipelineTmaStore::new(1, StoreAcquire::BeforePreviousStore, issuer, "out").is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PipelineTmaStore {
    stages: u32,
    acquire: StoreAcquire,
    issuer: Reg,
    name: &'static str,
}

impl PipelineTmaStore {
    /// The ring of `stages` stages whose acquires sit as `acquire` says;
    /// `issuer` (`.pred`) holds in the thread that issues the stores.
    /// `name` prefixes the ring's labels (`<name>_read_wait_done`,
    /// `<name>_stores_done`). Emits nothing: the ring has no registers.
    ///
    /// Errors: [`Error::InvalidArgument`] for no stage, or fewer than 2
    /// with [`StoreAcquire::BeforePreviousStore`].
    pub fn new(
        stages: u32,
        acquire: StoreAcquire,
        issuer: Reg,
        name: &'static str,
    ) -> Result<Self> {
        let min_stages = match acquire {
            StoreAcquire::BeforePreviousStore => 2,
            StoreAcquire::BeforeWrites | StoreAcquire::WriteOnce => 1,
        };
        if stages < min_stages {
            return Err(Error::invalid_argument(
                "tma store pipeline stages",
                format!("{stages} (acquire {acquire:?})"),
                format!("at least {min_stages}"),
            ));
        }
        Ok(PipelineTmaStore {
            stages,
            acquire,
            issuer,
            name,
        })
    }

    /// Stages of the ring.
    pub fn stages(&self) -> u32 {
        self.stages
    }

    /// Where the acquires sit.
    pub fn acquire(&self) -> StoreAcquire {
        self.acquire
    }

    /// The `.pred` that holds in the issuing thread.
    pub fn issuer(&self) -> Reg {
        self.issuer
    }

    /// Committed store groups that may still read shared memory when
    /// [`producer_acquire`](Self::producer_acquire) returns (CUTLASS's
    /// `UnacquiredStages`): `stages - 1` acquiring before the writes,
    /// `stages - 2` before the previous stage's store, and no wait at all
    /// for a ring written once (reported as `stages - 1`: every group may
    /// stay in flight).
    pub fn unacquired(&self) -> u32 {
        match self.acquire {
            StoreAcquire::BeforeWrites | StoreAcquire::WriteOnce => self.stages - 1,
            StoreAcquire::BeforePreviousStore => self.stages - 2,
        }
    }

    /// The issuer's acquire (CUTLASS's `producer_acquire`, here without its
    /// skip of the first `UnacquiredStages` acquires: a wait with fewer
    /// groups in flight returns at once): `@!issuer` branches past
    /// `cp.async.bulk.wait_group.read unacquired`. Once it returns the
    /// stage the caller writes next is no longer read by a store; the
    /// writers learn it at the next barrier. Emits nothing (and makes no
    /// label) with [`StoreAcquire::WriteOnce`].
    pub fn producer_acquire(&self, k: &mut Kernel) -> Result<()> {
        if self.acquire == StoreAcquire::WriteOnce {
            return Ok(());
        }
        let skip = k.new_label(&format!("{}_read_wait_done", self.name))?;
        k.push(format!("@!{} bra {};", self.issuer, skip.name()));
        k.snippet(
            "sm90/bulk_copy",
            "bulk_wait_group_read",
            &[("pending", &self.unacquired())],
        )?;
        k.place_label(&skip);
        Ok(())
    }

    /// By every writer, after its last `st.shared` into the stage and
    /// before the barrier that precedes the store (CUTLASS's
    /// `tma_store_fence`): `fence.proxy.async.shared::cta`, so that the
    /// copy engine, reading through the async proxy, sees the generic
    /// proxy's writes.
    pub fn producer_fence(&self, k: &mut Kernel) -> Result<()> {
        k.snippet("sm90/bulk_copy", "fence_proxy_async_shared", &[])?;
        Ok(())
    }

    /// By the issuer, in a branch of the caller's that runs on it alone
    /// (where it shares that branch with other issuer-only work, a load
    /// ring's refills): one bulk store of `bytes` bytes from shared
    /// `src + offset` (`.b32` shared-window address) to global `dst`
    /// (`.b64`), joining the issuer's open group. Both addresses must be
    /// 16-byte aligned.
    ///
    /// Errors: [`Error::InvalidArgument`] for a size that is not a
    /// non-zero multiple of 16 bytes.
    pub fn issue_store(
        &self,
        k: &mut Kernel,
        dst: Reg,
        (src, offset): (Reg, u32),
        bytes: u32,
    ) -> Result<()> {
        if bytes == 0 || !bytes.is_multiple_of(BULK_GRANULE) {
            return Err(Error::invalid_argument(
                "bulk store bytes",
                bytes,
                "a non-zero multiple of 16",
            ));
        }
        let src = format!("{src}+{offset}");
        k.snippet(
            "sm90/bulk_copy",
            "bulk_store_s2g",
            &[("dst", &dst), ("src", &src), ("bytes", &bytes)],
        )?;
        Ok(())
    }

    /// By the issuer, in a branch of the caller's that runs on it alone:
    /// one TMA store of a box from shared `src` (`.b32` shared-window
    /// address, 128-byte aligned) through the tensor map at generic address
    /// `map` (`.b64`) at `coords` (innermost first), joining the issuer's
    /// open group.
    ///
    /// Errors: those of [`emit_tma_store`] (a register of the wrong class,
    /// a rank outside 1 to 5).
    pub fn issue_tma_store(
        &self,
        k: &mut Kernel,
        map: Reg,
        coords: &[Coord],
        src: Reg,
    ) -> Result<()> {
        emit_tma_store(k, map, coords, src)
    }

    /// By the issuer, in a branch of the caller's that runs on it alone:
    /// `cp.async.bulk.wait_group.read 0`. Once it returns no committed
    /// store reads any stage.
    pub fn reads_done(&self, k: &mut Kernel) -> Result<()> {
        k.snippet("sm90/bulk_copy", "bulk_wait_group_read", &[("pending", &0)])?;
        Ok(())
    }

    /// The issuer's wait until no committed store reads any stage:
    /// `@!issuer` branches past [`reads_done`](Self::reads_done). The
    /// writers learn it at the next barrier.
    pub fn producer_drain(&self, k: &mut Kernel) -> Result<()> {
        let skip = k.new_label(&format!("{}_drained", self.name))?;
        k.push(format!("@!{} bra {};", self.issuer, skip.name()));
        self.reads_done(k)?;
        k.place_label(&skip);
        Ok(())
    }

    /// By the issuer, after the stage's stores, in the same branch
    /// (CUTLASS's `producer_commit`, `tma_store_arrive`):
    /// `cp.async.bulk.commit_group`. The stores since the last commit form
    /// one group, the newest the acquires count.
    pub fn producer_commit(&self, k: &mut Kernel) -> Result<()> {
        k.snippet("sm90/bulk_copy", "bulk_commit_group", &[])?;
        Ok(())
    }

    /// The issuer's end (CUTLASS's `producer_tail`): `@!issuer` branches
    /// past `cp.async.bulk.wait_group 0`. Every store has then written
    /// global memory, not only read shared memory (CUTLASS's tail waits
    /// with `.read`): the ring's shared memory may be reused and the block
    /// may exit.
    pub fn producer_tail(&self, k: &mut Kernel) -> Result<()> {
        let skip = k.new_label(&format!("{}_stores_done", self.name))?;
        k.push(format!("@!{} bra {};", self.issuer, skip.name()));
        k.snippet("sm90/bulk_copy", "bulk_wait_group", &[("pending", &0)])?;
        k.place_label(&skip);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::{PipelineTmaStore, StoreAcquire};
    use crate::ptx::{Kernel, RegClass};

    /// Bulk groups of one issuer on the host: `committed` groups, of
    /// which the oldest `read` have read shared memory.
    #[derive(Default)]
    struct Groups {
        committed: u32,
        read: u32,
    }

    impl Groups {
        /// `cp.async.bulk.wait_group.read n`: all but the newest `n`
        /// groups have read their source.
        fn wait_read(&mut self, n: u32) {
            self.read = self.read.max(self.committed.saturating_sub(n));
        }
    }

    /// Walks `chunks` chunks through a ring of `stages` with the acquire
    /// placed as `acquire` says; asserts, before each chunk writes its
    /// stage, that the store of the chunk that wrote it last has read it.
    fn walk(stages: u32, acquire: StoreAcquire, chunks: u32) {
        let mut k = Kernel::new("k").unwrap();
        let issuer = k.reg(RegClass::Pred);
        let ring = PipelineTmaStore::new(stages, acquire, issuer, "s").unwrap();
        let n = ring.unacquired();
        let mut groups = Groups::default();
        for j in 0..chunks {
            if acquire == StoreAcquire::BeforeWrites {
                groups.wait_read(n);
            }
            if j >= stages {
                // Group `j - stages` (0-based) is the last to read stage j % S.
                assert!(
                    groups.read > j - stages,
                    "{stages} stages, {acquire:?}: chunk {j} writes a stage still read"
                );
            }
            if acquire == StoreAcquire::BeforePreviousStore {
                groups.wait_read(n);
            }
            groups.committed += 1;
        }
    }

    #[test]
    fn each_placement_frees_the_stage_before_its_writes() {
        for stages in 1..=8 {
            walk(stages, StoreAcquire::BeforeWrites, 50);
            walk(stages, StoreAcquire::WriteOnce, stages);
            if stages >= 2 {
                walk(stages, StoreAcquire::BeforePreviousStore, 50);
            }
        }
    }

    #[test]
    fn acquire_and_tail_branch_on_the_issuer() {
        let mut k = Kernel::new("k").unwrap();
        let issuer = k.reg(RegClass::Pred);
        let ring =
            PipelineTmaStore::new(3, StoreAcquire::BeforePreviousStore, issuer, "s").unwrap();
        ring.producer_acquire(&mut k).unwrap();
        ring.producer_tail(&mut k).unwrap();
        let once = PipelineTmaStore::new(3, StoreAcquire::WriteOnce, issuer, "s").unwrap();
        once.producer_acquire(&mut k).unwrap();
        let (dst, src) = (k.reg(RegClass::B64), k.reg(RegClass::B32));
        assert!(ring.issue_store(&mut k, dst, (src, 0), 24).is_err());
        let text = k.emit().unwrap();
        assert_eq!(text.matches("cp.async.bulk.wait_group.read 1;").count(), 1);
        assert_eq!(text.matches("cp.async.bulk.wait_group 0;").count(), 1);
        assert_eq!(text.matches(&format!("@!{issuer} bra")).count(), 2);
    }
}
