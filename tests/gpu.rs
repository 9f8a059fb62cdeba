//! Every end-to-end fixture on the GPU backend must equal Octave's results, like the CPU path.
//! Needs a CUDA device; skips with a printed reason where there is none (CI never has one). On a
//! GPU machine without Rust, build this test with `cargo test --test gpu --no-run` and run the
//! binary from the repository root.

mod common;

use m2cu::Backend;

#[test]
fn gpu_path_matches_octave() {
    if let m2cu_runtime::GpuStatus::Unavailable(why) = m2cu_runtime::gpu_status() {
        eprintln!("skipping: no usable GPU: {why}");
        return;
    }
    let failures = common::mismatches_with_octave(Backend::Gpu);
    assert!(
        failures.is_empty(),
        "GPU results differ from Octave:\n{}",
        failures.join("\n")
    );
}
