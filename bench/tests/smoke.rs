//! The benchmark end to end at small sizes: every workload passes the correctness guard at
//! N = 2^10 and 2^11, the table has one row per workload and size, GPU cells (the call and its
//! kernels) say `no device` without a GPU, and the Octave column is filled for one small
//! workload when Octave is there (required under `CI=true`, else skipped with a printed reason).

use m2cu_bench::{Cell, Config, Workload};
use m2cu_runtime::GpuStatus;

fn small(workloads: Vec<Workload>, octave_max_log2: Option<u32>) -> Config {
    Config {
        min_log2: 10,
        max_log2: 11,
        runs: 3,
        octave_max_log2,
        cpu_max_log2: Some(10),
        workloads,
        command: "smoke test".to_string(),
    }
}

#[test]
fn every_workload_passes_the_guard_and_gets_a_row_per_size() {
    let report = m2cu_bench::run(&small(Workload::ALL.to_vec(), None)).expect("the bench runs");
    let measured: Vec<(Workload, u32)> = report.rows.iter().map(|r| (r.workload, r.log2)).collect();
    let expected: Vec<(Workload, u32)> = Workload::ALL
        .iter()
        .flat_map(|&w| [(w, 10), (w, 11)])
        .collect();
    assert_eq!(measured, expected);
    let has_gpu = matches!(m2cu_runtime::gpu_status(), GpuStatus::Available { .. });
    for row in &report.rows {
        let tolerance = match row.workload.tolerance() {
            m2cu_bench::guard::Tolerance::Exact => 0.0,
            m2cu_bench::guard::Tolerance::Relative(r) => r,
        };
        assert!(row.difference <= tolerance, "{row:?}");
        // The C columns are timed up to 2^10 (`cpu_max_log2`); 2^11 is checked, not timed.
        for cell in [row.m2cu_ms, row.hand_ms] {
            if row.log2 <= 10 {
                assert!(matches!(cell, Cell::Ms(ms) if ms > 0.0), "{row:?}");
            } else {
                assert_eq!(cell, Cell::NotRun, "{row:?}");
            }
        }
        assert_eq!(row.octave, Cell::NotRun, "{row:?}");
        for cell in [row.gpu, row.gpu_kernels] {
            if has_gpu {
                assert!(matches!(cell, Cell::Ms(ms) if ms > 0.0), "{row:?}");
            } else {
                assert_eq!(cell, Cell::NoDevice, "{row:?}");
            }
        }
    }
    let table = report.markdown();
    let lines: Vec<&str> = table.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(lines.len(), 1 + expected.len(), "{table}");
    if !has_gpu {
        assert!(
            lines[1..].iter().all(|l| l.ends_with("| no device |")),
            "{table}"
        );
        assert!(table.contains("- GPU: no device ("), "{table}");
    }
}

#[test]
fn octave_times_a_small_workload() {
    let probe = m2cu_bench::octave::available().map(drop);
    match probe {
        Ok(()) => {}
        Err(why) if std::env::var("CI").is_ok_and(|v| v == "true") => {
            panic!("octave-cli is required under CI=true: {why}")
        }
        Err(why) => {
            eprintln!("skipping octave_times_a_small_workload: {why}");
            return;
        }
    }
    let config = Config {
        max_log2: 10,
        ..small(vec![Workload::MinLoc], Some(10))
    };
    let report = m2cu_bench::run(&config).expect("the bench runs");
    assert_eq!(report.rows.len(), 1);
    assert!(
        matches!(report.rows[0].octave, Cell::Ms(ms) if ms > 0.0),
        "{:?}\n{}",
        report.rows[0],
        report.markdown()
    );
    assert!(report
        .header
        .iter()
        .any(|l| l.starts_with("Octave: GNU Octave")));
}

#[test]
fn bad_configurations_are_messages() {
    let config = Config {
        runs: 0,
        ..Config::default()
    };
    assert_eq!(
        m2cu_bench::run(&config).unwrap_err(),
        "--runs must be at least 1"
    );
    assert!(Workload::from_name("sums")
        .unwrap_err()
        .contains("sum, max, minloc, count, histogram, saxpy"));
}
