//! The CUDA side without a GPU: every e2e fixture runs through the generated kernels emulated on
//! CPU threads (`--backend emu`: the same host program and launch logic as on a GPU) and must
//! equal what Octave computed, as the CPU path must: on the default device, on one
//! multiprocessor (grids smaller than the data), under a serialized schedule, and with every
//! threads-per-output forced on the per-output kernels (serialized both ways). The emulator itself is tested too: the
//! generated kernels with a shuffle one lane off, a shuffle mask short of a lane, a barrier
//! removed or a barrier made divergent must give a wrong answer or a launch error.

mod common;

use m2cu::{Backend, RunOptions, Translation, Value};
use m2cu_frontend::parser::parse_file;
use m2cu_runtime::{BuildOptions, EmuOptions, EmuProgram, Lanes, OutputSpec, Schedule};

fn emu(options: EmuOptions) -> RunOptions {
    RunOptions {
        backend: Backend::Emu,
        emu: options,
        ..Default::default()
    }
}

fn assert_e2e_match(names: &[String], options: EmuOptions) {
    let failures = common::mismatches_with_octave_on(names, &emu(options));
    assert!(
        failures.is_empty(),
        "mismatches with Octave on the emulated GPU ({options:?}):\n{}",
        failures.join("\n")
    );
}

#[test]
fn emulated_kernels_match_octave() {
    assert_e2e_match(&common::e2e_fixtures(), EmuOptions::default());
}

/// The largest-grid cap of one multiprocessor: 8 blocks of 256 threads.
const ONE_SM_THREADS: usize = 8 * 256;

/// On one multiprocessor the grid is at most 8 blocks, so inputs longer than 2048 elements
/// make every thread take several elements, and the fixtures' odd lengths (not multiples of a
/// warp) leave the last warp and block partly idle. The threads take turns from the last one
/// down (a serialized schedule is the fast one).
#[test]
fn emulated_kernels_match_octave_on_one_multiprocessor_in_reverse() {
    let names = common::e2e_fixtures();
    let lengths: Vec<usize> = names
        .iter()
        .flat_map(|n| common::inputs(n))
        .map(|(_, v)| v.numel())
        .collect();
    let covered = |what: &str, f: &dyn Fn(usize) -> bool| {
        assert!(
            lengths.iter().any(|&n| f(n)),
            "no e2e input is {what}: {lengths:?}"
        );
    };
    covered(
        "longer than one multiprocessor's grid and not a multiple of 32",
        &|n| n > ONE_SM_THREADS && n % 32 != 0,
    );
    covered("between 1 and 32 elements", &|n| n > 1 && n < 32);
    covered("just above a multiple of the block", &|n| n % 256 == 1);
    assert_e2e_match(
        &names,
        EmuOptions {
            sm_count: 1,
            schedule: Schedule::Reverse,
            ..Default::default()
        },
    );
}

/// Every generated kernel runs to the right answer when the threads of a block take turns in
/// order: no barrier or shuffle that a serialized schedule cannot get through, and no read
/// that relies on threads running at the same time.
#[test]
fn emulated_kernels_match_octave_in_order() {
    assert_e2e_match(
        &common::e2e_fixtures(),
        EmuOptions {
            schedule: Schedule::InOrder,
            ..Default::default()
        },
    );
}

/// A device without multiprocessors is a clear error, not a grid of no blocks.
#[test]
fn an_emulated_gpu_needs_a_multiprocessor() {
    let options = emu(EmuOptions {
        sm_count: 0,
        ..Default::default()
    });
    let name = "vecsum";
    let source = common::source(&common::e2e_path(name, ".m"));
    let error = m2cu::run(
        &source,
        &common::inputs(name),
        &m2cu::Options::default(),
        &options,
    )
    .expect_err("sm_count 0 was accepted")
    .to_string();
    assert_eq!(
        error,
        "the emulated GPU needs at least 1 multiprocessor, not 0"
    );
}

