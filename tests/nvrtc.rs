//! Every fixture's kernels compile with NVRTC to CUBIN for sm_80 and sm_90 (no GPU needed).

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
