//! `peer_all_reduce`: the one-shot all-reduce of a tensor-parallel group's
//! partial products over peer memory, signalled on the GPUs (no host
//! exchange between the GEMMs and the sum), as vLLM's and TensorRT-LLM's
//! custom all-reduce without multicast.
//!
//! What: on rank `r` of `W`, `out[i] = ((part_0[i] + part_1[i]) + ...) +
//! part_{W-1}[i]` for `i < len`, summed in f32 in rank order and rounded
//! once to the element type; `part_p` is rank p's buffer, read in place
//! (over the GPUs' link where `p != r`). Every rank computes the same bits.
//!
//! How the ranks meet, with a counter `epoch` that grows by one a call
//! (the same on every rank; it skips [`ABORT`]):
//! 0. On SM90 the kernel launches as a programmatic dependent launch of
//!    the GEMM ahead of it, so that its blocks are placed while that
//!    GEMM's last tiles run; every thread first waits for the GEMM to
//!    complete and its writes to be visible (`griddepcontrol.wait`).
//! 1. Thread 0 of block 0 tells every other rank that this rank's part is
//!    complete: `st.release.sys` of `epoch` into this rank's word of rank
//!    p's flags (`signal_p`). The part was written by the kernels before
//!    this one on the stream.
//! 2. Thread 0 of every block waits (`ld.acquire.sys`, a spin) until each
//!    other rank's word in this rank's `flags` has reached `epoch`
//!    (compared as the signed difference, so that the counter may wrap);
//!    a word holding [`ABORT`] ends the kernel with `out` unwritten (a
//!    failed rank's host writes it), and waiting longer than
//!    [`TIMEOUT_NS`] traps (a rank whose GPU stopped: an error on this one
//!    rather than a hang). A `bar.red.or` then releases the block.
//! 3. The block's threads sum 16-byte vectors (`ld.relaxed.sys`, so that
//!    nothing an earlier call left in a cache is read; a thread a vector,
//!    all W loads in flight) in a grid-stride loop, then the elements past
//!    the last vector one a thread.
//!
//! Why one flag per pair is enough: a rank's part of call `e` lives in one
//! of two halves of its buffer (by `e`'s parity), and a rank starts call
//! `e + 1`'s sum only after every other rank has started call `e + 1`'s
//! (step 2), that is finished call `e`'s. So when a rank's GEMM of call
//! `e + 2` overwrites the half of call `e`, nobody still reads it.
//!
//! The waits hold SMs: the ranks' kernels must be queued in the same order
//! on every GPU, as NCCL's must, and a group's sums must not wait behind
//! another group's on a GPU they share.
//!
//! Params, in launch order: `out: u64`, `part_0 .. part_{W-1}: u64`,
//! `signal_0 .. signal_{W-1}: u64` (0 at the own rank), `flags: u64` (W
//! words of u32), `len: u64`, `vectors: u64` (the 16-byte vectors summed
//! with vector loads: `len / per vector`, or 0 where `out` or a part is not
//! 16-byte aligned), `epoch: u32`, `rank: u32`.

use crate::arch::ArchKind;
use crate::fusion::{emit_convert_for, Value};
use crate::numeric::ElementType;
use crate::ptx::{Kernel, Module, ParamType, PtxError, Reg, RegClass, SpecialReg};

/// The flag value with which a rank that failed after the others' sums
/// were queued releases them.
pub const ABORT: u32 = u32::MAX;

/// How long thread 0 of a block waits for another rank before it traps:
/// 100 s, by `%globaltimer`.
pub const TIMEOUT_NS: u64 = 100_000_000_000;

/// Threads per block the launch must use.
pub const BLOCK_THREADS: u32 = 256;

/// Bytes a thread loads from each part per vector.
const VECTOR_BYTES: u32 = 16;

/// Blocks per SM at most: enough loads in flight over the link.
const BLOCKS_PER_SM: u64 = 4;

/// One `peer_all_reduce` kernel: element type, ranks and architecture; the
/// module cache's key.
///
/// ```
/// use cutlet::arch::ArchKind;
/// use cutlet::kernel::peer_all_reduce::PeerAllReduceSpec;
/// use cutlet::numeric::ElementType;
///
/// let spec = PeerAllReduceSpec { element: ElementType::BF16, world: 4, arch: ArchKind::Sm90 };
/// assert_eq!(spec.kernel_name(), "peer_all_reduce_bf16_w4");
/// assert_eq!(spec.elements_per_vector(), 8);
/// // 16 x 8192 bf16 is 16384 vectors: 64 blocks of 256 threads, one each.
/// assert_eq!(spec.blocks(16 * 8192, 132), 64);
/// let ptx = spec.ptx().unwrap();
/// assert!(ptx.contains("st.release.sys.global.u32") && ptx.contains("ld.acquire.sys.global.u32"));
/// // On SM90 it waits for the GEMM ahead of it (a programmatic dependent launch).
/// assert!(spec.dependent_launch() && ptx.contains("griddepcontrol.wait"));
/// let sm80 = PeerAllReduceSpec { arch: ArchKind::Sm80, ..spec };
/// assert!(!sm80.dependent_launch() && !sm80.ptx().unwrap().contains("griddepcontrol"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PeerAllReduceSpec {
    /// The parts' and the output's element type: f16, bf16 or f32.
    pub element: ElementType,
    /// Ranks in the group: 2 to [`MAX_WORLD`](Self::MAX_WORLD).
    pub world: u32,
    /// The architecture the PTX targets.
    pub arch: ArchKind,
}

