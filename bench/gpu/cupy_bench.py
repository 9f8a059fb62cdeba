#!/usr/bin/env python3
"""CuPy's side of the GPU benchmark, and the table that sets m2cu's kernels beside it.

    cupy_bench.py measure [--min-log2 20] [--max-log2 28] [--runs 10] [--dry-run]
    cupy_bench.py join M2CU_BENCH.md CUPY.md
    cupy_bench.py latency [--log2 10] [--runs 50]
    cupy_bench.py join-latency M2CU_BENCH.md CUPY_LATENCY.md

`measure` times, on device 0, the CuPy operations that compute m2cu-bench's six workloads on
the same kinds of input (a 1-by-N row of uniform doubles in [0, 1), uniform uint8 for the
histogram): `cupy.sum(x)`, `cupy.max(x)`, `cupy.argmin(x)`, `cupy.count_nonzero(x > 0.5)`,
`cupy.bincount(b, minlength=256)`, `a*x + y`, and a device-to-device copy `y[...] = x` of N
doubles, the bandwidth ceiling. Inputs are resident on the device; each time is one call
bracketed by CUDA events in this process's loop, 2 warm-up calls, the median of --runs. GB/s
uses the bytes m2cu-bench counts (`bench/src/workloads.rs`: every input element read once,
every output element written once; the copy reads and writes 8 N bytes each). It prints a
markdown table. `--dry-run` only checks that CuPy imports and sees a device, and prints the plan.

`join` reads m2cu-bench's table (its `GPU kernels ms` column) and the table `measure` printed,
and prints, per workload and size, m2cu's and CuPy's GB/s, the copy's, and the ratios
(m2cu/CuPy above 1: m2cu is faster; m2cu/copy: the fraction of the copy's bandwidth reached).
`join` needs no GPU and no CuPy.

`latency` times whole calls the way a user makes them from the host, as m2cu-bench's "GPU call
incl. transfers" column does for `Program::call`: the inputs from NumPy arrays in host memory
to the device (`cupy.asarray`), the operation, and the result back (`cupy.asnumpy`), by the
wall clock, median of --runs after 2 warm-up calls, at 2^--log2 elements (small: where the
fixed costs of a call dominate). `join-latency` sets m2cu's call time beside it: the issue's
target is m2cu's call at most 2x CuPy's.
"""

import argparse
import statistics
import sys
import time

WARMUP_RUNS = 2
THRESHOLD = 0.5  # bench/workloads/bench_count.m
SAXPY_A = 2.5  # bench/src/workloads.rs

# Bytes one call moves on rows of n elements, as Workload::bytes in bench/src/workloads.rs.
BYTES = {
    "sum": lambda n: 8 * n + 8,
    "max": lambda n: 8 * n + 8,
    "minloc": lambda n: 8 * n + 16,
    "count": lambda n: 8 * n + 8,
    "histogram": lambda n: n + 256 * 8,
    "saxpy": lambda n: 24 * n + 8,
}
COPY_BYTES = lambda n: 16 * n  # noqa: E731 (one read and one write of n doubles)


def import_cupy():
    """CuPy, or exit with status 2 and a message saying what is missing."""
    try:
        import cupy  # noqa: PLC0415 (optional: only `measure` needs it)
    except ImportError as e:
        sys.exit(f"cupy_bench.py: CuPy is not installed here ({e}); `measure` needs it, `join` does not")
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except cupy.cuda.runtime.CUDARuntimeError as e:
        sys.exit(f"cupy_bench.py: CuPy sees no CUDA device ({e})")
    if count == 0:
        sys.exit("cupy_bench.py: CuPy sees no CUDA device")
    return cupy


def operations(cp, n):
    """(workload, function of no arguments) on resident inputs of n elements."""
    rng = cp.random.RandomState(n)
    x = rng.random_sample(n)
    y = rng.random_sample(n)
    b = (rng.random_sample(n) * 256).astype(cp.uint8)
    copy_to = cp.empty_like(x)

    def copy():
        copy_to[...] = x

    return [
        ("sum", lambda: cp.sum(x)),
        ("max", lambda: cp.max(x)),
        ("minloc", lambda: cp.argmin(x)),
        ("count", lambda: cp.count_nonzero(x > THRESHOLD)),
        ("histogram", lambda: cp.bincount(b, minlength=256)),
        ("saxpy", lambda: SAXPY_A * x + y),
        ("copy", copy),
    ]


