//! The generated code builds: the kernels of every e2e and analysis fixture (and of the e2e
//! fixtures that `--deterministic` changes) compile with NVRTC to CUBIN for sm_80 and sm_90 (no
//! GPU needed), and every GPU host program compiles with the C compiler and exports its
//! `<entry>_gpu` symbol.

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