impl PeerAllReduceSpec {
    /// The element types the kernel sums.
    pub const SUPPORTED: [ElementType; 3] = [ElementType::F16, ElementType::BF16, ElementType::F32];
    /// The most ranks one kernel reads.
    pub const MAX_WORLD: u32 = 8;

    /// The `.entry` name, e.g. `peer_all_reduce_bf16_w4`.
    pub fn kernel_name(&self) -> String {
        format!("peer_all_reduce_{}_w{}", self.element, self.world)
    }

    /// Elements of one 16-byte vector: 8 for 16-bit types, 4 for f32.
    pub fn elements_per_vector(&self) -> u32 {
        VECTOR_BYTES / self.element.size_bytes()
    }

    /// Whether the kernel may launch as a programmatic dependent launch
    /// (SM90): it then waits (`griddepcontrol.wait`) for the kernel ahead
    /// of it on the stream before it signals or touches global memory, so
    /// that its launch and placement overlap that kernel's last blocks.
    pub fn dependent_launch(&self) -> bool {
        self.arch == ArchKind::Sm90
    }

    /// Blocks of [`BLOCK_THREADS`] for `len` elements on `sm_count` SMs:
    /// a thread a vector, at most 4 blocks an SM, at least one.
    pub fn blocks(&self, len: u64, sm_count: u32) -> u32 {
        let vectors = len.div_ceil(u64::from(self.elements_per_vector()));
        super::vector_blocks(vectors, BLOCK_THREADS, BLOCKS_PER_SM, sm_count)
    }

    /// The PTX module of the kernel.
    ///
    /// # Errors
    /// [`PtxError`] from the emitter, or for a type or rank count the
    /// kernel does not take.
    pub fn ptx(&self) -> Result<String, PtxError> {
        if !Self::SUPPORTED.contains(&self.element) {
            return Err(PtxError::UnsupportedElement {
                kernel: "peer_all_reduce",
                element: self.element.to_string(),
                supported: "f16, bf16, f32",
            });
        }
        if !(2..=Self::MAX_WORLD).contains(&self.world) {
            return Err(PtxError::UnsupportedSpec {
                kernel: "peer_all_reduce",
                name: self.kernel_name(),
                reason: format!("{} ranks: expected 2 to {}", self.world, Self::MAX_WORLD),
            });
        }
        let mut module = Module::new(self.arch);
        module.add_kernel(kernel(self)?)?;
        module.emit()
    }
}

