//! The split-K workspace as CUTLASS's adapter has it, on an H100/H200: a
//! buffer given to `initialize` is checked (length, device), then used by
//! the runs that follow; a split-K or swap-AB launch captured in a CUDA
//! graph and replayed 50 times gives the bits of direct launches (the
//! workspace's flags reset themselves: no memset between replays).
//!
//! One GEMM whose pick runs different split counts and tiles for different
//! problems gives each problem its own bits however they alternate, on its
//! own workspace (a buffer per layout) and on one given buffer (zeroed
//! where the layout changes), and a graph captured for one problem still
//! replays its bits after direct runs of another.
//!
//! Its own test binary: the graph tests turn cudarc's event tracking off
//! for the context (events recorded inside a capture cannot be waited on
//! outside it), which must not reach other tests' threads; every test here
//! keeps to one stream.

use cudarc::driver::sys::{CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaSlice, CudaStream};
use cutlet::device::gemm::{
    Arguments, Decomposition, Gemm, GemmShape, Operand, OutputOperand, WORKSPACE_ALIGNMENT,
};
use cutlet::device::Device;
use cutlet::Error;
use cutlet_harness::{device_or_skip, random_values};
use half::bf16;
use std::sync::Arc;

/// Device 0 where it has compute capability 9.0; else `None`, with the
/// reason printed.
fn sm90_device_or_skip(test: &str) -> Option<Device> {
    let device = device_or_skip(test)?;
    if device.compute_capability() != (9, 0) {
        println!(
            "skipped {test}: split-K runs on the SM90 kernels (compute capability 9.0), this GPU has {:?}",
            device.compute_capability()
        );
        return None;
    }
    Some(device)
}

/// A, B and D of an `m x n x k` bf16 problem, K-major A and B, row-major D
/// (poisoned: all bits set).
struct Buffers {
    shape: GemmShape,
    a: CudaSlice<bf16>,
    b: CudaSlice<bf16>,
    d: CudaSlice<bf16>,
}

impl Buffers {
    fn new(stream: &Arc<CudaStream>, (m, n, k): (usize, usize, usize), seed: u64) -> Buffers {
        Buffers {
            shape: GemmShape::new(m, n, k, 1),
            a: stream
                .clone_htod(&random_values::<bf16>(m * k, seed))
                .unwrap(),
            b: stream
                .clone_htod(&random_values::<bf16>(n * k, seed + 1))
                .unwrap(),
            d: stream
                .clone_htod(&vec![bf16::from_bits(0xffff); m * n])
                .unwrap(),
        }
    }

    fn args(&mut self) -> Arguments<'_, bf16, bf16, bf16, bf16> {
        let GemmShape { m, n, k, .. } = self.shape;
        Arguments::product(
            self.shape,
            Operand::new(self.a.as_view(), k, m * k),
            Operand::new(self.b.as_view(), k, n * k),
            OutputOperand::new(self.d.as_view_mut(), n, m * n),
            1.0,
        )
    }

    fn poison(&mut self, stream: &Arc<CudaStream>) {
        let len = self.d.len();
        stream
            .memcpy_htod(&vec![bf16::from_bits(0xffff); len], &mut self.d)
            .unwrap();
    }

    fn d_bits(&self, stream: &Arc<CudaStream>) -> Vec<u16> {
        let d = stream.clone_dtoh(&self.d).unwrap();
        d.iter().map(|x| x.to_bits()).collect()
    }
}

/// Problems whose picks (bf16, K-major) split K with different tiles or
/// split counts, so that their workspaces are laid out differently (a
/// record per tile: a flag, then a partial tile per split but the last):
/// 512x512x16384 (128x128 tiles, 8 splits), 384x1024x4096 (128x64, 2),
/// 128x1536x7168 (128x48, 4) on an H200. The tests assert that the first
/// two split K with different layouts rather than these picks.
const ALTERNATING: [(usize, usize, usize); 3] =
    [(512, 512, 16384), (384, 1024, 4096), (128, 1536, 7168)];

