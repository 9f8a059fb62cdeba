//! One benchmark run. Per workload: m2cu's programs are prepared once; per size, the inputs are
//! made, the correctness guard compares m2cu's results (C path, and GPU when there is one) with
//! the hand-written C's, then each column is timed; Octave times all of the workload's sizes in
//! one session after the others.
//!
//! Invariants: nothing is timed before its results passed the guard, and a failed guard ends
//! the run with the guard's message; progress goes to stderr, one line per workload with its
//! elapsed time; a missing or failing Octave leaves its cells `—` and says why in the report.

use std::time::Instant;

use m2cu::Value;

use crate::config::Config;
use crate::handwritten::HandWritten;
use crate::machine::Machine;
use crate::octave::{self, OctaveTimer};
use crate::report::{Cell, Report, Row};
use crate::timing::{median_ms, WARMUP_RUNS};
use crate::translated::Translated;
use crate::workloads::Workload;

/// Runs the benchmark `config` describes and returns its report.
pub fn run(config: &Config) -> Result<Report, String> {
    config.validate()?;
    let machine = Machine::probe();
    let hand = HandWritten::build()?;
    let octave = octave_version(config);
    if let Err(why) = &octave {
        eprintln!("m2cu-bench: Octave {why}");
    }
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for &workload in &config.workloads {
        let start = Instant::now();
        let translated = Translated::prepare(workload, machine.has_gpu())?;
        let mut timer = match octave {
            Ok(_) => Some(OctaveTimer::new(workload)?),
            Err(_) => None,
        };
        let first = rows.len();
        for log2 in config.sizes() {
            let inputs = workload.inputs(1 << log2);
            rows.push(measure(
                config,
                &hand,
                &translated,
                workload,
                log2,
                &inputs,
            )?);
            if let Some(timer) = timer.as_mut().filter(|_| config.times_octave(log2)) {
                timer.add(log2, &inputs)?;
            }
        }
        let mut octave_time = String::new();
        if let Some(timer) = timer.filter(|t| !t.is_empty()) {
            let octave_start = Instant::now();
            match timer.run(translated.params(), translated.output_count(), config.runs) {
                Ok(times) => {
                    for row in &mut rows[first..] {
                        if let Some(&ms) = times.get(&row.log2) {
                            row.octave = Cell::Ms(ms);
                        }
                    }
                }
                Err(why) => {
                    eprintln!("m2cu-bench: {why}");
                    notes.push(format!("Octave column of {} empty: {why}", workload.name()));
                }
            }
            octave_time = format!(
                ", Octave {:.1} s of it",
                octave_start.elapsed().as_secs_f64()
            );
        }
        eprintln!(
            "m2cu-bench: {}: {} sizes in {:.1} s{octave_time}",
            workload.name(),
            rows.len() - first,
            start.elapsed().as_secs_f64(),
        );
    }
    Ok(Report {
        header: header(config, &machine, &octave),
        rows,
        notes: column_notes(config).into_iter().chain(notes).collect(),
    })
}

/// Octave's version and size limit, or why its column stays empty.
fn octave_version(config: &Config) -> Result<String, String> {
    match config.octave_max_log2 {
        None => Err("not timed (turned off)".to_string()),
        Some(max) => octave::available()
            .map(|version| format!("{version}, N up to 2^{max}"))
            .map_err(|why| format!("not timed: {why}")),
    }
}

/// Checks and times one workload at one size.
fn measure(
    config: &Config,
    hand: &HandWritten,
    translated: &Translated,
    workload: Workload,
    log2: u32,
    inputs: &[(String, Value)],
) -> Result<Row, String> {
    let what = |path: &str| format!("{} at N = 2^{log2} ({path})", workload.name());
    let mut baseline = hand.call(workload, inputs)?;
    baseline.run();
    let want = baseline.outputs();
    let difference = translated.check(
        what,
        inputs,
        "the hand-written C",
        &want,
        workload.tolerance(),
    )?;
    let (m2cu_ms, hand_ms) = if config.times_cpu(log2) {
        let m2cu_ms = translated.time_cpu(&what("m2cu C"), inputs, config.runs)?;
        let hand_ms = median_ms::<String>(config.runs, || {
            baseline.run();
            Ok(())
        })?;
        (Cell::Ms(m2cu_ms), Cell::Ms(hand_ms))
    } else {
        (Cell::NotRun, Cell::NotRun)
    };
    let (gpu, gpu_kernels) = translated.time_gpu(&what("m2cu GPU"), inputs, config.runs)?;
    Ok(Row {
        workload,
        log2,
        bytes: workload.bytes(1 << log2),
        m2cu_ms,
        hand_ms,
        difference,
        octave: Cell::NotRun,
        gpu,
        gpu_kernels,
    })
}

fn header(config: &Config, machine: &Machine, octave: &Result<String, String>) -> Vec<String> {
    let mut lines = machine.header(&config.command);
    lines.push(match octave {
        Ok(version) | Err(version) => format!("Octave: {version}"),
    });
    lines.push(format!(
        "protocol: median of {} timed runs after {WARMUP_RUNS} warm-up runs per cell; \
         inputs: uniform doubles in [0, 1) (histogram: uniform uint8), the same for every column",
        config.runs
    ));
    lines
}

/// What the columns mean.
fn column_notes(config: &Config) -> Vec<String> {
    let mut notes = vec![
        "GB/s: the bytes one call must move (every input element read once, every output \
         element written once) over the median time."
            .to_string(),
        "m2cu C: `m2cu::Program::call` on the C path (the generated C/OpenMP), including the \
         call's own work: the inputs are copied into parameter order and the outputs copied \
         back into values. hand C: `bench/src/handwritten.c`, one sequential loop per workload \
         (`cc -std=c99 -O2 -ffp-contract=off`), in place for saxpy. hand/m2cu above 1: m2cu \
         is faster."
            .to_string(),
        "max rel. diff: the largest relative difference of m2cu's C results from the \
         hand-written C's; all must be equal except the sum (OpenMP adds in another order), \
         which may differ by 1e-12 relative. GPU results pass the same check."
            .to_string(),
        "GPU call incl. transfers: `Program::call` with the GPU backend (uploads, kernels, \
         downloads). GPU kernels: `Program::call_timed`'s kernel time, CUDA events around each \
         launch of the call (kernels and merges; the call's uploads and downloads are not in \
         it), summed per call; \
         `bench/gpu/run.sh` sets it beside CuPy and a device-to-device copy."
            .to_string(),
    ];
    if config.octave_max_log2.is_some() {
        notes.push(
            "Octave ms: the same `.m` function in Octave's interpreter, timed with tic/toc \
             inside Octave; — beyond the Octave size limit."
                .to_string(),
        );
    }
    notes
}
