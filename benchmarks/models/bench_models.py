#!/usr/bin/python3
"""Model latency: Kiln (VM at 1 and 2 threads, AOT bundle at 1 thread, on each
SIMD kernel path) against ONNX Runtime (1 and 2 threads) and PyTorch (eager and
torch.jit.freeze, 1 and 2 threads), in one run on one machine, for the models
of export.py.

Writes Markdown (--out, e.g. docs/benchmarks.md) and JSON (same name, .json):
one table per kernel path with the medians and the ratios AOT/ORT, VM/ORT,
VM/AOT and VM 1t/2t; PyTorch as a secondary baseline; every runner's output
checked against PyTorch's reference; module sizes and build times; and the
machine (CPU model, ISA, the paths used and their flags, OPENBLAS_CORETYPE and
the OpenBLAS core PyTorch runs, load average before/after and, with
--kernels-bench, a cache line's round trip between two threads before/after).

Runners:
  ONNX Runtime  node benchmarks/models/ort/ort_run.js (npm onnxruntime-node, all
                graph optimizations; `bash benchmarks/models/ort/install.sh`
                first), timed by ORT's profiler per-run events.
  Kiln VM       kiln run MODULE --isa PATH --threads T --repeat N.
  Kiln AOT      the bundle of `kiln aot`, built with `-O3` and PATH's flags
                (runtime/CMakeLists.txt's KILN_PATH_FLAGS_<path>: the flags the
                VM's copy of the path was compiled with), its runner's timing.
  PyTorch       in this process; OpenBLAS held to the same thread count.
Every 1-thread configuration runs pinned to one CPU (--pin-cpu; the scheduler
moving a lone thread between a guest's vCPUs slowed whole runs by ~40%), the
2-thread ones unpinned.
Paths (--paths): native = the widest this machine runs (the VM's default),
avx2 forced, and portable C; a path the CPU lacks is listed as skipped.
OPENBLAS_CORETYPE: the script re-executes itself without it (OpenBLAS reads it
when torch loads), unless OpenBLAS would then fall back to its Prescott (SSE3)
core on an AVX2/AVX-512 CPU it does not know (0.3.21 on family 6 model 207
does): then the core for the CPU's ISA is set (SkylakeX, Haswell) and the
report says so. --openblas-coretype unset|NAME overrides.

Every configuration first runs a few times untimed-for-the-report (warm-up,
output check against the PyTorch reference, latency estimate), then once per
round, the rounds interleaved so that load from other processes hits all
configurations alike; a configuration's median is the median of its round
medians. Runs per round: --repeat, fewer when that would take longer than
--max-seconds (at least --min-runs), more (up to 20x --repeat) when it would
take less than --min-seconds: a 0.1 ms model's 50 runs are 5 ms, too short a
window for the machine's noise to even out.

Final run (a quiet machine: nothing else running; check `uptime` first):
  bash benchmarks/models/ort/install.sh
  /usr/bin/python3 benchmarks/models/bench_models.py --kiln build/release/tools/kiln \\
      --repeat 50 --rounds 5 --max-seconds 2 --out docs/benchmarks.md \\
      --kernels-bench build/release/benchmarks/kiln_benchmarks
takes about 40 minutes on a quiet 2-core machine with three paths (an
estimate: the timed rounds of the four ImageNet CNNs ~13 min (15
configurations x 5 rounds x ~2.5 s), the seven small models ~5 min, 33 AOT
bundle builds ~10 min, the first export ~5 min, warm-up/check runs ~2 min,
SGEMM ~2 min); `--paths native,avx2` saves about a fifth. Smoke test (a few
minutes, numbers meaningless):
  /usr/bin/python3 benchmarks/models/bench_models.py --kiln build/release/tools/kiln \\
      --models mlp,ds_cnn --repeat 3 --rounds 1 --out /tmp/kiln_bench_smoke.md
"""
import os
import sys

CALLER_CORETYPE = "KILN_BENCH_CALLER_OPENBLAS_CORETYPE"
CORETYPE_CHOICE = "KILN_BENCH_OPENBLAS_CORETYPE_CHOICE"