/// The layout of `gemm`'s kernel for `buffers`' problem: its tile and
/// tile scheduler, where it splits K.
fn split_layout(gemm: &Gemm, buffers: &mut Buffers) -> Option<String> {
    let spec = gemm.spec_for(&buffers.args());
    gemm.workspace_size(&buffers.args())
        .gt(&0)
        .then(|| format!("{:?} {:?}", spec.tile, spec.scheduler))
}

/// One GEMM (the builder's pick) runs the [`ALTERNATING`] problems in
/// turn, twice over, on its own workspace and then on one buffer given to
/// `initialize` (as large as the largest problem needs): every run gives
/// the bits of the same problem on a GEMM of its own. A kernel that found
/// its flags where another layout left partial tiles would take them for
/// arrivals and add partial tiles not yet written.
#[test]
fn one_gemm_alternating_problems_gives_each_its_bits() {
    const NAME: &str = "one_gemm_alternating_problems_gives_each_its_bits";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = device.default_stream();
    let mut problems: Vec<Buffers> = ALTERNATING
        .iter()
        .enumerate()
        .map(|(i, &shape)| Buffers::new(&stream, shape, 20 + 2 * i as u64))
        .collect();
    let build = || Gemm::builder().build(&device).unwrap();
    // Each problem's bits on a GEMM of its own.
    let mut want = Vec::new();
    let mut layouts = Vec::new();
    for buffers in problems.iter_mut() {
        let own = build();
        layouts.push(split_layout(&own, buffers));
        own.run(&mut buffers.args(), &stream).unwrap();
        want.push(buffers.d_bits(&stream));
        buffers.poison(&stream);
    }
    let mut distinct: Vec<&String> = layouts.iter().flatten().collect();
    distinct.dedup();
    assert!(
        distinct.len() >= 2,
        "the problems' kernels split K in at least two layouts: {layouts:?}"
    );
    let order = [0, 1, 0, 2, 1, 2, 0, 1];
    for given in [false, true] {
        let gemm = build();
        if given {
            let bytes = problems
                .iter_mut()
                .map(|buffers| gemm.workspace_size(&buffers.args()))
                .max()
                .unwrap();
            let workspace = stream.alloc_zeros::<u8>(bytes).unwrap();
            gemm.initialize(&problems[0].args(), Some(workspace))
                .unwrap();
        }
        for (step, &i) in order.iter().enumerate() {
            let buffers = &mut problems[i];
            gemm.run(&mut buffers.args(), &stream).unwrap();
            assert!(
                buffers.d_bits(&stream) == want[i],
                "given workspace {given}, step {step}: {:?} ({:?}) differs from its own GEMM's bits",
                ALTERNATING[i],
                layouts[i]
            );
            buffers.poison(&stream);
        }
    }
}

