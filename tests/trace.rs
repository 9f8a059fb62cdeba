//! Generated code names where it comes from: every kernel and every generated loop has a
//! comment with its MATLAB file and line (`/* saxpy.m:3: for i: map */`), and with
//! `--line-directives` (`Options::line_directives`) each statement's code starts with
//! `#line N "file.m"`, so the C compiler's and NVRTC's messages point at the `.m` line, and
//! the programs still compute what Octave computes.

mod common;

use m2cu::Backend;

/// Fixtures with every kind of generated loop: maps, reductions of each kind, a location
/// reduction, a scan, a histogram, per-output sums and tiles, sequential nests, a helper file.
const FIXTURES: &[&str] = &[
    "saxpy",
    "vecsum",
    "minloc",
    "runsum",
    "scanrun",
    "histbins",
    "bandmean",
    "dottrace",
    "normscores",
    "loopvars",
];

fn with_line_directives(name: &str) -> m2cu::Options {
    m2cu::Options {
        line_directives: true,
        ..common::fixture_options(name)
    }
}

/// No kernel of any e2e fixture and no loop of its C program has a comment without its MATLAB
/// place: every loop comment starts `file.m:N: for ...`.
#[test]
fn every_kernel_and_generated_loop_names_its_matlab_line() {
    for name in common::e2e_fixtures() {
        let t = common::translate_fixture(&name);
        let g = &t.generated;
        for text in [&g.kernels_cu, &g.c_source, &g.gpu_host_c] {
            let body = text
                .split_once(m2cu_codegen::GENERATED_MARKER)
                .map_or(text.as_str(), |(_, rest)| rest);
            let unplaced: Vec<&str> = body
                .lines()
                .filter(|l| l.trim_start().starts_with("/* for ") || l.contains("{ /* for "))
                .collect();
            assert!(unplaced.is_empty(), "{name}: {unplaced:#?}");
            let placed = body
                .lines()
                .filter(|l| l.contains(".m:") && l.contains(": for "))
                .count();
            let loops = body.matches("for (int64_t m2cu_t").count();
            assert!(
                loops == 0 || placed > 0,
                "{name}: loops with no place:\n{body}"
            );
        }
    }
}

#[test]
fn line_directives_point_compiler_messages_at_the_m_file() {
    let t = m2cu::translate(
        &common::source(&common::e2e_path("saxpy", ".m")),
        &with_line_directives("saxpy"),
    )
    .expect("saxpy translates");
    assert!(
        t.generated.c_source.contains("#line 4 \"saxpy.m\""),
        "{}",
        t.generated.c_source
    );
    // The preprocessor takes them: its line markers name the MATLAB file and line.
    let dir = tempfile::tempdir().expect("temp dir");
    let c = dir.path().join("saxpy.c");
    std::fs::write(&c, &t.generated.c_source).expect("write saxpy.c");
    let out = std::process::Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .args(["-E", "-std=c99"])
        .arg(&c)
        .output()
        .expect("cc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("# 4 \"saxpy.m\""),
        "no line marker for saxpy.m:4"
    );
}

/// With `#line` directives the programs are the same programs: equal to Octave on the C path
/// and the emulated GPU, and their kernels compile with NVRTC.
#[test]
fn programs_with_line_directives_equal_octave() {
    let names: Vec<String> = FIXTURES.iter().map(|n| n.to_string()).collect();
    let base = m2cu::Options {
        line_directives: true,
        ..Default::default()
    };
    let mut failures =
        common::mismatches_with_octave_translated(&names, &base, &common::on(Backend::Cpu));
    failures.extend(common::mismatches_with_octave_translated(
        &names,
        &base,
        &common::on(Backend::Emu),
    ));
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    if !common::require(m2cu_runtime::nvrtc_available(), "libnvrtc") {
        return;
    }
    for name in FIXTURES {
        let t = m2cu::translate(
            &common::source(&common::e2e_path(name, ".m")),
            &with_line_directives(name),
        )
        .expect("translates");
        let kernels = t.generated.kernels_cu.contains("__global__");
        assert!(
            !kernels || t.generated.kernels_cu.contains("#line "),
            "{name}"
        );
        m2cu_runtime::compile_cubin(
            &t.generated.kernels_cu,
            "sm_90",
            &format!("{name}.kernels.cu"),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
