//! The CUDA side without a GPU: every e2e fixture runs through the generated kernels emulated on
//! CPU threads (`--backend emu`: the same host program and launch logic as on a GPU) and must
//! equal what Octave computed, as the CPU path must.

mod common;

use m2cu::Backend;

#[test]
fn emulated_kernels_match_octave() {
    let failures = common::mismatches_with_octave(Backend::Emu);
    assert!(
        failures.is_empty(),
        "mismatches with Octave on the emulated GPU:\n{}",
        failures.join("\n")
    );
}