/// The e2e fixtures with a per-output kernel, with a thread, a warp and a block per output,
/// each under both serialized schedules: a missing barrier or a read that relies on threads
/// running together then gives a wrong answer every time, where the concurrent schedule (run on
/// the host's choice by `emulated_kernels_match_octave`) finds it only by chance, and takes far
/// longer to launch small kernels (fixture vecnorms: 0.6 s serialized, 49 s concurrent).
#[test]
fn per_output_kernels_match_octave_in_every_mode() {
    let names: Vec<String> = common::e2e_fixtures()
        .into_iter()
        .filter(|n| {
            let t = common::translate_fixture(n);
            t.generated
                .kernel_names
                .iter()
                .any(|k| k.ends_with("_lanes"))
        })
        .collect();
    assert!(names.len() >= 2, "per-output fixtures: {names:?}");
    for lanes in Lanes::ALL {
        for schedule in [Schedule::InOrder, Schedule::Reverse] {
            let options = EmuOptions {
                lanes: Some(lanes),
                schedule,
                ..Default::default()
            };
            assert_e2e_match(&names, options);
        }
    }
}

/// Builds translation `t` with `kernels` in place of its own kernels for the emulated GPU.
fn load_kernels(
    t: &Translation,
    kernels: &str,
    options: EmuOptions,
) -> m2cu_runtime::Result<EmuProgram> {
    let g = &t.generated;
    EmuProgram::load(
        kernels,
        &g.kernel_names,
        &g.gpu_host_c,
        &g.entry,
        &BuildOptions::default(),
        &options,
    )
}

/// Calls `program`, the build of translation `t`, on `inputs` (by parameter name).
fn call(
    program: &EmuProgram,
    t: &Translation,
    inputs: &[(String, Value)],
) -> m2cu_runtime::Result<Vec<Value>> {
    let ordered: Vec<Value> = t
        .params
        .iter()
        .map(|p| {
            let (_, v) = inputs.iter().find(|(n, _)| n == p).expect("input");
            v.clone()
        })
        .collect();
    let specs: Vec<OutputSpec> = t
        .outputs
        .iter()
        .map(|(n, c)| OutputSpec::new(n.clone(), *c))
        .collect();
    program.call(&ordered, &specs)
}

/// Runs translation `t` with `kernels` in place of its own kernels on the emulated GPU.
fn run_kernels(
    t: &Translation,
    kernels: &str,
    inputs: &[(String, Value)],
    options: EmuOptions,
) -> m2cu_runtime::Result<Vec<Value>> {
    call(&load_kernels(t, kernels, options)?, t, inputs)
}

/// e2e fixture `name` (translated as `t`) run with `kernels` in place of its own: how its
/// outputs differ from Octave's, and the outputs.
fn differences_with_kernels(
    name: &str,
    t: &Translation,
    kernels: &str,
    options: EmuOptions,
) -> (Vec<String>, Vec<(String, Value)>) {
    let actual = run_kernels(t, kernels, &common::inputs(name), options)
        .unwrap_or_else(|e| panic!("{name} ({options:?}): {e}"));
    let outputs: Vec<_> = t
        .outputs
        .iter()
        .map(|(n, _)| n.clone())
        .zip(actual)
        .collect();
    (
        common::output_differences(&common::expected(name), &outputs),
        outputs,
    )
}

/// `kernels` with `old` (which must be there) replaced by `new`.
fn edited(kernels: &str, old: &str, new: &str) -> String {
    assert!(kernels.contains(old), "the kernels contain `{old}`");
    kernels.replacen(old, new, 1)
}

/// The e2e fixture vecsum: its translation, inputs and Octave's sum.
fn vecsum() -> (Translation, Vec<(String, Value)>, Value) {
    let name = "vecsum";
    let expected = common::expected(name).remove(0).1;
    (
        common::translate_fixture(name),
        common::inputs(name),
        expected,
    )
}

const VECSUM_SHUFFLE: &str = "__shfl_down_sync(0xffffffffu, m2cu_v, m2cu_o)";