def median_ms(cp, f, runs):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(WARMUP_RUNS):
        f()
    cp.cuda.Stream.null.synchronize()
    times = []
    for _ in range(runs):
        start.record()
        f()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def gb_per_s(nbytes, ms):
    return nbytes / (ms * 1e-3) / 1e9


def measure(args):
    cp = import_cupy()
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    sizes = range(args.min_log2, args.max_log2 + 1)
    if args.dry_run:
        print(f"cupy_bench.py: CuPy {cp.__version__} on {name}; would time 2^{args.min_log2}..2^{args.max_log2}, {args.runs} runs")
        return 0
    print(f"- CuPy {cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}, device {name}")
    print(f"- protocol: CUDA events around each call, median of {args.runs} after {WARMUP_RUNS} warm-up calls, inputs resident")
    print()
    print("| workload | N | CuPy ms | CuPy GB/s | copy ms | copy GB/s |")
    print("|---|---:|---:|---:|---:|---:|")
    for log2 in sizes:
        n = 1 << log2
        times = {w: median_ms(cp, f, args.runs) for w, f in operations(cp, n)}
        copy_ms = times.pop("copy")
        for workload, ms in times.items():
            print(
                f"| {workload} | 2^{log2} | {ms:.4g} | {gb_per_s(BYTES[workload](n), ms):.2f} "
                f"| {copy_ms:.4g} | {gb_per_s(COPY_BYTES(n), copy_ms):.2f} |"
            )
        cp.get_default_memory_pool().free_all_blocks()
    return 0


def host_calls(cp, n):
    """(workload, function of no arguments) that upload host inputs of n elements, compute, and
    bring the result back to the host, as one call of m2cu's program does."""
    import numpy as np  # noqa: PLC0415 (CuPy needs NumPy: present wherever CuPy is)

    rng = np.random.default_rng(n)
    x, y = rng.random(n), rng.random(n)
    b = (rng.random(n) * 256).astype(np.uint8)
    up = cp.asarray
    return [
        ("sum", lambda: cp.asnumpy(cp.sum(up(x)))),
        ("max", lambda: cp.asnumpy(cp.max(up(x)))),
        ("minloc", lambda: cp.asnumpy(cp.argmin(up(x)))),
        ("count", lambda: cp.asnumpy(cp.count_nonzero(up(x) > THRESHOLD))),
        ("histogram", lambda: cp.asnumpy(cp.bincount(up(b), minlength=256))),
        ("saxpy", lambda: cp.asnumpy(SAXPY_A * up(x) + up(y))),
    ]


def median_wall_ms(f, runs):
    for _ in range(WARMUP_RUNS):
        f()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def latency(args):
    cp = import_cupy()
    n = 1 << args.log2
    print(f"- CuPy {cp.__version__}: host inputs up, the operation, the result down; wall clock, median of {args.runs} after {WARMUP_RUNS} warm-up calls")
    print()
    print("| workload | N | CuPy call ms |")
    print("|---|---:|---:|")
    for workload, f in host_calls(cp, n):
        print(f"| {workload} | 2^{args.log2} | {median_wall_ms(f, args.runs):.4g} |")
    return 0


def joined_tables(args):
    """m2cu-bench's rows, and the other table's by (workload, N); None after saying why."""
    try:
        m2cu = table_rows(args.m2cu)
        return m2cu, {(r["workload"], r["N"]): r for r in table_rows(args.cupy)}
    except (OSError, ValueError, KeyError) as e:
        print(f"cupy_bench.py: {e}", file=sys.stderr)
        return None


def join_latency(args):
    tables = joined_tables(args)
    if tables is None:
        return 2
    m2cu, cupy = tables
    print("| workload | N | m2cu call ms | CuPy call ms | m2cu/CuPy time | within 2x |")
    print("|---|---:|---:|---:|---:|---|")
    for row in m2cu:
        workload, size = row["workload"], row["N"]
        m2cu_ms = number(row.get("GPU call incl. transfers ms", ""))
        cupy_ms = number(cupy.get((workload, size), {}).get("CuPy call ms", ""))
        ratio = m2cu_ms and cupy_ms and m2cu_ms / cupy_ms
        verdict = "—" if not ratio else ("yes" if ratio <= 2 else "no")
        print(f"| {workload} | {size} | {fixed(m2cu_ms)} | {fixed(cupy_ms)} | {fixed(ratio)} | {verdict} |")
    print()
    print("- m2cu/CuPy time: m2cu's whole `Program::call` (uploads, kernels, downloads, values made) over CuPy's host-to-host call; the issue's target is at most 2")
    return 0