/// A buffer shorter than `workspace_size` is refused naming the bytes
/// needed, with D untouched; one on another device is refused naming both
/// devices (where a second GPU exists). A buffer of the exact size, filled
/// with garbage first, is zeroed and used: the runs give the bits of the
/// GEMM's own workspace, and a later problem that needs more than it holds
/// is refused (the GEMM does not swap in a buffer of its own).
#[test]
fn a_given_workspace_is_checked_then_used() {
    const NAME: &str = "a_given_workspace_is_checked_then_used";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = device.default_stream();
    let split = || {
        Gemm::builder()
            .decomposition(Decomposition::SplitK(4))
            .build(&device)
            .unwrap()
    };
    let mut buffers = Buffers::new(&stream, (256, 384, 4096), 7);
    let gemm = split();
    let needed = gemm.workspace_size(&buffers.args());
    assert!(needed > 0, "split-K needs a workspace");
    assert_eq!(WORKSPACE_ALIGNMENT, 128);

    let short = stream.alloc_zeros::<u8>(needed - 128).unwrap();
    let err = gemm.initialize(&buffers.args(), Some(short)).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    assert!(err.to_string().contains(&needed.to_string()), "{err}");
    assert!(
        buffers.d_bits(&stream).iter().all(|&b| b == 0xffff),
        "D was written"
    );

    match Device::new(1) {
        Ok(other) => {
            let elsewhere = other.default_stream().alloc_zeros::<u8>(needed).unwrap();
            let err = gemm
                .initialize(&buffers.args(), Some(elsewhere))
                .unwrap_err();
            assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
            let text = err.to_string();
            assert!(
                text.contains("device 1") && text.contains("device 0"),
                "{text}"
            );
            assert!(text.contains(&needed.to_string()), "{text}");
        }
        Err(_) => println!("{NAME}: one GPU: the other-device case is not run"),
    }

    // The same problem on the GEMM's own workspace, for the bits.
    let own = split();
    own.run(&mut buffers.args(), &stream).unwrap();
    let want = buffers.d_bits(&stream);
    buffers.poison(&stream);

    let garbage = stream.clone_htod(&vec![0xa5u8; needed]).unwrap();
    gemm.initialize(&buffers.args(), Some(garbage)).unwrap();
    for _ in 0..3 {
        gemm.run(&mut buffers.args(), &stream).unwrap();
        assert_eq!(
            buffers.d_bits(&stream),
            want,
            "a run on the given workspace"
        );
        buffers.poison(&stream);
    }

    let mut larger = Buffers::new(&stream, (512, 384, 4096), 9);
    assert!(gemm.workspace_size(&larger.args()) > needed);
    let err = gemm.run(&mut larger.args(), &stream).unwrap_err();
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
    assert!(err.to_string().contains("workspace"), "{err}");
    assert!(
        larger.d_bits(&stream).iter().all(|&b| b == 0xffff),
        "D was written"
    );
}

/// A stream of the test's own for a graph capture, with cudarc's event
/// tracking off for the context (events recorded inside a capture cannot
/// be waited on outside it).
fn graph_stream(device: &Device) -> Arc<CudaStream> {
    // SAFETY: every test of this binary keeps to one stream (the default
    // one, or one of its own from here) and orders its buffers' uses by
    // that stream alone, so no event tracking is needed across streams.
    unsafe { device.context().disable_event_tracking() };
    device.context().new_stream().unwrap()
}

/// Runs `gemm` on `args` while `stream` captures a CUDA graph: the run's
/// result and the graph.
fn capture(
    gemm: &Gemm,
    args: &mut Arguments<'_, bf16, bf16, bf16, bf16>,
    stream: &Arc<CudaStream>,
) -> (Result<(), Error>, Option<cudarc::driver::CudaGraph>) {
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL)
        .unwrap();
    let captured = gemm.run(args, stream);
    let graph = stream.end_capture(CUgraphInstantiate_flags(0)).unwrap();
    (captured, graph)
}

