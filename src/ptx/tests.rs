//! Unit tests: every `PtxError` the assembler and the snippet store raise.

use super::snippet::parse_family;
use super::*;
use crate::arch::ArchKind;

fn kernel() -> Kernel {
    Kernel::new("k").unwrap()
}

#[test]
fn every_family_parses_and_every_snippet_is_documented() {
    let mut count = 0;
    for family in families() {
        for s in snippets(family).unwrap() {
            assert!(!s.doc().trim().is_empty(), "{family}/{}", s.name());
            assert!(!s.body().trim().is_empty(), "{family}/{}", s.name());
            count += 1;
        }
    }
    assert!(count >= 20, "only {count} snippets");
}

#[test]
fn invalid_identifiers_are_rejected() {
    for bad in ["", "1abc", "a-b", "%r1", "$L"] {
        let err = Kernel::new(bad).unwrap_err();
        assert!(
            matches!(err, PtxError::InvalidIdentifier { what: "kernel", .. }),
            "{err}"
        );
        assert!(err.to_string().contains(&format!("`{bad}`")), "{err}");
    }
    assert!(matches!(
        kernel().param("a b", ParamType::U32),
        Err(PtxError::InvalidIdentifier { what: "param", .. })
    ));
    assert!(matches!(
        kernel().new_label("no-dash"),
        Err(PtxError::InvalidIdentifier { what: "label", .. })
    ));
}

#[test]
fn duplicate_names_in_a_kernel_and_a_module() {
    let mut k = kernel();
    k.param("x", ParamType::U64).unwrap();
    let err = k.shared_static("x", 16, 16).unwrap_err();
    assert_eq!(
        err.to_string(),
        "duplicate name `x` in kernel `k`: each param, shared variable and kernel needs its own"
    );
    let mut module = Module::new(ArchKind::Sm80);
    let mut first = Kernel::new("first").unwrap();
    first.shared_static("tile", 16, 16).unwrap();
    module.add_kernel(first).unwrap();
    let mut second = Kernel::new("second").unwrap();
    second.shared_static("tile", 16, 16).unwrap();
    let err = module.add_kernel(second).unwrap_err();
    assert!(
        matches!(&err, PtxError::DuplicateName { name, .. } if name == "tile"),
        "{err}"
    );
    let err = module
        .add_kernel(Kernel::new("first").unwrap())
        .unwrap_err();
    assert!(
        matches!(&err, PtxError::DuplicateName { name, .. } if name == "first"),
        "{err}"
    );
}

#[test]
fn maxntid_and_reqntid_conflict() {
    let mut k = kernel();
    k.max_threads(128, 1, 1).required_threads(128, 1, 1);
    let err = k.emit().unwrap_err();
    assert_eq!(
        err,
        PtxError::ConflictingThreadDirectives { kernel: "k".into() }
    );
    assert!(err.to_string().contains("both .maxntid and .reqntid"));
}

#[test]
fn invalid_directive_values() {
    let mut k = kernel();
    k.max_threads(0, 1, 1);
    let err = k.emit().unwrap_err();
    assert!(
        err.to_string().contains(".maxntid 0, 1, 1 is invalid"),
        "{err}"
    );
    let mut k = kernel();
    k.required_threads(64, 32, 1);
    let err = k.emit().unwrap_err();
    assert!(
        err.to_string().contains(".reqntid 64, 32, 1 is invalid"),
        "{err}"
    );
    let mut k = kernel();
    k.min_blocks_per_sm(0);
    let err = k.emit().unwrap_err();
    assert!(
        err.to_string().contains(".minnctapersm 0 is invalid"),
        "{err}"
    );
}

#[test]
fn alignment_and_size_checks() {
    let err = kernel().shared_static("tile", 24, 64).unwrap_err();
    assert_eq!(
        err.to_string(),
        "`tile`: alignment 24 is invalid: expected a power of two"
    );
    assert!(matches!(
        kernel().shared_dynamic("smem", 0),
        Err(PtxError::InvalidAlignment { align: 0, .. })
    ));
    assert!(matches!(
        kernel().param("map", ParamType::Bytes { align: 3, size: 8 }),
        Err(PtxError::InvalidAlignment { align: 3, .. })
    ));
    assert!(matches!(
        kernel().shared_static("tile", 16, 0),
        Err(PtxError::EmptyArray { .. })
    ));
    assert!(matches!(
        kernel().param("map", ParamType::Bytes { align: 8, size: 0 }),
        Err(PtxError::EmptyArray { .. })
    ));
}

#[test]
fn one_dynamic_shared_array_per_kernel() {
    let mut k = kernel();
    k.shared_dynamic("smem", 16).unwrap();
    let err = k.shared_dynamic("more", 16).unwrap_err();
    assert!(err.to_string().contains("(`smem` and `more`)"), "{err}");
}

