//! The generated code builds: the kernels of every e2e and analysis fixture (and of the e2e
//! fixtures that `--deterministic` changes) compile with NVRTC to CUBIN for sm_80 and sm_90 (no
//! GPU needed), every GPU host program compiles with the C compiler and exports its
//! `<entry>_gpu` symbol, and every standalone `.cu` builds with nvcc (both of its passes: the
//! device pass parses the host code too) into an object that exports `<entry>_cuda`.

mod common;

/// Every e2e fixture (typed by its inputs) and every analysis fixture (typed by its `arguments`).
fn translations() -> Vec<(String, m2cu::Translation)> {
    let e2e = common::e2e_fixtures()
        .into_iter()
        .map(|name| (name.clone(), common::translate_fixture(&name)));
    let analysis = common::analysis_fixtures().into_iter().map(|path| {
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let options = m2cu::Options {
            file_name: format!("{name}.m"),
            ..Default::default()
        };
        let t = m2cu::translate(&common::source(&path), &options)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        (name, t)
    });
    e2e.chain(analysis).chain(deterministic()).collect()
}

/// The e2e fixtures whose kernels `--deterministic` changes, so translated.
fn deterministic() -> Vec<(String, m2cu::Translation)> {
    common::e2e_fixtures()
        .into_iter()
        .filter_map(|name| {
            let options = m2cu::Options {
                deterministic: true,
                ..common::fixture_options(&name)
            };
            let path = common::e2e_path(&name, ".m");
            let t = m2cu::translate(&common::source(&path), &options)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            let default = common::translate_fixture(&name);
            (t.generated.kernels_cu != default.generated.kernels_cu)
                .then(|| (format!("{name}.deterministic"), t))
        })
        .collect()
}

#[test]
fn every_kernel_file_compiles_to_cubin() {
    if !common::require(m2cu_runtime::nvrtc_available(), "libnvrtc") {
        return;
    }
    for (name, t) in translations() {
        for arch in ["sm_80", "sm_90"] {
            let cubin = m2cu_runtime::compile_cubin(
                &t.generated.kernels_cu,
                arch,
                &format!("{name}.kernels.cu"),
            )
            .unwrap_or_else(|e| panic!("{name} for {arch}: {e}"));
            assert_eq!(
                &cubin[..4],
                b"\x7fELF",
                "{name} for {arch}: not an ELF file"
            );
        }
    }
}

#[test]
fn every_gpu_host_program_compiles() {
    for (name, t) in translations() {
        let symbol = format!("{}_gpu", t.generated.entry);
        m2cu_runtime::CpuLibrary::build(
            &t.generated.gpu_host_c,
            &symbol,
            &m2cu::BuildOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// The standalone `.cu` (C++ for nvcc) defines `<entry>_cuda` with the C linkage that
/// `<entry>.h` declares, so a C or C++ caller that includes the header links to it (nvcc itself
/// is only on GPU machines: `bench/gpu/run.sh` builds these files).
#[test]
fn standalone_cuda_exports_have_c_linkage() {
    for (name, t) in translations() {
        let definition = format!("extern \"C\" int {}_cuda(", t.generated.entry);
        assert!(
            t.generated.standalone_cu.contains(&definition),
            "{name}: no `{definition}` in the standalone .cu"
        );
    }
}

/// Standalone `.cu` files build with `nvcc -c` for sm_90 (no GPU needed: `.ci/run` installs
/// nvcc from NVIDIA's wheels), and each object defines `<entry>_cuda` unmangled. A host helper
/// declared for one of nvcc's passes only once broke every file ("identifier m2cu_detail is
/// undefined"), seen only on a GPU machine's run of `bench/gpu/run.sh`. nvcc takes seconds a
/// file, so CI builds a sample: every tenth translation (e2e, analysis, then `--deterministic`
/// ones; `M2CU_NVCC_ALL=1` builds all of them, some 15 minutes on two cores).
#[test]
fn standalone_cu_files_build_with_nvcc() {
    if !common::require(common::nvcc_available(), "nvcc") {
        return;
    }
    let all = std::env::var_os("M2CU_NVCC_ALL").is_some();
    let sample: Vec<(String, m2cu::Translation)> = translations()
        .into_iter()
        .enumerate()
        .filter(|(k, _)| all || k % 10 == 0)
        .map(|(_, t)| t)
        .collect();
    eprintln!("nvcc: building {} standalone .cu files", sample.len());
    let dir = tempfile::tempdir().expect("a temporary folder");
    let failures = common::failures_in_parallel(
        &sample,
        |(name, _)| name.clone(),
        |(name, t)| {
            let source = dir.path().join(format!("{name}.cu"));
            let object = dir.path().join(format!("{name}.o"));
            std::fs::write(&source, &t.generated.standalone_cu).expect("writes the .cu");
            let built = std::process::Command::new("nvcc")
                .args([
                    "-c",
                    "-O2",
                    "-fmad=false",
                    "-arch=sm_90",
                    "-Xcompiler",
                    "-fPIC",
                    "-w",
                ])
                .arg("-o")
                .arg(&object)
                .arg(&source)
                .output()
                .expect("nvcc starts");
            if !built.status.success() {
                let errors = String::from_utf8_lossy(&built.stderr);
                let first: Vec<&str> = errors
                    .lines()
                    .filter(|l| l.contains("error"))
                    .take(3)
                    .collect();
                return vec![format!("{name}: nvcc failed: {}", first.join(" | "))];
            }
            let symbols = std::process::Command::new("nm")
                .args(["--defined-only", "-g"])
                .arg(&object)
                .output()
                .expect("nm starts");
            let entry = format!("{}_cuda", t.generated.entry);
            let exported = String::from_utf8_lossy(&symbols.stdout)
                .lines()
                .any(|line| line.split_whitespace().last() == Some(entry.as_str()));
            if exported {
                Vec::new()
            } else {
                vec![format!(
                    "{name}: the object does not define `{entry}` unmangled"
                )]
            }
        },
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
