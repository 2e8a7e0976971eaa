//! `Gemm::run_with_sm_count` (CUTLASS's `KernelHardwareInfo::sm_count`):
//! the persistent SM90 grid sized for fewer SMs gives the bits of `run`
//! for the picked kernels (clusters among them), split-K (3 and 8 splits,
//! the latter also in 2x1 clusters:
//! grids below the splits add the partial tiles in the finisher alone,
//! larger ones spread the sum over the splits) and swap-AB, with an SM
//! count of 1 and 3 (below and across a 2x1 cluster), a third of the GPU,
//! and more than the GPU has. Split-K and swap-AB run where the GPU
//! is an SM90 one; elsewhere the grid is not persistent and the count
//! changes nothing. 0 is an `InvalidArgument` naming `sm_count`.

use cutlet::device::gemm::{Arguments, Decomposition, Gemm, GemmShape, Operand, OutputOperand};
use cutlet::Error;
use cutlet_harness::{device_or_skip, random_values};
use half::bf16;

#[test]
fn fewer_sms_give_the_bits_of_the_whole_gpu() {
    const NAME: &str = "fewer_sms_give_the_bits_of_the_whole_gpu";
    let Some(device) = device_or_skip(NAME) else {
        return;
    };
    let stream = device.default_stream();
    let sms = device.limits().sm_count;
    let mut gemms = vec![("picked", Gemm::builder().build(&device).unwrap())];
    if device.compute_capability() == (9, 0) {
        let split = Gemm::builder()
            .decomposition(Decomposition::SplitK(3))
            .build(&device)
            .unwrap();
        gemms.push(("split-K 3", split));
        // 8 splits: on 1 and 3 SMs the finisher adds the 7 partial tiles
        // itself; on a grid of at least 8 blocks the other splits share
        // the sum out first (the spread reduction). Both give one set of bits.
        let split = Gemm::builder()
            .decomposition(Decomposition::SplitK(8))
            .build(&device)
            .unwrap();
        gemms.push(("split-K 8", split));
        // In 2x1 clusters: 2 SMs hold one cluster (serial sum), 3 as well.
        let split = Gemm::builder()
            .decomposition(Decomposition::SplitK(8))
            .cluster([2, 1])
            .build(&device)
            .unwrap();
        gemms.push(("split-K 8 in 2x1 clusters", split));
        gemms.push((
            "swap-AB",
            Gemm::builder().swap_ab(true).build(&device).unwrap(),
        ));
    }
    for (m, n, k) in [(1000, 1000, 512), (4096, 2048, 1024), (16, 4096, 2048)] {
        let a = stream.clone_htod(&random_values::<bf16>(m * k, 1)).unwrap();
        let b = stream.clone_htod(&random_values::<bf16>(n * k, 2)).unwrap();
        for (what, gemm) in &gemms {
            let run = |sm_count: Option<u32>| -> Result<Vec<u16>, Error> {
                let mut d = stream
                    .clone_htod(&vec![bf16::from_bits(0xffff); m * n])
                    .unwrap();
                let mut args = Arguments::product(
                    GemmShape::new(m, n, k, 1),
                    Operand::new(a.as_view(), k, 0),
                    Operand::new(b.as_view(), k, 0),
                    OutputOperand::new(d.as_view_mut(), n, 0),
                    1.0,
                );
                match sm_count {
                    Some(count) => gemm.run_with_sm_count(&mut args, &stream, count)?,
                    None => gemm.run(&mut args, &stream)?,
                }
                drop(args);
                Ok(stream
                    .clone_dtoh(&d)
                    .unwrap()
                    .iter()
                    .map(|x| x.to_bits())
                    .collect())
            };
            let whole = run(None).unwrap();
            for count in [1, 3, sms / 3, sms + 100] {
                assert!(
                    run(Some(count)).unwrap() == whole,
                    "{what} {m}x{n}x{k}: {count} SMs changed the bits"
                );
            }
            let err = run(Some(0)).unwrap_err();
            assert!(matches!(err, Error::InvalidArgument { .. }), "{err}");
            assert!(err.to_string().contains("sm_count"), "{err}");
        }
    }
}