/// The kernel (see the module's docs).
fn kernel(spec: &PeerAllReduceSpec) -> Result<Kernel, PtxError> {
    let w = spec.world as usize;
    // No `.maxntid`: with 256 declared, sm_70's ptxas held eight f16
    // ranks' sums to 39 registers and spilled.
    let mut k = Kernel::new(&spec.kernel_name())?;
    let out = k.global_address_param("out")?;
    let parts = (0..w)
        .map(|p| k.global_address_param(&format!("part_{p}")))
        .collect::<Result<Vec<_>, _>>()?;
    let signals = (0..w)
        .map(|p| k.global_address_param(&format!("signal_{p}")))
        .collect::<Result<Vec<_>, _>>()?;
    let flags = k.global_address_param("flags")?;
    let len = k.param_value("len", ParamType::U64)?;
    let vectors = k.param_value("vectors", ParamType::U64)?;
    let epoch = k.param_value("epoch", ParamType::U32)?;
    let rank = k.param_value("rank", ParamType::U32)?;
    let tid = k.special(SpecialReg::TidX);
    let block = k.special(SpecialReg::CtaidX);
    if spec.dependent_launch() {
        // Launched to depend on the GEMM ahead of it, the blocks may be
        // placed while its last tiles run: every thread waits here for it
        // to complete and its partials to be visible before any global
        // access, the signal of step 1 included.
        k.push("griddepcontrol.wait;");
    }
    emit_meet(&mut k, [tid, block, epoch, rank, flags], &signals)?;

    // The thread's first index and the grid's stride, in threads.
    let (index, stride, wide) = (
        k.reg(RegClass::B64),
        k.reg(RegClass::B64),
        k.reg(RegClass::B64),
    );
    let ntid = k.special(SpecialReg::NtidX);
    let nctaid = k.special(SpecialReg::NctaidX);
    k.push(format!("mul.wide.u32 {index}, {block}, {ntid};"));
    k.push(format!("cvt.u64.u32 {wide}, {tid};"));
    k.push(format!("add.u64 {index}, {index}, {wide};"));
    k.push(format!("mul.wide.u32 {stride}, {nctaid}, {ntid};"));
    let first = k.reg(RegClass::B64);
    k.push(format!("mov.u64 {first}, {index};"));
    let (p, offset, addr) = (
        k.reg(RegClass::Pred),
        k.reg(RegClass::B64),
        k.reg(RegClass::B64),
    );

    // Whole vectors.
    let (vector_loop, vectors_done) = (k.new_label("vector")?, k.new_label("vectors_done")?);
    k.place_label(&vector_loop);
    k.push(format!("setp.ge.u64 {p}, {index}, {vectors};"));
    k.push(format!("@{p} bra {vectors_done};"));
    k.push(format!("shl.b64 {offset}, {index}, 4;"));
    let mut sums: Option<Vec<Reg>> = None;
    for part in &parts {
        let words = k.regs(RegClass::B32, 4);
        k.push(format!("add.u64 {addr}, {part}, {offset};"));
        k.push(format!(
            "ld.relaxed.sys.global.v4.b32 {{{}, {}, {}, {}}}, [{addr}];",
            words[0], words[1], words[2], words[3]
        ));
        let values = unpack(&mut k, spec, &words)?;
        sums = Some(match sums {
            None => values,
            Some(acc) => acc
                .into_iter()
                .zip(values)
                .map(|(a, v)| {
                    k.push(format!("add.rn.f32 {a}, {a}, {v};"));
                    a
                })
                .collect(),
        });
    }
    let words = pack(&mut k, spec, &sums.unwrap_or_default())?;
    k.push(format!("add.u64 {addr}, {out}, {offset};"));
    k.push(format!(
        "st.global.v4.b32 [{addr}], {{{}, {}, {}, {}}};",
        words[0], words[1], words[2], words[3]
    ));
    k.push(format!("add.u64 {index}, {index}, {stride};"));
    k.push(format!("bra {vector_loop};"));
    k.place_label(&vectors_done);

    // The elements past the vectors, one a thread.
    let per = u64::from(spec.elements_per_vector());
    let size = spec.element.size_bytes();
    k.push(format!("mad.lo.u64 {index}, {vectors}, {per}, {first};"));
    let (scalar_loop, done) = (k.new_label("scalar")?, k.new_label("done")?);
    k.place_label(&scalar_loop);
    k.push(format!("setp.ge.u64 {p}, {index}, {len};"));
    k.push(format!("@{p} bra {done};"));
    k.push(format!("mul.lo.u64 {offset}, {index}, {size};"));
    let bits = if size == 2 { "b16" } else { "b32" };
    let mut sum: Option<Reg> = None;
    for part in &parts {
        let value = Value::fresh(&mut k, spec.element);
        k.push(format!("add.u64 {addr}, {part}, {offset};"));
        k.push(format!(
            "ld.relaxed.sys.global.{bits} {}, [{addr}];",
            value.reg
        ));
        let wide = emit_convert_for(&mut k, value, ElementType::F32, spec.arch)
            .map_err(|e| conversion(spec, e))?;
        sum = Some(match sum {
            None => wide.reg,
            Some(a) => {
                k.push(format!("add.rn.f32 {a}, {a}, {};", wide.reg));
                a
            }
        });
    }
    let total = Value {
        reg: sum.expect("at least two parts"),
        ty: ElementType::F32,
    };
    let narrow = emit_convert_for(&mut k, total, spec.element, spec.arch)
        .map_err(|e| conversion(spec, e))?;
    k.push(format!("add.u64 {addr}, {out}, {offset};"));
    k.push(format!("st.global.{bits} [{addr}], {};", narrow.reg));
    k.push(format!("add.u64 {index}, {index}, {stride};"));
    k.push(format!("bra {scalar_loop};"));
    k.place_label(&done);
    k.push("ret;");
    Ok(k)
}