def _source_commit():
    """The commit of the source tree the timed kiln was built from (with
    "-dirty" when tracked files differ from it)."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    try:
        rev = subprocess.run(["git", "-C", root, "describe", "--always", "--dirty"],
                             capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        rev = "unknown (not a git checkout)"
    return rev


def _reexec_in_benchmark_environment():
    """OpenBLAS reads OPENBLAS_CORETYPE once, when torch/numpy load it: the
    process restarts with the value --openblas-coretype decides (default
    auto: unset, unless OpenBLAS would then fall back to Prescott)."""
    if CALLER_CORETYPE in os.environ:
        return
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import bench_machine  # pylint: disable=import-outside-toplevel
    requested = "auto"
    for k, arg in enumerate(sys.argv):
        if arg == "--openblas-coretype" and k + 1 < len(sys.argv):
            requested = sys.argv[k + 1]
        elif arg.startswith("--openblas-coretype="):
            requested = arg.split("=", 1)[1]
    value, why = bench_machine.openblas_coretype_choice(requested, sys.executable)
    env = dict(os.environ)
    env[CALLER_CORETYPE] = os.environ.get("OPENBLAS_CORETYPE", "(unset)")
    env[CORETYPE_CHOICE] = why
    env.pop("OPENBLAS_CORETYPE", None)
    if value:
        env["OPENBLAS_CORETYPE"] = value
    env.pop("KILN_ISA", None)  # every Kiln run names its path with --isa
    os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + sys.argv[1:], env)


if __name__ == "__main__":
    _reexec_in_benchmark_environment()

# pylint: disable=wrong-import-position
import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_machine  # noqa: E402
import bench_markdown  # noqa: E402
import export  # noqa: E402  (the same model definitions and inputs)

ORT_RUN = os.path.join(bench_machine.ORT_DIR, "ort_run.js")
CHECK_RUNS = 3  # warm-up / output check / latency estimate before the rounds


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def failure(e):
    """The last line of a failed command's message, for the report."""
    if isinstance(e, subprocess.CalledProcessError):
        lines = (e.stderr or e.stdout or "").strip().splitlines()
        return lines[-1] if lines else f"exit {e.returncode}"
    return str(e).strip().splitlines()[-1] if str(e).strip() else type(e).__name__


def max_abs_diff(reference, file):
    got = np.load(file).astype(np.float64)
    ref = np.load(reference).astype(np.float64)
    if got.shape != ref.shape:
        return float("inf")
    d = np.abs(got - ref)
    return float("inf") if np.isnan(d).any() else float(d.max(initial=0.0))


def model_files(models_dir, name):
    """NAME.onnx, its input files in signature order, NAME.output.npy."""
    base = os.path.join(models_dir, name)
    if os.path.exists(base + ".input.npy"):
        inputs = [base + ".input.npy"]
    else:
        inputs = []
        while os.path.exists(f"{base}.input{len(inputs)}.npy"):
            inputs.append(f"{base}.input{len(inputs)}.npy")
    return base + ".onnx", inputs, base + ".output.npy"


# The CPU that 1-thread configurations are pinned to (--pin-cpu), or None.
# Unpinned, a single-threaded process on a 2-vCPU guest was seen to run a
# whole run ~40% slower when the scheduler kept moving it (MobileNetV2's AVX2
# bundle: medians of 8.5 or 12 ms from one process to the next, 8.6-9.0 ms
# pinned, VM and AOT alike), which made VM/AOT ratios read 0.79 or 1.18.
PIN_CPU = None


def pinned(threads):
    """The CPU set a configuration at `threads` threads runs on (None: all)."""
    return {PIN_CPU} if PIN_CPU is not None and threads == 1 else None


def time_torch(fn, inputs, repeat, threads, blas):
    cpus = pinned(threads)
    previous = os.sched_getaffinity(0)
    if cpus:
        os.sched_setaffinity(0, cpus)
    try:
        return _time_torch(fn, inputs, repeat, threads, blas)
    finally:
        os.sched_setaffinity(0, previous)


def _time_torch(fn, inputs, repeat, threads, blas):
    torch.set_num_threads(threads)
    if blas is not None:
        blas.openblas_set_num_threads(threads)
    with torch.no_grad():
        fn(*inputs)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(*inputs)
            times.append((time.perf_counter() - t0) * 1e3)
    return {"median": statistics.median(times), "min": min(times), "max": max(times),
            "runs": repeat}


class Config:
    """One runner at one setting: run(repeat, output_file or None) -> latency."""

    def __init__(self, key, run_fn, checks_output=True):
        self.key, self.run, self.checks_output = key, run_fn, checks_output