#[test]
fn static_shared_memory_is_capped_at_48_kib() {
    let mut k = kernel();
    k.shared_static("a", 16, 32 * 1024).unwrap();
    k.shared_static("b", 16, 16 * 1024).unwrap();
    assert!(k.emit().is_ok());
    k.shared_static("c", 16, 16).unwrap();
    let err = k.emit().unwrap_err();
    assert!(
        matches!(
            err,
            PtxError::StaticSharedTooLarge {
                bytes: 49168,
                limit: 49152,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn param_loads_check_register_classes() {
    let mut k = kernel();
    let ptr = k.param("ptr", ParamType::U64).unwrap();
    let map = k.param("map", ParamType::TENSOR_MAP).unwrap();
    let narrow = k.reg(RegClass::B32);
    let err = k.ld_param(narrow, &ptr).unwrap_err();
    assert_eq!(
        err.to_string(),
        "param `ptr` of type .u64 cannot be loaded into %r0 (a .b32 register): expected a .b64 register"
    );
    assert!(matches!(
        k.load_param(&map),
        Err(PtxError::ParamRegisterMismatch { .. })
    ));
    assert!(matches!(
        k.param_address(&ptr),
        Err(PtxError::ParamRegisterMismatch { .. })
    ));
    assert_eq!(k.param_address(&map).unwrap().class(), RegClass::B64);
}

#[test]
fn ptx_version_range() {
    let module = Module::new(ArchKind::Sm90).with_ptx_version(8, 8).unwrap();
    assert_eq!(module.ptx_version(), (8, 8));
    let err = Module::new(ArchKind::Sm90)
        .with_ptx_version(8, 9)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "ptx version 8.9 is invalid for sm_90a: expected 8.0 to 8.8"
    );
    assert!(Module::new(ArchKind::Sm90).with_ptx_version(7, 8).is_err());
    assert!(Module::new(ArchKind::Sm70).with_ptx_version(7, 7).is_ok());
}

#[test]
fn unknown_family_and_snippet() {
    let err = snippet("sm75/nothing", "x").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("unknown snippet family `sm75/nothing`: expected one of"),
        "{err}"
    );
    assert!(err.to_string().contains("sm80/cp_async"), "{err}");
    let err = snippet("sm80/cp_async", "cp_async_8").unwrap_err();
    assert!(
        err.to_string()
            .starts_with("snippet family `sm80/cp_async` has no snippet `cp_async_8`"),
        "{err}"
    );
    assert!(err.to_string().contains("cp_async_16_zfill"), "{err}");
}

#[test]
fn hole_errors_name_family_snippet_and_hole() {
    let s = snippet("sm80/cp_async", "cp_async_16_zfill").unwrap();
    assert_eq!(s.holes(), ["dst", "src", "src_size"]);
    let err = s
        .fill(
            &[("dst", &1), ("src", &2), ("src_size", &3), ("extra", &4)],
            "",
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "snippet `sm80/cp_async/cp_async_16_zfill` has no hole `extra`: its holes are dst, src, src_size"
    );
    let err = s.fill(&[("dst", &1), ("src", &2)], "").unwrap_err();
    assert_eq!(
        err.to_string(),
        "snippet `sm80/cp_async/cp_async_16_zfill` needs hole `src_size`, which was not given"
    );
    let err = s
        .fill(
            &[("dst", &1), ("dst", &1), ("src", &2), ("src_size", &3)],
            "",
        )
        .unwrap_err();
    assert!(
        matches!(err, PtxError::DuplicateHole { ref hole, .. } if hole == "dst"),
        "{err}"
    );
    let mut k = kernel();
    let err = k
        .snippet("sm80/cp_async", "cp_async_commit", &[("n", &1)])
        .unwrap_err();
    assert!(err.to_string().contains("its holes are none"), "{err}");
}

#[test]
fn unique_suffix_replaces_uniq_hole() {
    let s = snippet("sm90/mbarrier", "mbarrier_wait_parity").unwrap();
    assert!(s.uses_unique_suffix());
    let text = s.fill(&[("bar", &"bar"), ("phase", &0)], "_7").unwrap();
    assert_eq!(text.matches("$L_mbarrier_wait_7").count(), 2, "{text}");
    assert!(!text.contains("${"), "{text}");
}

#[test]
fn malformed_family_files_are_reported_with_their_line() {
    let cases = [
        ("//@snippet a\n\tnop;\n", 1, "has no doc line"),
        ("//@snippet a\n// doc\n", 1, "has no body"),
        ("//@snippet a\n// doc\n\tx ${open;\n", 1, "without its `}`"),
        (
            "//@snippet a\n// doc\n\tx ${bad-name};\n",
            1,
            "bad hole name `bad-name`",
        ),
        (
            "//@snippet a\n// d\n\tx;\n//@snippet a\n// d\n\ty;\n",
            4,
            "defined twice",
        ),
        ("// header\n//@snipet a\n", 2, "unknown directive"),
        ("//@snippet 9a\n// d\n\tx;\n", 1, "invalid snippet name"),
    ];
    for (text, line, detail) in cases {
        let err = parse_family("test/family", text).unwrap_err();
        let PtxError::MalformedSnippet {
            line: at,
            detail: said,
            ..
        } = &err
        else {
            panic!("{err}");
        };
        assert_eq!(*at, line, "{err}");
        assert!(said.contains(detail), "{err}");
        assert!(
            err.to_string()
                .starts_with("snippet family `test/family` is malformed at line"),
            "{err}"
        );
    }
}
