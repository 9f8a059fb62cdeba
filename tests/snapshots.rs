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

/// `--deterministic` changes only the merge of floating sums and products and of custom
/// combiners: `prodvec` (a product), `singlesum` (a single sum), `vecred` (sums and products
/// among max, min, any and all, which keep their atomics) and `reducecaptures` (custom
/// combiners, with their "has a value" flags in the block slots).
#[test]
fn deterministic_merge() {
    for name in ["prodvec", "singlesum", "vecred", "reducecaptures"] {
        let options = m2cu::Options {
            deterministic: true,
            ..common::fixture_options(name)
        };
        let path = common::e2e_path(name, ".m");
        let t = m2cu::translate(&common::source(&path), &options).expect("translates");
        insta::assert_snapshot!(
            format!("{name}.deterministic.kernels.cu"),
            generated_part(&t.generated.kernels_cu)
        );
        insta::assert_snapshot!(
            format!("{name}.deterministic.gpu_host.c"),
            generated_part(&t.generated.gpu_host_c)
        );
    }
}

/// The MEX gateway (`<name>_mex.c`) of a real function (`saxpy`) and of one with complex
/// outputs and inputs of several shapes (`cpolar`): its input and output tables.
#[test]
fn mex_gateways() {
    for name in ["saxpy", "cpolar"] {
        let t = common::translate_fixture(name);
        insta::assert_snapshot!(format!("{name}.mex.c"), t.generated.mex_c);
    }
}