/// Steps 1 and 2 of the module's docs: the signals, the waits, and the
/// block's release (or its end, on [`ABORT`]).
fn emit_meet(
    k: &mut Kernel,
    [tid, block, epoch, rank, flags]: [Reg; 5],
    signals: &[Reg],
) -> Result<(), PtxError> {
    let (lead, signaller, q, aborted, stop) = (
        k.reg(RegClass::Pred),
        k.reg(RegClass::Pred),
        k.reg(RegClass::Pred),
        k.reg(RegClass::Pred),
        k.reg(RegClass::Pred),
    );
    k.push(format!("setp.eq.u32 {lead}, {tid}, 0;"));
    k.push(format!("setp.eq.and.u32 {signaller}, {block}, 0, {lead};"));
    for (p, signal) in signals.iter().enumerate() {
        k.push(format!("setp.ne.and.u32 {q}, {rank}, {p}, {signaller};"));
        k.push(format!(
            "@{q} st.release.sys.global.u32 [{signal}], {epoch};"
        ));
    }
    k.push(format!("setp.ne.u32 {aborted}, {tid}, {tid};"));
    let met = k.new_label("met")?;
    k.push(format!("@!{lead} bra {met};"));
    let (start, now, seen, behind, addr) = (
        k.reg(RegClass::B64),
        k.reg(RegClass::B64),
        k.reg(RegClass::B32),
        k.reg(RegClass::B32),
        k.reg(RegClass::B64),
    );
    k.push(format!("mov.u64 {start}, %globaltimer;"));
    for p in 0..signals.len() {
        let (spin, next) = (k.new_label("spin")?, k.new_label("next")?);
        k.push(format!("setp.eq.u32 {q}, {rank}, {p};"));
        k.push(format!("@{q} bra {next};"));
        k.push(format!("add.u64 {addr}, {flags}, {};", 4 * p));
        k.place_label(&spin);
        k.push(format!("ld.acquire.sys.global.u32 {seen}, [{addr}];"));
        k.push(format!("setp.eq.u32 {aborted}, {seen}, {ABORT};"));
        k.push(format!("@{aborted} bra {met};"));
        k.push(format!("sub.u32 {behind}, {seen}, {epoch};"));
        k.push(format!("setp.ge.s32 {q}, {behind}, 0;"));
        k.push(format!("@{q} bra {next};"));
        k.push(format!("mov.u64 {now}, %globaltimer;"));
        k.push(format!("sub.u64 {now}, {now}, {start};"));
        k.push(format!("setp.gt.u64 {q}, {now}, {TIMEOUT_NS};"));
        k.push(format!("@{q} trap;"));
        k.push(format!("bra {spin};"));
        k.place_label(&next);
    }
    k.place_label(&met);
    k.push(format!("bar.red.or.pred {stop}, 0, {aborted};"));
    let go = k.new_label("go")?;
    k.push(format!("@!{stop} bra {go};"));
    k.push("ret;");
    k.place_label(&go);
    Ok(())
}

/// The f32 values of a vector's four words.
fn unpack(k: &mut Kernel, spec: &PeerAllReduceSpec, words: &[Reg]) -> Result<Vec<Reg>, PtxError> {
    let mut values = Vec::new();
    for &word in words {
        if spec.element == ElementType::F32 {
            let f = k.reg(RegClass::F32);
            k.push(format!("mov.b32 {f}, {word};"));
            values.push(f);
            continue;
        }
        let halves = k.regs(RegClass::B16, 2);
        k.push(format!("mov.b32 {{{}, {}}}, {word};", halves[0], halves[1]));
        for half in halves {
            let value = Value {
                reg: half,
                ty: spec.element,
            };
            let wide = emit_convert_for(k, value, ElementType::F32, spec.arch)
                .map_err(|e| conversion(spec, e))?;
            values.push(wide.reg);
        }
    }
    Ok(values)
}

/// The four words of a vector of f32 sums, rounded to the element type.
fn pack(k: &mut Kernel, spec: &PeerAllReduceSpec, sums: &[Reg]) -> Result<Vec<Reg>, PtxError> {
    let words = k.regs(RegClass::B32, 4);
    if spec.element == ElementType::F32 {
        for (word, sum) in words.iter().zip(sums) {
            k.push(format!("mov.b32 {word}, {sum};"));
        }
        return Ok(words);
    }
    for (word, pair) in words.iter().zip(sums.chunks(2)) {
        let mut halves = Vec::new();
        for &sum in pair {
            let value = Value {
                reg: sum,
                ty: ElementType::F32,
            };
            let narrow = emit_convert_for(k, value, spec.element, spec.arch)
                .map_err(|e| conversion(spec, e))?;
            halves.push(narrow.reg);
        }
        k.push(format!("mov.b32 {word}, {{{}, {}}};", halves[0], halves[1]));
    }
    Ok(words)
}

/// A conversion the emitter could not write, as the kernel's error.
fn conversion(spec: &PeerAllReduceSpec, e: crate::fusion::FusionError) -> PtxError {
    PtxError::UnsupportedSpec {
        kernel: "peer_all_reduce",
        name: spec.kernel_name(),
        reason: e.to_string(),
    }
}