/// The emulator has teeth: the same program with its warp shuffles reading one lane too far
/// (each partial then counted twice or not at all) must give a wrong sum, while the generated
/// kernels give the right one.
#[test]
fn a_wrong_shuffle_offset_gives_a_wrong_answer() {
    let (t, inputs, expected) = vecsum();
    let kernels = &t.generated.kernels_cu;
    let broken = edited(
        kernels,
        VECSUM_SHUFFLE,
        "__shfl_down_sync(0xffffffffu, m2cu_v, m2cu_o + 1)",
    );
    let run = |kernels: &str| {
        run_kernels(&t, kernels, &inputs, EmuOptions::default())
            .unwrap_or_else(|e| panic!("vecsum on the emulated GPU: {e}"))
    };
    assert_eq!(common::difference(&expected, &run(kernels)[0]), None);
    assert!(
        common::difference(&expected, &run(&broken)[0]).is_some(),
        "a broken shuffle went unnoticed"
    );
}

/// A shuffle whose mask leaves out a lane of the warp fails the launch (in order, the first
/// warp's first lane is the first to notice).
#[test]
fn a_shuffle_mask_short_of_a_lane_fails_the_launch() {
    let (t, inputs, _) = vecsum();
    let broken = edited(
        &t.generated.kernels_cu,
        VECSUM_SHUFFLE,
        "__shfl_down_sync(0x7fffffffu, m2cu_v, m2cu_o)",
    );
    let in_order = EmuOptions {
        schedule: Schedule::InOrder,
        ..Default::default()
    };
    let error = run_kernels(&t, &broken, &inputs, in_order)
        .expect_err("a short mask went unnoticed")
        .to_string();
    let message =
        "block 0: __shfl_down_sync: mask 0x7fffffff leaves out lanes of warp 0, which has 32";
    assert!(error.contains(message), "{error}");
}

/// plan_colmax (an analysis fixture: one block per column of 2100 rows): its translation, its
/// inputs and what Octave computes from them; `None` without Octave.
fn colmax() -> Option<(Translation, common::runnable::Reference)> {
    if !common::require(common::octave_available(), "octave-cli") {
        return None;
    }
    let name = "plan_colmax";
    let path = common::root().join(format!("fixtures/analysis/{name}.m"));
    let source = common::source(&path);
    let options = m2cu::Options {
        file_name: format!("{name}.m"),
        ..Default::default()
    };
    let t = m2cu::translate(&source, &options).expect("translates");
    let decls = common::runnable::runnable_inputs(&parse_file(&source).expect("parses"))
        .expect("declared inputs");
    let outputs: Vec<String> = t.outputs.iter().map(|(n, _)| n.clone()).collect();
    let reference = common::runnable::octave_reference(name, &path, &decls, &outputs)
        .unwrap_or_else(|e| panic!("{name} in Octave: {e}"));
    Some((t, reference))
}

/// The block-per-output sum of plan_colmax: lane 0 of each warp stores the warp's partial, and
/// the barrier orders those stores before the first warp reads them all.
const COLMAX_PARTIALS: &str =
    "if ((threadIdx.x & 31) == 0) m2cu_gs1[threadIdx.x >> 5] = m2cu_v;\n                    __syncthreads();";
const COLMAX_PARTIALS_UNORDERED: &str =
    "if ((threadIdx.x & 31) == 0) m2cu_gs1[threadIdx.x >> 5] = m2cu_v;";

/// How often the broken kernel runs: a serialized schedule must give the same outputs each time.
const REPEATS: usize = 5;