/// A split-K GEMM, the builder's pick for a decode shape (16 x 4096 x 8192:
/// swap-AB with split-K) and a stream-K GEMM (15 tiles of 64 k-tiles over every SM)
/// captured in a CUDA graph on a stream of their own, each with
/// a workspace given to `initialize`: 50 replays, D poisoned before each,
/// give the bits of a direct launch.
#[test]
fn graph_replays_give_the_bits_of_direct_launches() {
    const NAME: &str = "graph_replays_give_the_bits_of_direct_launches";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = graph_stream(&device);
    for (what, builder, shape) in [
        (
            "split-K",
            Gemm::builder().decomposition(Decomposition::SplitK(8)),
            (256, 256, 8192),
        ),
        ("the pick (swap-AB)", Gemm::builder(), (16, 4096, 8192)),
        (
            "stream-K",
            Gemm::builder().decomposition(Decomposition::StreamK),
            (640, 384, 4096),
        ),
    ] {
        let gemm = builder.build(&device).unwrap();
        let mut buffers = Buffers::new(&stream, shape, 3);
        if what.contains("swap") {
            assert!(gemm.swaps_ab_for(&buffers.args()), "{what}");
        }
        let needed = gemm.workspace_size(&buffers.args());
        assert!(needed > 0, "{what} splits K");
        let workspace = stream.alloc_zeros::<u8>(needed).unwrap();
        gemm.initialize(&buffers.args(), Some(workspace))
            .unwrap()
            .wait_optimized()
            .unwrap();
        gemm.run(&mut buffers.args(), &stream).unwrap();
        let want = buffers.d_bits(&stream);
        assert!(want.iter().all(|&b| b != 0xffff), "{what}: D not written");
        buffers.poison(&stream);

        let (captured, graph) = capture(&gemm, &mut buffers.args(), &stream);
        captured.unwrap();
        let graph = graph.expect("the capture recorded the launch");
        for replay in 0..50 {
            buffers.poison(&stream);
            graph.launch().unwrap();
            assert_eq!(buffers.d_bits(&stream), want, "{what}: replay {replay}");
        }
        // Direct launches after the replays still give the same bits.
        buffers.poison(&stream);
        gemm.run(&mut buffers.args(), &stream).unwrap();
        assert_eq!(
            buffers.d_bits(&stream),
            want,
            "{what}: direct after replays"
        );
    }
}

/// A graph captured for one problem, then direct runs of a problem whose
/// kernel lays out the workspace differently, then replays: both give
/// their bits, on the GEMM's own workspace (a buffer per layout) and on a
/// given one (the other layout's runs zero what they used, before and
/// after). A second layout's capture on the given buffer is refused.
#[test]
fn graph_replays_survive_direct_runs_of_another_layout() {
    const NAME: &str = "graph_replays_survive_direct_runs_of_another_layout";
    let Some(device) = sm90_device_or_skip(NAME) else {
        return;
    };
    let stream = graph_stream(&device);
    let mut x = Buffers::new(&stream, ALTERNATING[0], 40);
    let mut y = Buffers::new(&stream, ALTERNATING[1], 42);
    for given in [false, true] {
        let gemm = Gemm::builder().build(&device).unwrap();
        let (layout_x, layout_y) = (split_layout(&gemm, &mut x), split_layout(&gemm, &mut y));
        assert!(
            layout_x.is_some() && layout_y.is_some(),
            "both split K: {layout_x:?}, {layout_y:?}"
        );
        assert_ne!(layout_x, layout_y, "two layouts");
        if given {
            let bytes = gemm
                .workspace_size(&x.args())
                .max(gemm.workspace_size(&y.args()));
            let workspace = stream.alloc_zeros::<u8>(bytes).unwrap();
            gemm.initialize(&x.args(), Some(workspace)).unwrap();
        }
        gemm.run(&mut x.args(), &stream).unwrap();
        let want_x = x.d_bits(&stream);
        gemm.run(&mut y.args(), &stream).unwrap();
        let want_y = y.d_bits(&stream);
        // X again (its layout after Y's), then captured.
        x.poison(&stream);
        gemm.run(&mut x.args(), &stream).unwrap();
        assert_eq!(x.d_bits(&stream), want_x, "given {given}: X after Y");
        let (captured, graph) = capture(&gemm, &mut x.args(), &stream);
        captured.unwrap();
        let graph = graph.expect("the capture recorded the launch");
        for round in 0..3 {
            y.poison(&stream);
            gemm.run(&mut y.args(), &stream).unwrap();
            assert_eq!(y.d_bits(&stream), want_y, "given {given}: Y, round {round}");
            for replay in 0..3 {
                x.poison(&stream);
                graph.launch().unwrap();
                assert_eq!(
                    x.d_bits(&stream),
                    want_x,
                    "given {given}: X replayed after Y, round {round}, replay {replay}"
                );
            }
        }
        if given {
            // Y's capture on the buffer X's graph holds is refused.
            let (captured, _) = capture(&gemm, &mut y.args(), &stream);
            let err = captured.unwrap_err();
            assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
            assert!(err.to_string().contains("another layout"), "{err}");
        }
    }
}