def table_rows(path):
    """The rows of the markdown tables in path (one or more with the same columns, such as
    m2cu-bench's runs of one workload each), as dicts by column name."""
    with open(path, encoding="utf-8") as f:
        lines = [line.strip() for line in f if line.strip().startswith("|")]
    if len(lines) < 2:
        raise ValueError(f"{path}: no markdown table")
    cells = lambda line: [c.strip() for c in line.strip("|").split("|")]  # noqa: E731
    rule = lambda line: all(set(c) <= set(":-") for c in cells(line))  # noqa: E731
    header = cells(lines[0])
    # Another table's header (its first column named as this one's) is not a row either.
    return [dict(zip(header, cells(line))) for line in lines[1:] if not rule(line) and cells(line)[0] != header[0]]


def fixed(value):
    """Two decimals, or — for a value that was not measured."""
    return f"{value:.2f}" if value else "—"


def number(text):
    try:
        return float(text)
    except ValueError:
        return None


def join(args):
    tables = joined_tables(args)
    if tables is None:
        return 2
    m2cu, cupy = tables
    print("| workload | N | m2cu kernels GB/s | CuPy GB/s | copy GB/s | m2cu/CuPy | m2cu/copy |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for row in m2cu:
        workload, size = row["workload"], row["N"]
        n = 1 << int(size.removeprefix("2^"))
        other = cupy.get((workload, size), {})
        m2cu_ms = number(row.get("GPU kernels ms", ""))
        cupy_ms, copy_ms = number(other.get("CuPy ms", "")), number(other.get("copy ms", ""))
        m2cu_rate = m2cu_ms and gb_per_s(BYTES[workload](n), m2cu_ms)
        cupy_rate = cupy_ms and gb_per_s(BYTES[workload](n), cupy_ms)
        copy_rate = copy_ms and gb_per_s(COPY_BYTES(n), copy_ms)
        cells = [fixed(m2cu_rate), fixed(cupy_rate), fixed(copy_rate)]
        cells += [fixed(m2cu_rate and cupy_rate and m2cu_rate / cupy_rate)]
        cells += [fixed(m2cu_rate and copy_rate and m2cu_rate / copy_rate)]
        print(f"| {workload} | {size} | {' | '.join(cells)} |")
    print()
    print("- m2cu/CuPy: m2cu's GB/s over CuPy's (the inverse ratio of their times; above 1: m2cu is faster); m2cu/copy: m2cu's GB/s over the copy's; — where a side was not measured")
    return 0


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("measure", help="time CuPy and the copy on this machine's GPU")
    m.add_argument("--min-log2", type=int, default=20)
    m.add_argument("--max-log2", type=int, default=28)
    m.add_argument("--runs", type=int, default=10)
    m.add_argument("--dry-run", action="store_true", help="check CuPy and the device, time nothing")
    j = sub.add_parser("join", help="set m2cu-bench's kernel times beside CuPy's")
    j.add_argument("m2cu", help="m2cu-bench's markdown output")
    j.add_argument("cupy", help="the output of `measure`")
    lat = sub.add_parser("latency", help="time CuPy's host-to-host calls on this machine's GPU")
    lat.add_argument("--log2", type=int, default=10)
    lat.add_argument("--runs", type=int, default=50)
    jl = sub.add_parser("join-latency", help="set m2cu-bench's call times beside CuPy's")
    jl.add_argument("m2cu", help="m2cu-bench's markdown output")
    jl.add_argument("cupy", help="the output of `latency`")
    args = parser.parse_args(argv)
    if args.command == "measure":
        if not 0 <= args.min_log2 <= args.max_log2 <= 30 or args.runs < 1:
            parser.error("need 0 <= --min-log2 <= --max-log2 <= 30 and --runs >= 1")
        return measure(args)
    if args.command == "latency":
        if not 0 <= args.log2 <= 30 or args.runs < 1:
            parser.error("need 0 <= --log2 <= 30 and --runs >= 1")
        return latency(args)
    if args.command == "join-latency":
        return join_latency(args)
    return join(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