/// The serialized schedule makes a missing barrier a deterministic wrong answer: without the
/// barrier between the warps' partial sums and the first warp reading them, in threadIdx order
/// warp 0 runs ahead, and its lanes 1–7 read their slots before warps 1–7 have written them
/// (the 0xff bytes every block starts with: NaN), with the same outputs on every run; the
/// generated kernels give the right answer under every schedule.
#[test]
fn a_missing_barrier_gives_a_wrong_answer_every_time_in_order() {
    let Some((t, reference)) = colmax() else {
        return;
    };
    let kernels = &t.generated.kernels_cu;
    let broken = edited(kernels, COLMAX_PARTIALS, COLMAX_PARTIALS_UNORDERED);
    let per_output = |lanes, schedule| EmuOptions {
        schedule,
        lanes: Some(lanes),
        ..Default::default()
    };
    let run = |kernels: &str, options: EmuOptions| {
        let actual = run_kernels(&t, kernels, &reference.inputs, options)
            .unwrap_or_else(|e| panic!("plan_colmax ({options:?}): {e}"));
        t.outputs
            .iter()
            .map(|(n, _)| n.clone())
            .zip(actual)
            .collect::<Vec<_>>()
    };
    let wrong = |kernels: &str, options| {
        common::output_differences(&reference.expected, &run(kernels, options))
    };
    for schedule in Schedule::ALL {
        let found = wrong(kernels, per_output(Lanes::Block, schedule));
        assert_eq!(found, Vec::<String>::new(), "{schedule:?}");
    }
    let first = run(&broken, per_output(Lanes::Block, Schedule::InOrder));
    let found = common::output_differences(&reference.expected, &first);
    assert!(
        found.iter().any(|w| w.starts_with("output `total`")),
        "the missing barrier went unnoticed: {found:?}"
    );
    for again in 2..=REPEATS {
        let outputs = run(&broken, per_output(Lanes::Block, Schedule::InOrder));
        // Debug text, so that NaNs compare equal.
        assert_eq!(format!("{outputs:?}"), format!("{first:?}"), "run {again}");
    }
    // A warp per output never reaches the block stage: the forced lanes reached the launch.
    let found = wrong(&broken, per_output(Lanes::Warp, Schedule::InOrder));
    assert_eq!(found, Vec::<String>::new());
}

/// The barrier after a stretch of a tiled matrix product (`codegen::cuda::tiles`): no thread
/// loads the next stretch's factors until every thread has added the last stretch's products.
const TILE_REUSE_BARRIER: &str =
    "__syncthreads(); /* the tiles are free again for the next stretch */";

/// Without the barrier that frees the tiles, in threadIdx order thread 0 adds its products and
/// then overwrites its slots with the next stretch's factors before threads 1-255 have read
/// them: fixture tiledprod's triple loop `C` (3 stretches of 16) comes out wrong, the same on
/// every run. The generated kernels are right under every schedule, and forcing a thread per
/// output leaves the broken tiled kernel unlaunched (the forced choice reached the launch).
#[test]
fn a_tiled_product_without_its_second_barrier_gives_a_wrong_answer_every_time() {
    assert_missing_barrier_found(MissingBarrier {
        fixture: "tiledprod",
        barrier: TILE_REUSE_BARRIER,
        replacement: "",
        lanes: Lanes::Tile,
        schedule: Schedule::InOrder,
        wrong_output: "C",
    });
}

/// A barrier left out of fixture `fixture`'s kernels (`barrier` replaced by `replacement`):
/// the generated kernels are right with `lanes` under every schedule; the broken ones give a
/// wrong `wrong_output` under `schedule`, the same on the next run, and a right answer with a
/// thread per output (the forced choice reached the launch, and the broken variant was not
/// launched).
struct MissingBarrier {
    fixture: &'static str,
    barrier: &'static str,
    replacement: &'static str,
    lanes: Lanes,
    schedule: Schedule,
    wrong_output: &'static str,
}

