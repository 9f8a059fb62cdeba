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
use crate::guard::{self, Tolerance};
use crate::handwritten::{HandWritten, Level};
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
    let hand = Baselines {
        plain: HandWritten::build(Level::Plain)?,
        tuned: HandWritten::build(Level::Tuned)?,
    };
    let octave = octave_version(config);
    if let Err(why) = &octave {
        eprintln!("m2cu-bench: Octave {why}");
    }
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    for &workload in &config.workloads {
        let start = Instant::now();
        let prepare = |n| Translated::prepare(workload, n, machine.has_gpu());
        let once = match workload.specimen_elements() {
            Some(_) => Some(prepare(0)?),
            None => None,
        };
        let mut timers = match octave {
            Ok(_) => Some((
                OctaveTimer::of_loop(workload)?,
                OctaveTimer::of_builtin(workload)?,
            )),
            Err(_) => None,
        };
        let first = rows.len();
        let mut params = (Vec::new(), 0);
        for log2 in config.sizes() {
            let inputs = workload.inputs(1 << log2);
            let per_size;
            let translated = match &once {
                Some(t) => t,
                None => {
                    per_size = prepare(1 << log2)?;
                    &per_size
                }
            };
            params = (translated.params().to_vec(), translated.output_count());
            rows.push(measure(config, &hand, translated, workload, log2, &inputs)?);
            if let Some((looped, builtin)) = timers.as_mut() {
                if config.times_octave(log2) {
                    looped.add(log2, &inputs)?;
                }
                if config.times_cpu(log2) {
                    builtin.add(log2, &inputs)?;
                }
            }
        }
        let octave_start = Instant::now();
        for (timer, column) in timers
            .into_iter()
            .flat_map(|(l, b)| [(l, Octave::Loop), (b, Octave::Builtin)])
        {
            if timer.is_empty() {
                continue;
            }
            match timer.run(&params.0, params.1, config.runs) {
                Ok(times) => {
                    for row in &mut rows[first..] {
                        if let Some(&ms) = times.get(&row.log2) {
                            *column.cell(row) = Cell::Ms(ms);
                        }
                    }
                }
                Err(why) => {
                    eprintln!("m2cu-bench: {why}");
                    notes.push(format!(
                        "Octave {} column of {} empty: {why}",
                        column.name(),
                        workload.name()
                    ));
                }
            }
        }
        eprintln!(
            "m2cu-bench: {}: {} sizes in {:.1} s, Octave {:.1} s of it",
            workload.name(),
            rows.len() - first,
            start.elapsed().as_secs_f64(),
            octave_start.elapsed().as_secs_f64(),
        );
    }
    Ok(Report {
        header: header(config, &machine, &octave),
        rows,
        notes: column_notes(config).into_iter().chain(notes).collect(),
    })
}

/// The two builds of the hand-written C.
struct Baselines {
    plain: HandWritten,
    tuned: HandWritten,
}

/// Which Octave column a timer fills.
#[derive(Clone, Copy)]
enum Octave {
    Loop,
    Builtin,
}

impl Octave {
    fn cell(self, row: &mut Row) -> &mut Cell {
        match self {
            Octave::Loop => &mut row.octave,
            Octave::Builtin => &mut row.octave_builtin,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Octave::Loop => "loop",
            Octave::Builtin => "builtin",
        }
    }
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
    hand: &Baselines,
    translated: &Translated,
    workload: Workload,
    log2: u32,
    inputs: &[(String, Value)],
) -> Result<Row, String> {
    let what = |path: &str| format!("{} at N = 2^{log2} ({path})", workload.name());
    let mut baseline = hand.plain.call(workload, inputs)?;
    baseline.run();
    let want = baseline.outputs();
    let difference = translated.check(
        what,
        inputs,
        "the hand-written C",
        &want,
        workload.tolerance(),
    )?;
    let mut tuned = hand.tuned.call(workload, inputs)?;
    tuned.run();
    let named: Vec<(String, Value)> = (1..)
        .map(|k| format!("output {k}"))
        .zip(tuned.outputs())
        .collect();
    guard::compare_to(
        &what("hand-written C at -O3 -march=native"),
        "the hand-written C at -O2",
        &named,
        &want,
        Tolerance::Exact,
    )?;
    let (m2cu_ms, hand_ms, hand_tuned_ms) = if config.times_cpu(log2) {
        let m2cu_ms = translated.time_cpu(&what("m2cu C"), inputs, config.runs)?;
        let time = |call: &mut crate::handwritten::Call| {
            median_ms::<String>(config.runs, || {
                call.run();
                Ok(())
            })
            .map(Cell::Ms)
        };
        (Cell::Ms(m2cu_ms), time(&mut baseline)?, time(&mut tuned)?)
    } else {
        (Cell::NotRun, Cell::NotRun, Cell::NotRun)
    };
    let (gpu, gpu_kernels) = translated.time_gpu(&what("m2cu GPU"), inputs, config.runs)?;
    Ok(Row {
        workload,
        log2,
        bytes: workload.bytes(1 << log2),
        m2cu_ms,
        hand_ms,
        hand_tuned_ms,
        difference,
        octave: Cell::NotRun,
        octave_builtin: Cell::NotRun,
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
         call's own work: the inputs are put in parameter order and the outputs copied back \
         into values, except saxpy's `y`, updated in the memory of a copy of the inputs that \
         each call is given (made before the clock starts). hand C: `bench/src/handwritten.c`, one sequential loop per workload \
         (`cc -std=c99 -O2 -ffp-contract=off`), in place for saxpy; hand -O3 native: the same \
         C at `-O3 -march=native`, whose results must equal the -O2 build's. Ratios above 1: \
         m2cu is faster."
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
            "Octave loop ms: the same `.m` function in Octave's interpreter, timed with tic/toc \
             inside Octave; — beyond the Octave size limit. Octave builtin ms: the builtin a \
             MATLAB user would call instead (`bench/workloads/builtin_<name>.m`: sum, max, min \
             with index, nnz(x > t), accumarray, a*x + y, sum(A, 2), cumsum, a vectorized \
             stencil step), timed the same way at every size the C columns are; builtin/m2cu \
             above 1: m2cu is faster."
                .to_string(),
        );
    }
    notes
}