def external(cmd, threads):
    """A runner with the flags of `kiln run`: --output FILE, --repeat N and a
    latency_ms line; pinned when it runs one thread."""
    cpus = pinned(threads)

    def run_fn(repeat, output):
        extra = ["--output", output] if output else []
        preexec = (lambda: os.sched_setaffinity(0, cpus)) if cpus else None
        return bench_machine.parse_latency(run(cmd + extra + ["--repeat", str(repeat)],
                                 preexec_fn=preexec).stdout)
    return run_fn


def kiln_configs(name, args, state, module, inputs, r):
    """Kiln VM 1t/2t and AOT 1t per path; bundles built here."""
    configs = []
    in_flags = [f for i in inputs for f in ("--input", i)]
    if state.get("paths") is None:
        runnable, refused = bench_machine.runnable_paths(args.kiln, module, in_flags)
        state["runnable"], state["refused"] = runnable, refused
        wanted = []
        for p in [p for p in args.paths.split(",") if p]:
            p = (runnable[-1] if runnable else "portable") if p == "native" else p
            if p not in wanted:
                wanted.append(p)
        state["paths"] = [p for p in wanted if p in runnable]
        state["skipped_paths"] = {p: refused.get(p, "not a kernel path")
                                  for p in wanted if p not in runnable}
    flags = bench_machine.kernel_path_flags()
    r["aot_build_s"], r["aot_cflags"] = {}, {}
    for path in state["paths"]:
        for t in (1, 2):
            configs.append(Config(f"kiln_vm_{path}_{t}t", external(
                [args.kiln, "run", module, "--isa", path, "--threads", str(t)] + in_flags, t)))
        bundle = os.path.join(args.work, f"{name}.{path}.aot")
        cflags = f"-O3 {flags[path]}".strip()
        try:
            run([args.kiln, "aot", module, "-o", bundle, "--name", name])
            run(["make", "-s", "-C", bundle, "clean"])
            t0 = time.perf_counter()
            run(["make", "-s", "-C", bundle, "-j2", f"CFLAGS={cflags}"])
            r["aot_build_s"][path] = time.perf_counter() - t0
            r["aot_cflags"][path] = cflags
            configs.append(Config(f"kiln_aot_{path}_1t", external(
                [os.path.join(bundle, name + "_run")] + in_flags, 1)))
        except (subprocess.CalledProcessError, OSError) as e:
            r["errors"][f"kiln_aot_{path}"] = "bundle build: " + failure(e)
    return configs


def torch_configs(name, inputs, state, r):
    model = export.build(name)[0] if name in export.MODELS else export.build_seq(name)[0]
    tensors = tuple(torch.from_numpy(np.load(f)) for f in inputs)
    fns = {"eager": model}
    try:
        with torch.no_grad():
            fns["frozen"] = torch.jit.freeze(torch.jit.trace(model, tensors).eval())
    except Exception as e:  # noqa: BLE001  (any tracing failure only drops the column)
        r["errors"]["torch_frozen"] = failure(e)
    blas = state["openblas"]
    return [Config(f"torch_{kind}_{t}t",
                   lambda repeat, _out, fn=fn, t=t: time_torch(fn, tensors, repeat, t, blas),
                   checks_output=False)
            for t in (1, 2) for kind, fn in fns.items()]