fn assert_missing_barrier_found(case: MissingBarrier) {
    let name = case.fixture;
    let t = common::translate_fixture(name);
    let broken = edited(&t.generated.kernels_cu, case.barrier, case.replacement);
    let run = |kernels: &str, lanes, schedule| {
        differences_with_kernels(
            name,
            &t,
            kernels,
            EmuOptions {
                schedule,
                lanes: Some(lanes),
                ..Default::default()
            },
        )
    };
    for schedule in Schedule::ALL {
        let (found, _) = run(&t.generated.kernels_cu, case.lanes, schedule);
        assert_eq!(found, Vec::<String>::new(), "{schedule:?}");
    }
    let (found, first) = run(&broken, case.lanes, case.schedule);
    let wrong = format!("output `{}`", case.wrong_output);
    assert!(
        found.iter().any(|w| w.starts_with(&wrong)),
        "the missing barrier went unnoticed: {found:?}"
    );
    let (_, again) = run(&broken, case.lanes, case.schedule);
    assert_eq!(format!("{again:?}"), format!("{first:?}"));
    let (found, _) = run(&broken, Lanes::Thread, case.schedule);
    assert_eq!(found, Vec::<String>::new());
}

/// The barrier of a scan (`codegen::cuda::scan`) after warp 0 has scanned the warps' totals:
/// no warp reads the total of the warps before it until then.
const SCAN_TOTALS_BARRIER: &str = "        __syncthreads();\n        if (m2cu_warp > 0) {";

/// Without the barrier after the scan of the warps' totals, when the threads take turns from
/// the last one down warp 7 reads the raw total of warp 6 instead of the total of warps 0-6:
/// fixture stepgoal's prefix sums (3001 elements, a parallel scan) come out wrong, the same on
/// every run. The generated kernels are right under every schedule, and forcing the scan into
/// one thread leaves the broken parallel path unused (the forced choice reached the launch).
#[test]
fn a_scan_without_its_totals_barrier_gives_a_wrong_answer_every_time() {
    assert_missing_barrier_found(MissingBarrier {
        fixture: "stepgoal",
        barrier: SCAN_TOTALS_BARRIER,
        replacement: "        if (m2cu_warp > 0) {",
        lanes: Lanes::Warp,
        schedule: Schedule::Reverse,
        wrong_output: "cumulative",
    });
}

/// A barrier that one thread skips is a deadlock, which a serialized schedule reports at once
/// (the concurrent one only after its timeout).
#[test]
fn a_divergent_barrier_is_a_deadlock_reported_at_once() {
    let Some((t, reference)) = colmax() else {
        return;
    };
    let divergent = edited(
        &t.generated.kernels_cu,
        COLMAX_PARTIALS,
        &COLMAX_PARTIALS.replace("__syncthreads();", "if (threadIdx.x != 7) __syncthreads();"),
    );
    let options = EmuOptions {
        schedule: Schedule::Reverse,
        lanes: Some(Lanes::Block),
        ..Default::default()
    };
    let program = load_kernels(&t, &divergent, options).expect("builds");
    let start = std::time::Instant::now();
    let error = call(&program, &t, &reference.inputs)
        .expect_err("a divergent barrier went unnoticed")
        .to_string();
    assert!(
        error.contains("block 0: deadlock: __syncthreads"),
        "{error}"
    );
    // The concurrent schedule would wait 20 s for the missing thread.
    assert!(start.elapsed().as_secs() < 10, "took {:?}", start.elapsed());
}

/// The merge `--deterministic` specifies for a reduction by `f` of `v` on a grid of `grid`
/// blocks of 256 threads: thread g folds v(g), v(g + stride), ... in order; a warp merges
/// lanes l and l + o for o = 16, 8, 4, 2, 1; warp 0 does the same over the block's eight warp
/// partials; the last block does it all again over the block slots. A partial without a value
/// (`None`: a thread past the data, a warp past the block) is skipped, as a custom reduction's
/// flag says; a sum's identity, 0, gives the same bits where no value is a zero.
fn ordered_tree(v: &[f64], grid: usize, f: impl Fn(f64, f64) -> f64) -> Option<f64> {
    const BLOCK: usize = 256;
    let merge = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, None) => a,
        (None, b) => b,
    };
    let warp_tree = |lanes: &mut [Option<f64>; 32]| {
        let mut o = 16;
        while o > 0 {
            for l in 0..32 - o {
                lanes[l] = merge(lanes[l], lanes[l + o]);
            }
            o /= 2;
        }
        lanes[0]
    };
    let block_tree = |threads: &[Option<f64>]| {
        let mut warps = [None; 32];
        for (w, chunk) in threads.chunks(32).enumerate() {
            let mut lanes = [None; 32];
            lanes.copy_from_slice(chunk);
            warps[w] = warp_tree(&mut lanes);
        }
        warp_tree(&mut warps)
    };
    let strided = |values: &[Option<f64>], first: usize, stride: usize| {
        values
            .iter()
            .skip(first)
            .step_by(stride)
            .fold(None, |a, &x| merge(a, x))
    };
    let values: Vec<Option<f64>> = v.iter().copied().map(Some).collect();
    let stride = grid * BLOCK;
    let slots: Vec<Option<f64>> = (0..grid)
        .map(|b| {
            let threads: Vec<Option<f64>> = (0..BLOCK)
                .map(|t| strided(&values, b * BLOCK + t, stride))
                .collect();
            block_tree(&threads)
        })
        .collect();
    let last: Vec<Option<f64>> = (0..BLOCK).map(|t| strided(&slots, t, BLOCK)).collect();
    block_tree(&last)
}

