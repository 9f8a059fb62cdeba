//! The GPU backend against references stored or computed without Octave, so that it runs on a
//! GPU machine without Rust or Octave: every e2e fixture equals Octave's stored `.out.mat`; every
//! analysis fixture equals the CPU path on the same inputs (the CPU path equals Octave there, in
//! `tests/analysis_fixtures.rs`); `--deterministic` gives the same bits twice and Octave's
//! values; `Program::call_timed` returns the outputs of `call` and a kernel time.
//!
//! Needs a CUDA device; skips with a printed reason where there is none (CI never has one). On a
//! GPU machine without Rust, `bench/gpu/pack.sh` builds this binary here and `bench/gpu/run.sh`
//! runs it there with `M2CU_REPO_ROOT` set to the copied repository (see `common::root`).

mod common;

use m2cu::{Backend, Options, Program, Value};
use m2cu_runtime::Data;

/// Whether the GPU is usable; prints why not.
fn gpu() -> bool {
    match m2cu_runtime::gpu_status() {
        m2cu_runtime::GpuStatus::Available { .. } => true,
        m2cu_runtime::GpuStatus::Unavailable(why) => {
            eprintln!("skipping: no usable GPU: {why}");
            false
        }
    }
}

#[test]
fn gpu_path_matches_octave() {
    if !gpu() {
        return;
    }
    let run_options = common::on(Backend::Gpu);
    let failures = per_fixture(&common::e2e_fixtures(), |name| {
        common::mismatches_of(
            name,
            &Options::default(),
            &run_options,
            common::gpu_comparison(name),
        )
    });
    assert!(
        failures.is_empty(),
        "GPU results differ from Octave:\n{}",
        failures.join("\n")
    );
}

#[test]
fn analysis_fixtures_on_the_gpu_match_the_cpu_path() {
    if !gpu() {
        return;
    }
    let failures = per_fixture(&common::analysis_fixtures(), |path| {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let source = common::source(path);
        let file = m2cu_frontend::parser::parse_file(&source).expect("parses");
        let decls = common::runnable::runnable_inputs(&file)
            .unwrap_or_else(|| panic!("{name}: declare every input with a class and a fixed size"));
        let inputs: Vec<(String, Value)> = decls
            .iter()
            .enumerate()
            .map(|(k, d)| (d.name.name.clone(), common::runnable::input_value(d, k)))
            .collect();
        let options = Options {
            file_name: format!("{name}.m"),
            ..Default::default()
        };
        let run = |backend| {
            m2cu::run(&source, &inputs, &options, &common::on(backend))
                .unwrap_or_else(|e| panic!("{name} on {backend:?}: {e}"))
                .outputs
        };
        let (cpu, gpu) = (run(Backend::Cpu), run(Backend::Gpu));
        common::output_differences(&cpu, &gpu)
            .into_iter()
            .map(|why| format!("{name}: {why} (the CPU path's value, not Octave's)"))
            .collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn deterministic_runs_repeat_their_bits_and_match_octave() {
    if !gpu() {
        return;
    }
    let options = Options {
        deterministic: true,
        ..Default::default()
    };
    let run_options = common::on(Backend::Gpu);
    let failures = per_fixture(&common::e2e_fixtures(), |name| {
        let first = common::run_fixture_translated(name, &options, &run_options);
        let second = common::run_fixture_translated(name, &options, &run_options);
        let changed = first
            .iter()
            .zip(&second)
            .filter(|((_, a), (_, b))| !same_bits(a, b))
            .map(|((out, _), _)| format!("{name}: output `{out}` changed between two runs"));
        let unlike_octave = common::mismatches_in(name, &first, common::gpu_comparison(name));
        changed.chain(unlike_octave).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// [`common::failures_in_parallel`] over fixtures (names or paths), saying which took longer
/// than a few seconds: a GPU machine's run has a time budget.
fn per_fixture<T: Sync + std::fmt::Debug>(
    fixtures: &[T],
    check: impl Fn(&T) -> Vec<String> + Sync,
) -> Vec<String> {
    common::failures_in_parallel(
        fixtures,
        |f| format!("{f:?}"),
        |f| {
            let start = std::time::Instant::now();
            let failures = check(f);
            if start.elapsed().as_secs_f64() > 3.0 {
                eprintln!(
                    "slow fixture: {f:?}: {:.1} s",
                    start.elapsed().as_secs_f64()
                );
            }
            failures
        },
    )
}

#[test]
fn timed_calls_return_the_outputs_and_a_kernel_time() {
    if !gpu() {
        return;
    }
    let name = "vecsum";
    let inputs = common::inputs(name);
    let options = common::fixture_options(name);
    let path = common::e2e_path(name, ".m");
    let program = Program::prepare(
        &common::source(&path),
        &inputs,
        &options,
        &common::on(Backend::Gpu),
    )
    .expect("prepares");
    let (outputs, timing) = program.call_timed(&inputs).expect("runs");
    assert_eq!(outputs, program.call(&inputs).expect("runs"));
    let kernels = timing.kernels.expect("the GPU backend times its kernels");
    assert!(
        kernels > std::time::Duration::ZERO && kernels <= timing.total,
        "{timing:?}"
    );
}

/// Equal classes, sizes and bits (NaN payloads and signed zeros included).
fn same_bits(a: &Value, b: &Value) -> bool {
    match (&a.data, &b.data) {
        (Data::Double(x), Data::Double(y)) => {
            a.dims == b.dims
                && x.iter()
                    .map(|e| e.to_bits())
                    .eq(y.iter().map(|e| e.to_bits()))
        }
        (Data::Single(x), Data::Single(y)) => {
            a.dims == b.dims
                && x.iter()
                    .map(|e| e.to_bits())
                    .eq(y.iter().map(|e| e.to_bits()))
        }
        _ => a == b,
    }
}