def bench_model(name, args, state):
    onnx_path, inputs, reference = model_files(args.models_dir, name)
    exporters = [os.path.join(os.path.dirname(os.path.abspath(__file__)), f)
                 for f in ("export.py", "seq_models.py")]
    if not inputs or not os.path.exists(reference) or any(
            os.path.getmtime(reference) < os.path.getmtime(f) for f in exporters):
        export.export_one(name, args.models_dir)
        onnx_path, inputs, reference = model_files(args.models_dir, name)
    ref = np.load(reference)
    r = {"model": name, "errors": {}, "latency": {}, "max_abs_diff": {},
         "tolerance": 1e-4 * max(1.0, float(np.abs(ref).max()))}
    configs = [Config(f"ort_{t}t", external(
        ["node", ORT_RUN, onnx_path, "--threads", str(t)] +
        [f for i in inputs for f in ("--input", i)], t)) for t in (1, 2)]

    module = os.path.join(args.work, name + ".kiln")
    try:
        t0 = time.perf_counter()
        run([args.kiln, "compile", onnx_path, "-o", module])
        r["compile_s"] = time.perf_counter() - t0
        inspect = run([args.kiln, "inspect", module]).stdout
        r["dispatches"] = len(re.findall(r"\bDISPATCH\b", inspect))
        for key, pattern in (("arena_bytes", r"arena_bytes (\d+)"),
                             ("arena_lower_bound", r"live_bytes_lower_bound (\d+)")):
            m = re.search(pattern, inspect)
            r[key] = int(m[1]) if m else None
        configs += kiln_configs(name, args, state, module, inputs, r)
    except (subprocess.CalledProcessError, OSError) as e:
        r["errors"]["kiln_compile"] = failure(e)
    configs += torch_configs(name, inputs, state, r)

    # Warm-up, output check and latency estimate, then the interleaved rounds.
    runs = {}
    for c in list(configs):
        out = os.path.join(args.work, f"{name}.{c.key}.npy") if c.checks_output else None
        try:
            est = c.run(CHECK_RUNS, out)
        except (subprocess.CalledProcessError, RuntimeError, OSError) as e:
            r["errors"][c.key] = failure(e)
            configs.remove(c)
            continue
        if out:
            d = r["max_abs_diff"][c.key] = max_abs_diff(reference, out)
            if not d <= r["tolerance"]:
                r["errors"][c.key] = (f"output differs from PyTorch's by {d:.3g} > "
                                      f"{r['tolerance']:.3g} (still timed)")
        per_run_ms = max(est["median"], 1e-3)
        budget = int(args.max_seconds * 1e3 / per_run_ms)
        wanted = max(args.repeat, min(20 * args.repeat, int(args.min_seconds * 1e3 / per_run_ms)))
        runs[c.key] = min(wanted, max(args.min_runs, budget))
    rounds = {}
    for _ in range(args.rounds):
        # PyTorch's worker threads keep polling for a while after a parallel
        # region and would take a core from the process started next.
        time.sleep(1.0)
        for c in configs:
            try:
                rounds.setdefault(c.key, []).append(c.run(runs[c.key], None))
            except (subprocess.CalledProcessError, RuntimeError, OSError) as e:
                r["errors"][c.key] = failure(e)
    for key, results in rounds.items():
        r["latency"][key] = {"median": statistics.median(x["median"] for x in results),
                             "min": min(x["min"] for x in results),
                             "max": max(x["max"] for x in results),
                             "runs": sum(x["runs"] for x in results)}
    return r


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kiln", required=True, help="path to the kiln binary")
    ap.add_argument("--models", default=",".join(export.ALL_MODELS))
    ap.add_argument("--paths", default="native,avx2,portable",
                    help="kernel paths to time Kiln on; native = the widest this CPU runs")
    ap.add_argument("--models-dir", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "out"))
    ap.add_argument("--work", default="/tmp/kiln_bench_models")
    ap.add_argument("--repeat", type=int, default=50,
                    help="runs per configuration and round (at most, unless --min-seconds asks "
                         "for more)")
    ap.add_argument("--max-seconds", type=float, default=2.0,
                    help="fewer runs per round when --repeat would take longer than this")
    ap.add_argument("--min-seconds", type=float, default=0.2,
                    help="more runs per round (up to 20x --repeat) when --repeat would take "
                         "less than this")
    ap.add_argument("--min-runs", type=int, default=5, help="runs per round at least")
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved rounds; medians are medians of round medians")
    ap.add_argument("--out", default="docs/benchmarks.md")
    ap.add_argument("--openblas-coretype", default="auto",
                    help="OPENBLAS_CORETYPE for PyTorch's OpenBLAS and the SGEMM benchmark: "
                         "auto (default: unset, unless OpenBLAS then falls back to Prescott on "
                         "an AVX2/AVX-512 CPU), unset, or a core name")
    ap.add_argument("--pin-cpu", default="auto",
                    help="CPU that every 1-thread configuration (ORT, Kiln VM and AOT, "
                         "PyTorch) is pinned to: auto (default: the last CPU this process may "
                         "use, when it may use more than one), none, or a CPU number; 2-thread "
                         "configurations run unpinned")
    ap.add_argument("--kernels-bench",
                    help="kiln_benchmarks binary: run its SGEMM benchmarks (per path and "
                         "OpenBLAS) and include them")
    ap.add_argument("--kernels-json", help="or: a Google Benchmark JSON of BM_*Sgemm to include")
    args = ap.parse_args(argv)
    if args.repeat < 2 or args.min_runs < 2 or args.rounds < 1:
        ap.error("--repeat and --min-runs must be at least 2 (runners print a latency line "
                 "from 2 runs on), --rounds at least 1")
    if not os.path.exists(ORT_RUN.replace("ort_run.js", "node_modules/onnxruntime-node")):
        ap.error("ONNX Runtime is not installed: bash benchmarks/models/ort/install.sh")
    os.makedirs(args.models_dir, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    global PIN_CPU
    allowed = sorted(os.sched_getaffinity(0))
    if args.pin_cpu == "auto":
        PIN_CPU = allowed[-1] if len(allowed) > 1 else None
    elif args.pin_cpu != "none":
        PIN_CPU = int(args.pin_cpu)
        if PIN_CPU not in allowed:
            ap.error(f"--pin-cpu {PIN_CPU}: this process may run on CPUs {allowed} only")

    state = {"paths": None, "openblas": bench_machine.openblas_library()}
    load_before = bench_machine.load_average()
    trip_before = (bench_machine.core_round_trip_ns(args.kernels_bench)
                   if args.kernels_bench else None)
    if os.getloadavg()[0] > 0.5:
        print(f"warning: load average {load_before}: other processes are running and will "
              "slow and scatter every number", file=sys.stderr)
    started = time.time()
    results = []
    for name in [n for n in args.models.split(",") if n]:
        t0 = time.time()
        results.append(bench_model(name, args, state))
        errors = results[-1]["errors"]
        print(f"{name}: {time.time() - t0:.0f} s" +
              (f", failures: {json.dumps(errors)}" if errors else ""), file=sys.stderr)
    kernels, kernels_core = None, None
    if args.kernels_bench:
        # OPENBLAS_VERBOSE=2: OpenBLAS names its core on stderr ("Core: SkylakeX").
        p = run([args.kernels_bench, "--benchmark_filter=Sgemm", "--benchmark_format=json"],
                env=dict(os.environ, OPENBLAS_VERBOSE="2"))
        kernels = json.loads(p.stdout)
        m = re.search(r"Core: (\w+)", p.stderr)
        kernels_core = m[1] if m else "not reported"
    elif args.kernels_json:
        kernels = json.load(open(args.kernels_json))
        kernels_core = "unknown (--kernels-json: recorded by whoever ran it)"
    load_after = bench_machine.load_average()
    trip_after = (bench_machine.core_round_trip_ns(args.kernels_bench)
                  if args.kernels_bench else None)

    flags = bench_machine.kernel_path_flags()
    caller = os.environ.get(CALLER_CORETYPE, "(unset)")
    info = {
        "cpu": bench_machine.cpu(),
        "kernel paths": {
            "runnable": state.get("runnable"),
            "timed": {p: f"-O3 {flags[p]}".strip() for p in state.get("paths") or []},
            "skipped": state.get("skipped_paths"),
        },
        "OPENBLAS_CORETYPE": (f"{os.environ.get(CORETYPE_CHOICE, '?')}; in the caller's "
                              f"environment: {caller}"),
        "OpenBLAS in use (PyTorch)": bench_machine.openblas_description(state["openblas"]),
        "OpenBLAS in use (SGEMM benchmark)": kernels_core,
        "versions": bench_machine.tool_versions(torch.__version__),
        "load average before / after": [load_before, load_after],
        "core-to-core round trip before / after (ns)": [trip_before, trip_after],
        "1-thread configurations pinned to CPU": PIN_CPU,
        "duration_s": round(time.time() - started),
        "kiln commit": _source_commit(),
    }
    settings = {"repeat": args.repeat, "rounds": args.rounds, "max_seconds": args.max_seconds,
                "min_seconds": args.min_seconds,
                "min_runs": args.min_runs, "check_runs": CHECK_RUNS}
    text = bench_markdown.render(results, info, settings, state.get("paths") or [], kernels)
    with open(args.out, "w") as f:
        f.write(text)
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump({"machine": info, "settings": settings, "results": results,
                   "kernels": kernels}, f, indent=1)
    print(text)
    return 0 if results and not any(r["errors"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