/// The sum `--deterministic` specifies for `s = 0; for i = 1:n, s = s + v(i); end`: the
/// ordered tree, added to `s` (0).
fn ordered_tree_sum(v: &[f64], grid: usize) -> f64 {
    0.0 + ordered_tree(v, grid, |a, b| a + b).unwrap_or(0.0)
}

/// Magnitudes from 1 to 2^40 and both signs, from a fixed seed, so that every order of
/// summation rounds differently.
fn wide_values(seed: u64) -> impl FnMut() -> f64 {
    let mut seed = seed;
    move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let x = (seed >> 11) as f64 / (1u64 << 53) as f64 - 0.3;
        x * f64::powi(2.0, (seed % 41) as i32)
    }
}

/// `--deterministic` sums are exactly the fixed tree above (so the same bits on every run),
/// for one block, a few blocks and a grid smaller than the data, under every schedule; the
/// default atomic merge is not that tree (the check can fail).
#[test]
fn deterministic_sums_follow_the_fixed_tree() {
    let source =
        "function s = f(v)\n  s = 0;\n  for i = 1:numel(v)\n    s = s + v(i);\n  end\nend\n";
    let mut next = wide_values(12345);
    let sms = 2;
    let mut atomic_differs = false;
    for n in [200usize, 3000, 100_003] {
        let v: Vec<f64> = (0..n).map(|_| next()).collect();
        let grid = n.div_ceil(256).min(8 * sms);
        let expected = ordered_tree_sum(&v, grid);
        let inputs = vec![("v".to_string(), Value::row(v))];
        for schedule in [Schedule::InOrder, Schedule::Reverse, Schedule::Concurrent] {
            let run_options = emu(EmuOptions {
                sm_count: sms as i32,
                schedule,
                ..Default::default()
            });
            let sum = |deterministic: bool| {
                let options = m2cu::Options {
                    deterministic,
                    ..Default::default()
                };
                let outputs = m2cu::run(source, &inputs, &options, &run_options)
                    .expect("the sum runs")
                    .outputs;
                outputs[0].1.as_slice::<f64>().expect("a double")[0]
            };
            assert_eq!(
                sum(true).to_bits(),
                expected.to_bits(),
                "n = {n}, {schedule:?}: {} against the tree's {expected}",
                sum(true)
            );
            atomic_differs |= sum(false).to_bits() != expected.to_bits();
        }
    }
    assert!(
        atomic_differs,
        "the atomic merge happened to give the tree's bits every time"
    );
}

/// A reduction's combining function, in Rust.
type Combiner = fn(f64, f64) -> f64;

