//! The generated code builds: every fixture's kernels compile with NVRTC to CUBIN for sm_80 and
//! sm_90 (no GPU needed), and every GPU host program compiles with the C compiler and exports
//! its `<entry>_gpu` symbol.

mod common;

#[test]
fn every_kernel_file_compiles_to_cubin() {
    if !common::require(m2cu_runtime::nvrtc_available(), "libnvrtc") {
        return;
    }
    for name in common::e2e_fixtures() {
        let t = common::translate_fixture(&name);
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
    for name in common::e2e_fixtures() {
        let t = common::translate_fixture(&name);
        let symbol = format!("{name}_gpu");
        m2cu_runtime::CpuLibrary::build(
            &t.generated.gpu_host_c,
            &symbol,
            &m2cu::BuildOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
