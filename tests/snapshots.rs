//! Every phase's text form for every end-to-end fixture, as insta snapshots: the AST, the typed
//! IR with the loop report, the CUDA kernels and the CPU program. The shared prelude is
//! snapshotted once.

mod common;

/// The part of a generated file after the shared prelude and helpers.
fn generated_part(text: &str) -> &str {
    text.split_once(m2cu_codegen::GENERATED_MARKER)
        .map_or(text, |(_, rest)| rest)
}

#[test]
fn phases_of_every_fixture() {
    for name in common::e2e_fixtures() {
        let t = common::translate_fixture(&name);
        insta::assert_snapshot!(format!("{name}.ast"), t.ast);
        insta::assert_snapshot!(format!("{name}.ir"), format!("{}\n{}", t.ir, t.report));
        insta::assert_snapshot!(
            format!("{name}.kernels.cu"),
            generated_part(&t.generated.kernels_cu)
        );
        insta::assert_snapshot!(format!("{name}.c"), generated_part(&t.generated.c_source));
        insta::assert_snapshot!(
            format!("{name}.gpu_host.c"),
            generated_part(&t.generated.gpu_host_c)
        );
    }
}

#[test]
fn prelude() {
    insta::assert_snapshot!("prelude", m2cu_codegen::prelude::prelude());
}