/// Custom reductions through functions that round, `gpucoder.reduce(x, @hypot)` and
/// `gpucoder.reduce(x, @(a, b) a + b)` (lowered to `r = x(1)` and a loop over `x(2:n)`), under
/// `--deterministic` are exactly the ordered tree over `x(2:n)` combined into `x(1)`, whichever
/// order threads take turns in, for a few blocks and for a grid smaller than the data; the
/// default merge (a compare-and-swap loop per block, in finishing order) is not that tree (the
/// check can fail). On an H200, the `reducecaptures` fixture's `len` changed between two
/// `--deterministic` runs before custom reductions took the ordered merge.
#[test]
fn deterministic_custom_reductions_follow_the_fixed_tree() {
    let mut next = wide_values(987654321);
    let sms = 2;
    let mut default_differs = false;
    let add: Combiner = |a, b| a + b;
    for (function, f) in [("@hypot", f64::hypot as Combiner), ("@(a, b) a + b", add)] {
        let source =
            format!("function r = combined(x)\n  r = gpucoder.reduce(x, {function});\nend\n");
        for n in [3000usize, 100_003] {
            let x: Vec<f64> = (0..n).map(|_| next()).collect();
            let grid = (n - 1).div_ceil(256).min(8 * sms);
            let tree = ordered_tree(&x[1..], grid, f).expect("values");
            let expected = f(x[0], tree);
            let inputs = vec![("x".to_string(), Value::row(x))];
            for schedule in [Schedule::InOrder, Schedule::Reverse, Schedule::Concurrent] {
                let run = |deterministic: bool| {
                    let options = m2cu::Options {
                        deterministic,
                        ..Default::default()
                    };
                    let run_options = emu(EmuOptions {
                        sm_count: sms as i32,
                        schedule,
                        ..Default::default()
                    });
                    let outputs = m2cu::run(&source, &inputs, &options, &run_options)
                        .expect("the reduction runs")
                        .outputs;
                    outputs[0].1.as_slice::<f64>().expect("a double")[0]
                };
                let got = run(true);
                assert_eq!(
                    got.to_bits(),
                    expected.to_bits(),
                    "{function}, n = {n}, {schedule:?}: {got} against the tree's {expected}"
                );
                default_differs |= run(false).to_bits() != expected.to_bits();
            }
        }
    }
    assert!(
        default_differs,
        "the default merge happened to give the tree's bits every time"
    );
}

/// Every e2e fixture translated with `--deterministic` equals Octave on the emulated GPU with one
/// multiprocessor (grids of at most 8 blocks, smaller than the longer inputs).
#[test]
fn deterministic_fixtures_match_octave() {
    let options = m2cu::Options {
        deterministic: true,
        ..Default::default()
    };
    let run_options = emu(EmuOptions {
        sm_count: 1,
        schedule: Schedule::InOrder,
        ..Default::default()
    });
    let failures =
        common::mismatches_with_octave_translated(&common::e2e_fixtures(), &options, &run_options);
    assert!(
        failures.is_empty(),
        "mismatches with Octave under --deterministic:\n{}",
        failures.join("\n")
    );
}

