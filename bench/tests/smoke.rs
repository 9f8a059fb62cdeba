//! The benchmark end to end at small sizes: every workload passes the correctness guard at
//! N = 2^10 and 2^11, the table has one row per workload and size, GPU cells (the call and its
//! kernels) say `no device` without a GPU, and the Octave columns (the loop and the builtin)
//! are filled for one small workload when Octave is there (required under `CI=true`, else skipped with a printed reason).
//! The matrix products (`--matmul`) pass their guard at n = 40 and 70 against the system BLAS
//! when one loads (else the BLAS cells say `no BLAS`, with a printed reason), and against the
//! in-order product when the named BLAS does not load.

use m2cu_bench::blas::Blas;
use m2cu_bench::matmul::{self, Product};
use m2cu_bench::{Cell, Config, Workload};
use m2cu_runtime::GpuStatus;

fn has_gpu() -> bool {
    matches!(m2cu_runtime::gpu_status(), GpuStatus::Available { .. })
}

/// A row's GPU cells (the call and its kernels): timed on a GPU, else `no device`.
fn assert_gpu_cells(cells: [Cell; 2], has_gpu: bool, row: &impl std::fmt::Debug) {
    for cell in cells {
        if has_gpu {
            assert!(matches!(cell, Cell::Ms(ms) if ms > 0.0), "{row:?}");
        } else {
            assert_eq!(cell, Cell::NoDevice, "{row:?}");
        }
    }
}

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
    let has_gpu = has_gpu();
    for row in &report.rows {
        let tolerance = match row.workload.tolerance() {
            m2cu_bench::guard::Tolerance::Exact => 0.0,
            m2cu_bench::guard::Tolerance::Relative(r)
            | m2cu_bench::guard::Tolerance::OfLargest(r) => r,
        };
        assert!(row.difference <= tolerance, "{row:?}");
        // The C columns are timed up to 2^10 (`cpu_max_log2`); 2^11 is checked, not timed.
        for cell in [row.m2cu_ms, row.hand_ms, row.hand_tuned_ms] {
            if row.log2 <= 10 {
                assert!(matches!(cell, Cell::Ms(ms) if ms > 0.0), "{row:?}");
            } else {
                assert_eq!(cell, Cell::NotRun, "{row:?}");
            }
        }
        assert_eq!(row.octave, Cell::NotRun, "{row:?}");
        assert_eq!(row.octave_builtin, Cell::NotRun, "{row:?}");
        assert_gpu_cells([row.gpu, row.gpu_kernels], has_gpu, row);
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
    for cell in [report.rows[0].octave, report.rows[0].octave_builtin] {
        assert!(
            matches!(cell, Cell::Ms(ms) if ms > 0.0),
            "{:?}\n{}",
            report.rows[0],
            report.markdown()
        );
    }
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

fn tiny_matmul(blas: Option<&str>) -> matmul::Config {
    matmul::Config {
        sizes: vec![40, 70],
        runs: 1,
        blas: blas.map(str::to_string),
        command: "smoke test".to_string(),
    }
}

/// Checks `report`'s rows: both products at n = 40 and 70, guard passed, m2cu's C timed, the
/// BLAS timed exactly when `blas_loads`, GPU cells per the machine.
fn check_matmul_rows(report: &matmul::Report, blas_loads: bool) {
    let rows: Vec<(Product, usize)> = report.rows.iter().map(|r| (r.product, r.n)).collect();
    let (a_b, a_x) = (Product::Matrix, Product::Vector);
    assert_eq!(rows, [(a_b, 40), (a_b, 70), (a_x, 40), (a_x, 70)]);
    let has_gpu = has_gpu();
    for row in &report.rows {
        assert!(row.difference <= 1e-12, "{row:?}");
        assert!(matches!(row.m2cu_ms, Cell::Ms(ms) if ms > 0.0), "{row:?}");
        if blas_loads {
            assert!(matches!(row.blas_ms, Cell::Ms(ms) if ms > 0.0), "{row:?}");
        } else {
            assert_eq!(row.blas_ms, Cell::NoBlas, "{row:?}");
        }
        assert_gpu_cells([row.gpu, row.gpu_kernels], has_gpu, row);
    }
    let table = report.markdown();
    let lines: Vec<&str> = table.lines().filter(|l| l.starts_with("| ")).collect();
    assert_eq!(lines.len(), 1 + rows.len(), "{table}");
    assert!(
        lines[1..]
            .iter()
            .all(|l| l.contains("| no BLAS |") != blas_loads),
        "{table}"
    );
}

#[test]
fn matmul_products_pass_the_guard_against_the_system_blas() {
    let blas = Blas::load();
    match &blas {
        Ok(blas) => eprintln!("matmul smoke test against {}", blas.describe()),
        Err(why) => eprintln!("no BLAS loads, so the BLAS cells must say `no BLAS`: {why}"),
    }
    let report = matmul::run(&tiny_matmul(None)).expect("the matmul bench runs");
    check_matmul_rows(&report, blas.is_ok());
    if let Ok(blas) = &blas {
        let line = format!("BLAS: {}", blas.path());
        assert!(
            report.header.iter().any(|l| l.starts_with(&line)),
            "{:?}",
            report.header
        );
    }
}

#[test]
fn matmul_without_blas_checks_against_the_in_order_product() {
    let report = matmul::run(&tiny_matmul(Some("/nonexistent/libblas.so.3")))
        .expect("the matmul bench runs without a BLAS");
    check_matmul_rows(&report, false);
    assert!(
        report
            .header
            .iter()
            .any(|l| l.starts_with("BLAS: none loads (/nonexistent/libblas.so.3: ")),
        "{:?}",
        report.header
    );
}
