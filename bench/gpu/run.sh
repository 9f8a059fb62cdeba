#!/usr/bin/env bash
# The GPU machine's side of bench/gpu (see bench/gpu/README.md): run from the repository root
# with target/device/ from bench/gpu/pack.sh carried along. Writes under $OUT (default
# target/device-out when unset) at most 7 files, as the device tool returns at most 8: one log
# per step (probe.log ... bench.log), bench-tables.md (m2cu-bench's table, CuPy's, and the two
# joined) and summary.txt, a line per step.
#
#   bash bench/gpu/run.sh [STEP...]     steps: probe test sanitize nvcc bench (default: all)
#   BENCH_ARGS='--workload minloc' bash bench/gpu/run.sh bench     (one workload's tables)
#
# Each step has its own time limit, and all of them share RUN_BUDGET_S seconds (default 540, so
# that one device call of 10 minutes ends with its summary); a step that fails does not stop the
# next. Where there is no GPU, each GPU part says "skipped: no GPU (...)" and the parts that need
# none still run (the binaries start, the fixtures translate, the drivers and the table join
# work), and a step passes when they do. The exit status is 1 when any step failed, else 0.
set -uo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
dev=$root/target/device
out=${OUT:-$root/target/device-out}
mkdir -p "$out"
budget=${RUN_BUDGET_S:-540}
start=$SECONDS
summary=()
failed=0
export M2CU_REPO_ROOT=$root
export M2CU_CACHE_DIR=${M2CU_CACHE_DIR:-$(mktemp -d /tmp/m2cu-device-cache.XXXXXX)}

if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
    no_gpu=""
elif command -v nvidia-smi >/dev/null; then
    no_gpu="nvidia-smi sees no device"
else
    no_gpu="nvidia-smi not found"
fi