/// Issue 18's residency: in a time loop that copies `unew = u` and `u = unew` around a kernel,
/// each array goes to the device once and `u` comes back once per call, however many steps
/// run: `unew = u` after the first step is made on the device, and `u = unew` is a swap of
/// storage (a move). Small values cross too: the
/// call's error word (up once, back after each launch, 4 bytes) and the residual (8 bytes up,
/// its start, and back).
#[test]
fn a_time_loop_moves_each_array_once() {
    let path = common::root().join("fixtures/analysis/plan_jacobi.m");
    let source = common::source(&path);
    let (m, n) = (40, 36);
    let grid = |k: usize| {
        let values = (0..m * n)
            .map(|e| ((e * 7 + k) % 13) as f64 / 8.0)
            .collect();
        Value::matrix(m, n, values).expect("a matrix")
    };
    let inputs = |steps: f64| {
        vec![
            ("u".to_string(), grid(1)),
            ("f".to_string(), grid(2)),
            ("steps".to_string(), Value::scalar(steps)),
        ]
    };
    let options = m2cu::Options {
        file_name: "plan_jacobi.m".into(),
        ..Default::default()
    };
    let run = emu(EmuOptions::default());
    let program = m2cu::Program::prepare(&source, &inputs(1.0), &options, &run).expect("prepares");
    let array = (m * n * 8) as u64;
    let mut seen = Vec::new();
    for steps in [3u64, 12] {
        let (_, timing) = program.call_timed(&inputs(steps as f64)).expect("runs");
        let t = timing.transfers.expect("the emulator counts copies");
        // `u`, `f` and `unew` (made on the host from `u` in the first step), the error word
        // and the residual's start.
        assert_eq!(t.to_device.count, 5, "{steps} steps: {t}");
        assert_eq!(t.to_device.bytes, 3 * array + 4 + 8, "{steps} steps: {t}");
        // `u` and the residual once, the error word after each launch (a sweep per step and
        // the residual's).
        let launches = steps + 1;
        assert_eq!(t.to_host.count, 2 + launches, "{steps} steps: {t}");
        assert_eq!(
            t.to_host.bytes,
            array + 8 + 4 * launches,
            "{steps} steps: {t}"
        );
        // `unew = u` in every step after the first; `u = unew` swaps the two arrays' storage
        // (nothing reads `unew`'s value after it), so it copies nothing.
        assert_eq!(t.on_device.count, steps - 1, "{steps} steps: {t}");
        assert_eq!(t.on_device.bytes, (steps - 1) * array, "{steps} steps: {t}");
        seen.push(t.to_device);
    }
    assert_eq!(seen[0], seen[1]);
}

/// Host code between kernels that reads two elements of device arrays and stores one (a
/// convergence test on `v(2) - u(2)`, a boundary value `u(1) = 0`) moves those elements alone:
/// after the first step, each step sends 8 bytes up and brings 16 bytes (and the error word's
/// 4) back, where it moved the arrays before.
#[test]
fn host_code_moves_single_elements_alone() {
    let source = "function u = relax(u, steps)\nfor s = 1:steps\n  v = u;\n  for i = 2:numel(u) - 1\n    v(i) = 0.5 * (u(i - 1) + u(i + 1));\n  end\n  if abs(v(2) - u(2)) < 1e-300\n    break;\n  end\n  u = v;\n  u(1) = 0;\nend\nend\n";
    let n = 202;
    let values = (0..n).map(|e| ((e * e) % 7) as f64 / 4.0).collect();
    let u = Value::matrix(1, n, values).expect("a row");
    let inputs = |steps: f64| {
        vec![
            ("u".to_string(), u.clone()),
            ("steps".to_string(), Value::scalar(steps)),
        ]
    };
    let options = m2cu::Options {
        file_name: "relax.m".into(),
        ..Default::default()
    };
    let run = emu(EmuOptions::default());
    let program = m2cu::Program::prepare(source, &inputs(1.0), &options, &run).expect("prepares");
    let (cpu, _) =
        m2cu::Program::prepare(source, &inputs(1.0), &options, &common::on(Backend::Cpu))
            .expect("prepares")
            .call_timed(&inputs(7.0))
            .expect("runs");
    let array = (n * 8) as u64;
    for steps in [3u64, 7] {
        let (outputs, timing) = program.call_timed(&inputs(steps as f64)).expect("runs");
        if steps == 7 {
            assert_eq!(
                outputs, cpu,
                "the emulated GPU computes what the CPU path does"
            );
        }
        let t = timing.transfers.expect("the emulator counts copies");
        // `u` and `v` (made on the host from `u` in the first step), the error word, and the
        // element `u(1)` in every step.
        assert_eq!(t.to_device.count, 3 + steps, "{steps} steps: {t}");
        assert_eq!(
            t.to_device.bytes,
            2 * array + 4 + 8 * steps,
            "{steps} steps: {t}"
        );
        // `v(2)` and `u(2)` and the error word in every step (but `u(2)` in the first, whose
        // host copy is still current), `u` at the end.
        assert_eq!(t.to_host.count, 3 * steps, "{steps} steps: {t}");
        assert_eq!(
            t.to_host.bytes,
            steps * (16 + 4) - 8 + array,
            "{steps} steps: {t}"
        );
    }
}
