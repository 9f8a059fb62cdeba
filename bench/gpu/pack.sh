#!/usr/bin/env bash
# Builds (release) what a GPU machine without Rust needs to check and benchmark m2cu, and puts
# it in one git-ignored folder, target/device/, to be named in the device tool's `carry`:
#   m2cu               the CLI (runs fixtures with --backend gpu, translates the standalone .cu)
#   m2cu-bench         the benchmark (GPU call and kernel-only columns)
#   test-gpu           tests/gpu.rs: every e2e and analysis fixture on the GPU, --deterministic
#   test-runtime-lib   m2cu-runtime's unit tests (run with the filter `gpu::`)
#   test-cuda-services tests/cuda_services.rs: MEX functions' GPU path (m2cu_cuda.c) on the
#                      real driver, every fixture with kernels
#   COMMIT             the commit (and whether the worktree had changes) the binaries are from
# The fixtures the tests read are tracked files, so they are in the device's copy already.
# Usage: bash bench/gpu/pack.sh   (from anywhere in the repository)
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"
dest=target/device
limit=$((64 * 1024 * 1024))

# The executable of the test target named $1 among cargo's JSON messages on stdin.
executable_of() {
    jq -r --arg name "$1" \
        'select(.reason == "compiler-artifact" and .target.name == $name and .executable != null)
         | .executable'
}

echo "pack.sh: building m2cu and m2cu-bench (release)" >&2
cargo build --release -p m2cu --bin m2cu -p m2cu-bench --bin m2cu-bench
echo "pack.sh: building the test binaries that talk to a GPU (release)" >&2
gpu_test=$(cargo test --release -p m2cu --test gpu --no-run --message-format=json | executable_of gpu)
runtime_lib=$(cargo test --release -p m2cu-runtime --lib --no-run --message-format=json \
    | executable_of m2cu_runtime)
services_test=$(cargo test --release -p m2cu --test cuda_services --no-run --message-format=json \
    | executable_of cuda_services)
[[ -x $gpu_test && -x $runtime_lib && -x $services_test ]] || {
    echo "pack.sh: error: test executables not found (gpu: '$gpu_test', runtime: '$runtime_lib', services: '$services_test')" >&2
    exit 1
}

rm -rf "$dest"
mkdir -p "$dest"
cp target/release/m2cu target/release/m2cu-bench "$dest/"
cp "$gpu_test" "$dest/test-gpu"
cp "$runtime_lib" "$dest/test-runtime-lib"
cp "$services_test" "$dest/test-cuda-services"
strip "$dest"/m2cu "$dest"/m2cu-bench "$dest"/test-gpu "$dest"/test-runtime-lib "$dest"/test-cuda-services
{
    git rev-parse HEAD
    git status --porcelain | grep -q . && echo "(with uncommitted changes)" || true
    echo "built $(date -u) on $(uname -srm), $(ldd --version | head -1)"
} >"$dest/COMMIT"

# The device tool's 64 MiB cover the files that travel anyway (tracked and untracked files
# git does not ignore) and the carried folder.
size=$(du -cb "$dest"/* | tail -1 | cut -f1)
tree=$(git ls-files -z --cached --others --exclude-standard | du -cb --files0-from=- | tail -1 | cut -f1)
ls -l "$dest" >&2
echo "pack.sh: $dest holds $((size / 1024)) KiB, the working tree $((tree / 1024)) KiB;" \
    "together $(((size + tree) / 1024 / 1024)) MiB of the 64 MiB the device tool carries" >&2
if ((size + tree >= limit)); then
    echo "pack.sh: error: over the device tool's 64 MiB" >&2
    exit 1
fi
cat <<EOF
Device tool call (from bench/gpu/README.md):
  carry:   ["target/device"]
  command: bash bench/gpu/run.sh
  or in two calls: bash bench/gpu/run.sh probe test sanitize   then   bash bench/gpu/run.sh probe nvcc bench
Everything comes back under \$OUT (summary.txt first).
EOF