# Prints the first libnvrtc.so* found: the nvidia-cuda-nvrtc Python package's, else the CUDA
# toolkit's.
find_nvrtc() {
    local lib
    lib=$(python3 - 2>/dev/null <<'EOF'
import glob, importlib.util, os
spec = importlib.util.find_spec("nvidia")
dirs = list(spec.submodule_search_locations) if spec else []
for d in dirs:
    for path in sorted(glob.glob(os.path.join(d, "**", "libnvrtc.so*"), recursive=True)):
        if "builtins" not in os.path.basename(path):
            print(path)
            raise SystemExit
EOF
    )
    [[ -n $lib ]] || lib=$(ls /usr/local/cuda/lib64/libnvrtc.so* /usr/local/cuda/targets/*/lib/libnvrtc.so* 2>/dev/null | head -1)
    [[ -n $lib ]] && echo "$lib"
}
nvrtc_lib=$(find_nvrtc) && export LD_LIBRARY_PATH=$(dirname "$nvrtc_lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# Runs step $1 (a function) with limit $2 seconds (cut to the budget left), its output in
# $out/$1.log and on stdout, and records its status for the summary.
step() {
    local name=$1 limit=$2 left=$((budget - (SECONDS - start)))
    ((left < limit)) && limit=$left
    if ((limit <= 5)); then
        summary+=("$name: skipped: out of time (run \`bash bench/gpu/run.sh $name\` in another call)")
        return
    fi
    echo "=== $name (limit ${limit}s) ==="
    local t0=$SECONDS rc
    STEP_LIMIT=$limit "step_$name" 2>&1 | tee "$out/$name.log"
    rc=${PIPESTATUS[0]}
    local what="ok"
    ((rc != 0)) && { what="FAILED (status $rc)"; failed=1; }
    summary+=("$name: $what in $((SECONDS - t0)) s; $(tail -1 "$out/$name.log")")
}

# `timeout` with the step's limit left (at least 1 s), killing the whole command on expiry.
limited() {
    local left=$((STEP_LIMIT - (SECONDS - step_start)))
    ((left < 1)) && left=1
    timeout --kill-after=5 "$left" "$@"
}

need_device_binaries() {
    for b in m2cu m2cu-bench test-gpu test-runtime-lib test-cuda-services; do
        [[ -x $dev/$b ]] || { echo "missing $dev/$b: run bench/gpu/pack.sh and carry target/device"; return 1; }
    done
}

step_probe() {
    step_start=$SECONDS
    need_device_binaries || return 1
    echo "packed from: $(tr '\n' ' ' <"$dev/COMMIT")"
    echo "this machine: $(uname -srm), $(ldd --version 2>&1 | head -1)"
    # The binaries link glibc dynamically: they start only where its version is recent enough.
    "$dev/m2cu" --version || { echo "the packed m2cu does not start here (glibc?)"; return 1; }
    echo "libnvrtc: ${nvrtc_lib:-not found (install the nvidia-cuda-nvrtc Python package)}"
    if [[ -n ${nvrtc_lib:-} ]]; then
        python3 -c "import ctypes,sys; l=ctypes.CDLL(sys.argv[1]); a,b=ctypes.c_int(),ctypes.c_int(); l.nvrtcVersion(ctypes.byref(a),ctypes.byref(b)); print(f'NVRTC {a.value}.{b.value} loads')" "$nvrtc_lib" || return 1
    fi
    echo "C compiler: $(${CC:-cc} --version 2>&1 | head -1)"
    for tool in nvcc compute-sanitizer; do
        command -v $tool >/dev/null && echo "$tool: $($tool --version | tail -2 | tr '\n' ' ')" || echo "$tool: not found"
    done
    python3 -c "import cupy; print('CuPy', cupy.__version__)" 2>&1 | tail -1
    if [[ -n $no_gpu ]]; then
        echo "GPU: skipped: no GPU ($no_gpu)"
        return 0
    fi
    nvidia-smi
    nvidia-smi --query-gpu=name,driver_version,memory.total,compute_cap --format=csv
    [[ -n ${nvrtc_lib:-} ]] || return 1
    echo "probe: GPU $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"
}

step_test() {
    step_start=$SECONDS
    need_device_binaries || return 1
    if [[ -n $no_gpu ]]; then
        "$dev/test-gpu" --list | tail -1 || return 1
        echo "skipped: no GPU ($no_gpu); the test binary starts and lists its tests"
        return 0
    fi
    limited "$dev/test-runtime-lib" gpu:: || return 1
    limited "$dev/test-cuda-services" --nocapture || return 1
    limited "$dev/test-gpu" --nocapture --test-threads 2 || return 1
    echo "test: the runtime's gpu:: tests, tests/cuda_services.rs (MEX GPU path) and tests/gpu.rs passed"
}

# Sanitizer cases: "FILE|OPTIONS" (e2e fixtures take their stored inputs).
sanitizer_cases() {
    local e2e
    for e2e in vecsum prodvec maxmin minloc argties allany bitops bitwide countrange histbins nested stepgoal spikes reducecaptures imfilters; do
        echo "fixtures/e2e/$e2e.m|--inputs fixtures/e2e/$e2e.in.mat"
    done
    echo "fixtures/e2e/vecsum.m|--inputs fixtures/e2e/vecsum.in.mat --deterministic"
    echo "fixtures/e2e/singlesum.m|--inputs fixtures/e2e/singlesum.in.mat --deterministic"
    echo "fixtures/analysis/red_custom.m|--set A=rand(7,5)-0.5"
    echo "fixtures/analysis/red_minmaxloc.m|--set v=rand(1,30)"
    echo "fixtures/analysis/plan_colmax.m|--set A=rand(2100,3)-0.5 --set w=rand(1,3)"
}

step_sanitize() {
    step_start=$SECONDS
    need_device_binaries || return 1
    local tool line file opts runs=0 bad=0
    if [[ -n $no_gpu ]] || ! command -v compute-sanitizer >/dev/null; then
        # Without a GPU the cases still run on the CPU path: they must at least be valid runs.
        while IFS='|' read -r file opts; do
            # shellcheck disable=SC2086 # opts are separate words by design
            "$dev/m2cu" run "$file" $opts --backend cpu >/dev/null || { echo "case fails on the CPU: $file $opts"; bad=1; }
        done < <(sanitizer_cases)
        echo "skipped: no GPU (${no_gpu:-compute-sanitizer not found}); the $(sanitizer_cases | wc -l) cases run on the CPU path"
        return $bad
    fi
    local total=$((3 * $(sanitizer_cases | wc -l))) rc said
    for tool in memcheck racecheck synccheck; do
        while IFS='|' read -r file opts; do
            if ((STEP_LIMIT - (SECONDS - step_start) < 3)); then
                echo "sanitize: out of time after $runs of $total runs ($bad failed)"
                return 1
            fi
            runs=$((runs + 1))
            echo "--- $tool: $file $opts"
            # shellcheck disable=SC2086
            said=$(limited compute-sanitizer --tool "$tool" --error-exitcode 99 \
                "$dev/m2cu" run "$file" $opts --backend gpu 2>&1)
            rc=$?
            echo "$said"
            # Some machines' runtimes (gVisor) refuse the sanitizer ("Device not supported"):
            # the first run says so, and the others would fail the same way.
            if ((runs == 1 && rc != 0)) && grep -q -i "not supported" <<<"$said"; then
                echo "skipped: compute-sanitizer does not support this machine's device (see above)"
                return 1
            fi
            if ((rc == 124 || rc == 137)); then
                echo "SANITIZER TIMEOUT: $tool $file $opts"
                bad=$((bad + 1))
            elif ((rc != 0)); then
                echo "SANITIZER FAILURE (status $rc): $tool $file $opts"
                bad=$((bad + 1))
            fi
        done < <(sanitizer_cases)
    done
    echo "sanitize: $((runs - bad)) of $total runs clean (memcheck, racecheck, synccheck)"
    ((bad == 0))
}

# Fixtures built as standalone .cu with nvcc: "NAME|--args SPEC...".
standalone_cases() {
    echo "vecsum|--args v=double(1,:)"
    echo "minloc|--args v=double(1,:)"
    echo "argties|--args v=double(1,:)"
    echo "histbins|--args b=uint8(1,:) --args x=double(1,:)"
    echo "nested|--args A=double(23,:) --args x=double(:,1) --args c=double"
}

step_nvcc() {
    step_start=$SECONDS
    need_device_binaries || return 1
    local work name args bad=0 count=0
    work=$(mktemp -d /tmp/m2cu-nvcc.XXXXXX)
    local gpu_ok=1
    [[ -n $no_gpu ]] || ! command -v nvcc >/dev/null && gpu_ok=0
    while IFS='|' read -r name args; do
        count=$((count + 1))
        local dir=$work/$name
        # shellcheck disable=SC2086
        "$dev/m2cu" translate "fixtures/e2e/$name.m" $args -o "$dir" >/dev/null \
            || { echo "$name: translate failed"; bad=1; continue; }
        local inputs=fixtures/e2e/$name.in.mat outputs=fixtures/e2e/$name.out.mat
        if ((gpu_ok)); then
            # One translation unit: the .cu and C-linkage wrappers the Python driver calls.
            printf '#include "%s.cu"\nextern "C" int m2cu_standalone_entry(const m2cu_array *i, m2cu_array *o, char *e, size_t n) { return %s_cuda(i, o, e, n); }\nextern "C" void m2cu_standalone_release(void *p) { m2cu_release(p); }\n' \
                "$name" "$name" >"$dir/shim.cu"
            limited nvcc -O2 -fmad=false -arch=native -shared -Xcompiler -fPIC \
                -o "$dir/lib$name.so" "$dir/shim.cu" || { echo "$name: nvcc failed"; bad=1; continue; }
            # X.h declares X_cuda extern "C"; a C caller links only if X.cu defines it so.
            if nm -D --defined-only "$dir/lib$name.so" | awk '{print $3}' | grep -qx "${name}_cuda"; then
                echo "$name: ${name}_cuda has C linkage, as $name.h declares"
            else
                echo "$name: WARNING: ${name}_cuda is not exported with C linkage, though $name.h declares it extern \"C\" (a C caller of $name.h cannot link)"
            fi
            echo "$name: nvcc build, run on the GPU:"
            limited python3 bench/gpu/standalone.py "$dir/lib$name.so" m2cu_standalone_entry \
                "$inputs" "$outputs" --release m2cu_standalone_release || bad=1
        else
            # No GPU: the same driver checks the CPU entry of the same translation.
            ${CC:-cc} -O2 -shared -fPIC -fopenmp -o "$dir/lib$name.so" "$dir/$name.c" -lm \
                || { echo "$name: cc failed"; bad=1; continue; }
            echo "$name: the C entry through the same driver:"
            python3 bench/gpu/standalone.py "$dir/lib$name.so" "$name" "$inputs" "$outputs" || bad=1
        fi
    done < <(standalone_cases)
    rm -rf "$work"
    if ((!gpu_ok)); then
        echo "skipped: no GPU (${no_gpu:-nvcc not found}); $count fixtures translated, their C entries checked by the driver"
    else
        echo "nvcc: $count standalone fixtures built and run"
    fi
    return $bad
}

# BENCH_WORKLOADS: the workloads, in order (each an m2cu-bench run of its own, so that a step
# cut short keeps the tables of those done); BENCH_MAX_LOG2_<name>: a workload's largest size
# (saxpy's calls move 24 N bytes over PCIe each: 2^26 keeps it within a minute).
step_bench() {
    step_start=$SECONDS
    need_device_binaries || return 1
    # The C columns are timed up to 2^22 only (every size is still checked against the
    # hand-written C): at 2^28 they would take most of the step.
    local min=20 max=28 runs=5 cpu_limit=(--cpu-max-log2 22)
    local BENCH_MAX_LOG2_saxpy=${BENCH_MAX_LOG2_saxpy:-26}
    if [[ -n $no_gpu ]]; then
        min=10 max=11 runs=2 BENCH_MAX_LOG2_saxpy=11
    fi
    local tables=$out/bench-tables.md m2cu cupy workload top var
    m2cu=$(mktemp) cupy=$(mktemp)
    : >"$tables"
    if [[ -n $no_gpu ]]; then
        python3 bench/gpu/cupy_bench.py measure --dry-run || true
    else
        # CuPy first: it takes seconds, and the comparison needs it.
        limited python3 bench/gpu/cupy_bench.py measure --min-log2 $min --max-log2 $max --runs 10 \
            >"$cupy" || return 1
        { echo "## CuPy and the device-to-device copy"; echo; cat "$cupy"; echo; } | tee -a "$tables"
    fi
    # The small-call target first (seconds): m2cu's whole call against CuPy's host-to-host call.
    local six=(--workload sum --workload max --workload minloc --workload count --workload histogram --workload saxpy)
    limited "$dev/m2cu-bench" "${six[@]}" --min-log2 10 --max-log2 10 --runs 20 --no-octave \
        >"$m2cu.small" || echo "bench: m2cu-bench at 2^10 failed"
    if [[ -z $no_gpu ]]; then
        limited python3 bench/gpu/cupy_bench.py latency --log2 10 --runs 50 >"$cupy.latency" \
            || echo "bench: cupy_bench.py latency failed"
    else
        # The join's parsing only: no CuPy cells (all —).
        cp "$m2cu.small" "$cupy.latency"
    fi
    { echo "## One call of 2^10 elements, host to host"; echo; cat "$cupy.latency"; echo
      python3 bench/gpu/cupy_bench.py join-latency "$m2cu.small" "$cupy.latency"; echo; } | tee -a "$tables"
    echo "## m2cu-bench" >>"$tables"
    for workload in ${BENCH_WORKLOADS:-sum max minloc count histogram saxpy rowsum prefix stencil}; do
        var=BENCH_MAX_LOG2_$workload
        top=${!var:-$max}
        if ((STEP_LIMIT - (SECONDS - step_start) < 15)); then
            echo "bench: out of time before $workload"
            break
        fi
        # shellcheck disable=SC2086 # BENCH_ARGS: more m2cu-bench options, separate words
        limited "$dev/m2cu-bench" --workload "$workload" --min-log2 $min --max-log2 "$top" \
            --runs $runs "${cpu_limit[@]}" --no-octave ${BENCH_ARGS:-} >"$m2cu.one" || {
            echo "bench: m2cu-bench $workload failed or ran out of time"; break; }
        { echo; cat "$m2cu.one"; } | tee -a "$tables"
        cat "$m2cu.one" >>"$m2cu"
    done
    [[ -s $m2cu ]] || return 1
    if [[ -n $no_gpu ]]; then
        # The join's parsing, with m2cu's tables on both sides (no CuPy cells: all —).
        python3 bench/gpu/cupy_bench.py join "$m2cu" "$m2cu" >"$cupy" || return 1
        head -3 "$cupy"
        echo "skipped: no GPU ($no_gpu); m2cu-bench ran at 2^10..2^11 on the CPU"
        return 0
    fi
    { echo; echo "## m2cu's kernels against CuPy and the copy"; echo
      python3 bench/gpu/cupy_bench.py join "$m2cu" "$cupy"; } | tee -a "$tables"
    echo "bench: the tables are in bench-tables.md"
}

steps=("$@")
((${#steps[@]})) || steps=(probe test bench nvcc sanitize)
for s in "${steps[@]}"; do
    case $s in
    probe) step probe 40 ;;
    test) step test "${TEST_LIMIT_S:-200}" ;;
    sanitize) step sanitize 240 ;;
    nvcc) step nvcc 90 ;;
    bench) step bench 240 ;;
    *) echo "run.sh: unknown step '$s' (steps: probe test sanitize nvcc bench)"; exit 2 ;;
    esac
done

gpu=${no_gpu:+none ($no_gpu)}
{
    echo "run.sh: $(date -u), $((SECONDS - start)) s, GPU: ${gpu:-$(nvidia-smi --query-gpu=name --format=csv,noheader)}"
    printf '%s\n' "${summary[@]}"
} | tee "$out/summary.txt"
exit $failed
