//! Arch tags and `ArchKind`: PTX target facts, limits and device selection.

use cutlet::arch::{Arch, ArchKind, Sm70, Sm80, Sm90};

fn facts<A: Arch>() -> (ArchKind, (u32, u32), &'static str, (u32, u32), u32) {
    (
        A::KIND,
        A::COMPUTE_CAPABILITY,
        A::PTX_TARGET,
        A::PTX_VERSION,
        A::MAX_DYNAMIC_SHARED_BYTES,
    )
}

#[test]
fn tags_carry_target_version_and_shared_memory() {
    assert_eq!(
        facts::<Sm70>(),
        (ArchKind::Sm70, (7, 0), "sm_70", (7, 0), 98_304)
    );
    assert_eq!(
        facts::<Sm80>(),
        (ArchKind::Sm80, (8, 0), "sm_80", (7, 0), 166_912)
    );
    assert_eq!(
        facts::<Sm90>(),
        (ArchKind::Sm90, (9, 0), "sm_90a", (8, 0), 232_448)
    );
}

#[test]
fn common_limits() {
    for kind in ArchKind::ALL {
        assert_eq!(kind.max_registers_per_thread(), 255);
        assert_eq!(kind.registers_per_sm(), 65_536);
        assert_eq!(kind.max_threads_per_block(), 1024);
        assert_eq!(kind.warp_size(), 32);
        assert_eq!(kind.shared_bytes_without_opt_in(), 49_152);
        assert!(kind.ptx_version() <= ArchKind::MAX_PTX_VERSION);
    }
    assert_eq!(Sm90::WARP_SIZE, 32);
    assert_eq!(Sm80::REGISTERS_PER_SM, 65_536);
}

#[test]
fn best_arch_for_a_compute_capability() {
    let cases = [
        ((6, 1), None),
        ((7, 0), Some(ArchKind::Sm70)),
        ((7, 2), Some(ArchKind::Sm70)),
        ((7, 5), Some(ArchKind::Sm70)),
        ((8, 0), Some(ArchKind::Sm80)),
        ((8, 6), Some(ArchKind::Sm80)),
        ((8, 9), Some(ArchKind::Sm80)),
        ((9, 0), Some(ArchKind::Sm90)),
        ((9, 1), Some(ArchKind::Sm80)),
        ((10, 0), Some(ArchKind::Sm80)),
        ((12, 0), Some(ArchKind::Sm80)),
    ];
    for ((major, minor), expected) in cases {
        assert_eq!(
            ArchKind::from_compute_capability(major, minor),
            expected,
            "{major}.{minor}"
        );
        if let Some(kind) = expected {
            assert!(kind.can_run_on(major, minor), "{kind} on {major}.{minor}");
        }
    }
}

#[test]
fn which_devices_each_arch_runs_on() {
    assert!(ArchKind::Sm70.can_run_on(7, 0) && ArchKind::Sm70.can_run_on(12, 0));
    assert!(!ArchKind::Sm70.can_run_on(6, 2));
    assert!(!ArchKind::Sm80.can_run_on(7, 5) && ArchKind::Sm80.can_run_on(10, 0));
    assert!(ArchKind::Sm90.can_run_on(9, 0));
    for (major, minor) in [(8, 9), (9, 1), (10, 0), (12, 0)] {
        assert!(
            !ArchKind::Sm90.can_run_on(major, minor),
            "sm_90a on {major}.{minor}"
        );
    }
}

#[test]
fn display_is_the_ptx_target() {
    let names: Vec<String> = ArchKind::ALL.iter().map(ToString::to_string).collect();
    assert_eq!(names, ["sm_70", "sm_80", "sm_90a"]);
}
