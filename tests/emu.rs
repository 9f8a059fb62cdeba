//! The CUDA side without a GPU: every e2e fixture runs through the generated kernels emulated on
//! CPU threads (`--backend emu`: the same host program and launch logic as on a GPU) and must
//! equal what Octave computed, as the CPU path must.

mod common;

use m2cu::{Backend, Value};
use m2cu_runtime::{BuildOptions, EmuOptions, EmuProgram, OutputSpec};

#[test]
fn emulated_kernels_match_octave() {
    let failures = common::mismatches_with_octave(Backend::Emu);
    assert!(
        failures.is_empty(),
        "mismatches with Octave on the emulated GPU:\n{}",
        failures.join("\n")
    );
}

/// The emulator has teeth: the same program with its warp shuffles reading one lane too far
/// (each partial then counted twice or not at all) must give a wrong sum, while the generated
/// kernels give the right one.
#[test]
fn a_wrong_shuffle_offset_gives_a_wrong_answer() {
    let name = "vecsum";
    let t = common::translate_fixture(name);
    let g = &t.generated;
    let shuffle = "__shfl_down_sync(0xffffffffu, m2cu_v, m2cu_o)";
    assert!(g.kernels_cu.contains(shuffle), "vecsum's kernel shuffles");
    let broken = g
        .kernels_cu
        .replace(shuffle, "__shfl_down_sync(0xffffffffu, m2cu_v, m2cu_o + 1)");
    let inputs = common::inputs(name);
    let ordered: Vec<Value> = t
        .params
        .iter()
        .map(|p| {
            inputs
                .iter()
                .find(|(n, _)| n == p)
                .expect("input")
                .1
                .clone()
        })
        .collect();
    let specs: Vec<OutputSpec> = t
        .outputs
        .iter()
        .map(|(n, c)| OutputSpec::new(n.clone(), *c))
        .collect();
    let run = |kernels: &str| {
        EmuProgram::load(
            kernels,
            &g.kernel_names,
            &g.gpu_host_c,
            &g.entry,
            &BuildOptions::default(),
            &EmuOptions::default(),
        )
        .and_then(|p| p.call(&ordered, &specs))
        .unwrap_or_else(|e| panic!("{name} on the emulated GPU: {e}"))
    };
    let expected = &common::expected(name)[0].1;
    assert_eq!(common::difference(expected, &run(&g.kernels_cu)[0]), None);
    assert!(
        common::difference(expected, &run(&broken)[0]).is_some(),
        "a broken shuffle went unnoticed"
    );
}
