#!/usr/bin/python3
"""Model latency: PyTorch (eager, torch.jit.freeze; 1 and 2 threads) against
Kiln (VM at 1 and 2 threads, AOT bundle built with -O3 -march=native), in one
run on one machine, for the models of export.py.

Writes Markdown (--out, e.g. docs/benchmarks.md) and JSON (same name, .json)
with medians/min/max, the ratios Kiln/PyTorch-best and VM/AOT, arena bytes
against the liveness lower bound, compile and bundle build times, and the
machine description (including the load average, since other processes
sharing the cores make every number slower).

  /usr/bin/python3 benchmarks/models/bench_models.py --kiln build/release/tools/kiln \\
      --out docs/benchmarks.md [--repeat 50] [--rounds 3] [--models mlp,resnet18]
"""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import time

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export  # noqa: E402  (the same model definitions and inputs)

LATENCY = re.compile(r"latency_ms median=([0-9.]+) min=([0-9.]+) max=([0-9.]+) runs=(\d+)")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, capture_output=True, text=True, **kw)


def parse_latency(text):
    m = LATENCY.search(text)
    if not m:
        raise RuntimeError("no latency line in:\n" + text)
    return {"median": float(m[1]), "min": float(m[2]), "max": float(m[3]), "runs": int(m[4])}


def time_torch(fn, x, repeat, threads):
    torch.set_num_threads(threads)
    with torch.no_grad():
        for _ in range(max(3, repeat // 10)):
            fn(x)
        times = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            fn(x)
            times.append((time.perf_counter() - t0) * 1e3)
    return {"median": statistics.median(times), "min": min(times), "max": max(times),
            "runs": repeat}


def machine():
    info = {"platform": platform.platform(), "python": platform.python_version(),
            "torch": torch.__version__, "cpus": os.cpu_count()}
    try:
        lscpu = run(["lscpu"]).stdout
        for key in ("Model name", "Vendor ID", "L1d cache", "L2 cache", "L3 cache"):
            m = re.search(rf"^{key}:\s*(.+)$", lscpu, re.M)
            if m:
                info[key] = m[1].strip()
        flags = re.search(r"^Flags:\s*(.+)$", lscpu, re.M)
        if flags:
            info["simd"] = " ".join(f for f in flags[1].split()
                                    if f in ("avx2", "fma", "avx512f", "avx512vl", "avx512_bf16"))
    except (OSError, subprocess.CalledProcessError):
        pass
    try:
        info["gcc"] = run(["gcc", "--version"]).stdout.splitlines()[0]
    except (OSError, subprocess.CalledProcessError):
        pass
    return info


def bench_model(name, args, models_dir, work):
    onnx_path = os.path.join(models_dir, name + ".onnx")
    inp = os.path.join(models_dir, name + ".input.npy")
    if not os.path.exists(onnx_path):
        export.export_one(name, models_dir)
    r = {"model": name}

    model, x = export.build(name)
    x = torch.from_numpy(np.load(inp))
    with torch.no_grad():
        frozen = torch.jit.freeze(torch.jit.trace(model, x).eval())

    kiln_path = os.path.join(work, name + ".kiln")
    t0 = time.perf_counter()
    run([args.kiln, "compile", onnx_path, "-o", kiln_path])
    r["compile_s"] = time.perf_counter() - t0
    inspect = run([args.kiln, "inspect", kiln_path]).stdout
    r["dispatches"] = len(re.findall(r"\bDISPATCH\b", inspect))
    m = re.search(r"arena_bytes (\d+)", inspect)
    r["arena_bytes"] = int(m[1]) if m else None
    m = re.search(r"live_bytes_lower_bound (\d+)", inspect)
    r["arena_lower_bound"] = int(m[1]) if m else None

    bundle = os.path.join(work, name + ".aot")
    run([args.kiln, "aot", kiln_path, "-o", bundle, "--name", name])
    run(["make", "-s", "-C", bundle, "clean"])
    t0 = time.perf_counter()
    run(["make", "-s", "-C", bundle, "-j2", "CFLAGS=-O3 -march=native"])
    r["aot_build_s"] = time.perf_counter() - t0

    # Every configuration runs once per round, rounds interleaved, so a
    # burst of load from other processes hits all of them alike; a
    # configuration's median is the median of its round medians.
    # PyTorch's worker threads keep polling for a while after a parallel
    # region, and would take a core from the Kiln processes started right
    # after: a pause lets them go to sleep first.
    rounds = {}
    for _ in range(args.rounds):
        time.sleep(1.0)
        for t in (1, 2):
            out = run([args.kiln, "run", kiln_path, "--input", inp, "--repeat", str(args.repeat),
                       "--threads", str(t)]).stdout
            rounds.setdefault(f"kiln_vm_{t}t", []).append(parse_latency(out))
        out = run([os.path.join(bundle, name + "_run"), "--input", inp, "--repeat",
                   str(args.repeat)]).stdout
        rounds.setdefault("kiln_aot_1t", []).append(parse_latency(out))
        for t in (1, 2):
            rounds.setdefault(f"torch_eager_{t}t", []).append(time_torch(model, x, args.repeat, t))
            rounds.setdefault(f"torch_frozen_{t}t", []).append(time_torch(frozen, x, args.repeat, t))
    for key, results in rounds.items():
        r[key] = {"median": statistics.median(x["median"] for x in results),
                  "min": min(x["min"] for x in results), "max": max(x["max"] for x in results),
                  "runs": sum(x["runs"] for x in results)}

    for t in (1, 2):
        best = min(r[f"torch_eager_{t}t"]["median"], r[f"torch_frozen_{t}t"]["median"])
        r[f"torch_best_{t}t"] = best
    r["ratio_aot_vs_torch_1t"] = r["kiln_aot_1t"]["median"] / r["torch_best_1t"]
    r["ratio_vm_vs_torch_1t"] = r["kiln_vm_1t"]["median"] / r["torch_best_1t"]
    r["ratio_vm_vs_torch_2t"] = r["kiln_vm_2t"]["median"] / r["torch_best_2t"]
    r["ratio_vm_vs_aot"] = r["kiln_vm_1t"]["median"] / r["kiln_aot_1t"]["median"]
    r["speedup_vm_2t"] = r["kiln_vm_1t"]["median"] / r["kiln_vm_2t"]["median"]
    return r


def fmt(lat):
    return f"{lat['median']:.3f} ({lat['min']:.3f}–{lat['max']:.3f})"


def markdown(results, info, args, load):
    lines = ["# Kiln benchmarks", "",
             "Generated by `benchmarks/models/bench_models.py` "
             f"(`--repeat {args.repeat} --rounds {args.rounds}`); latencies in ms. Every "
             "configuration runs once per round, the rounds interleaved so load from other "
             "processes hits all alike; median = median of the round medians, (min–max) over "
             "all runs, "
             "batch 1, float32. PyTorch best = the faster of eager and `torch.jit.freeze` "
             "at the same thread count. Kiln AOT: bundle built with `-O3 -march=native`, "
             "called serially (1 thread).", "",
             "## Machine", ""]
    for k, v in info.items():
        lines.append(f"- {k}: {v}")
    lines.append(f"- load average before / after: {load[0]} / {load[1]} "
                 "(other processes sharing the 2 cores inflate and scatter every number)")
    lines += ["", "## Latency (ms)", "",
              "| model | torch eager 1t | torch frozen 1t | torch eager 2t | torch frozen 2t "
              "| Kiln VM 1t | Kiln VM 2t | Kiln AOT 1t |",
              "|---|---|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['model']} | {fmt(r['torch_eager_1t'])} | {fmt(r['torch_frozen_1t'])} "
                     f"| {fmt(r['torch_eager_2t'])} | {fmt(r['torch_frozen_2t'])} "
                     f"| {fmt(r['kiln_vm_1t'])} | {fmt(r['kiln_vm_2t'])} | {fmt(r['kiln_aot_1t'])} |")
    lines += ["", "## Ratios (medians)", "",
              "| model | AOT / torch best (1t) | VM / torch best (1t) | VM / torch best (2t) "
              "| VM / AOT (1t) | VM 1t / VM 2t |",
              "|---|---|---|---|---|---|"]
    for r in results:
        lines.append(f"| {r['model']} | {r['ratio_aot_vs_torch_1t']:.2f} "
                     f"| {r['ratio_vm_vs_torch_1t']:.2f} | {r['ratio_vm_vs_torch_2t']:.2f} "
                     f"| {r['ratio_vm_vs_aot']:.3f} | {r['speedup_vm_2t']:.2f} |")
    lines += ["", "## Module", "",
              "| model | dispatches | arena bytes | live lower bound | arena / bound "
              "| compile (s) | AOT bundle build -O3 -j2 (s) |",
              "|---|---|---|---|---|---|---|"]
    for r in results:
        ratio = (r["arena_bytes"] / r["arena_lower_bound"]
                 if r["arena_bytes"] and r["arena_lower_bound"] else float("nan"))
        lines.append(f"| {r['model']} | {r['dispatches']} | {r['arena_bytes']} "
                     f"| {r['arena_lower_bound']} | {ratio:.2f} | {r['compile_s']:.2f} "
                     f"| {r['aot_build_s']:.1f} |")
    return "\n".join(lines) + "\n"


def kernels_markdown(path):
    """Kiln vs OpenBLAS rows from a Google Benchmark JSON of gemm_benchmark.cc."""
    data = json.load(open(path))
    rate = {}
    for b in data["benchmarks"]:
        # With --benchmark_repetitions, only the median of the repetitions.
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        m = re.match(r"BM_(\w+)/M:(\d+)/N:(\d+)/K:(\d+)", b["name"])
        if m and "GFLOP/s" in b:
            rate.setdefault(m[2] + "x" + m[3] + "x" + m[4], {})[m[1]] = b["GFLOP/s"] / 1e9 \
                if b["GFLOP/s"] > 1e6 else b["GFLOP/s"]
    lines = ["", "## SGEMM, 1 thread (GFLOP/s, Google Benchmark, same binary)", "",
             "| M x N x K | Kiln | Kiln, B pre-packed | OpenBLAS | Kiln / OpenBLAS | "
             "pre-packed / OpenBLAS |", "|---|---|---|---|---|---|"]
    for shape, r in rate.items():
        k, p, o = r.get("KilnSgemm"), r.get("KilnSgemmPackedB"), r.get("OpenblasSgemm")
        if k and p and o:
            lines.append(f"| {shape} | {k:.1f} | {p:.1f} | {o:.1f} | {k / o:.2f} | {p / o:.2f} |")
    return "\n".join(lines) + "\n"


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kiln", required=True, help="path to the kiln binary")
    ap.add_argument("--models", default=",".join(export.MODELS))
    ap.add_argument("--models-dir", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "out"))
    ap.add_argument("--work", default="/tmp/kiln_bench_models")
    ap.add_argument("--repeat", type=int, default=50, help="runs per configuration and round")
    ap.add_argument("--rounds", type=int, default=3,
                    help="interleaved rounds; medians are medians of round medians")
    ap.add_argument("--out", default="docs/benchmarks.md")
    ap.add_argument("--kernels-json", help="Google Benchmark JSON of BM_*Sgemm to include")
    args = ap.parse_args(argv)
    os.makedirs(args.models_dir, exist_ok=True)
    os.makedirs(args.work, exist_ok=True)
    load_before = " ".join(f"{v:.2f}" for v in os.getloadavg())
    results = []
    for name in [n for n in args.models.split(",") if n]:
        try:
            results.append(bench_model(name, args, args.models_dir, args.work))
            print(f"{name}: done", file=sys.stderr)
        except (subprocess.CalledProcessError, RuntimeError) as e:
            detail = e.stderr if isinstance(e, subprocess.CalledProcessError) else str(e)
            print(f"{name}: FAILED {detail}", file=sys.stderr)
    load_after = " ".join(f"{v:.2f}" for v in os.getloadavg())
    info = machine()
    with open(args.out, "w") as f:
        f.write(markdown(results, info, args, (load_before, load_after)))
        if args.kernels_json:
            f.write(kernels_markdown(args.kernels_json))
    with open(os.path.splitext(args.out)[0] + ".json", "w") as f:
        json.dump({"machine": info, "load": [load_before, load_after], "repeat": args.repeat,
                   "results": results}, f, indent=1)
    print(open(args.out).read())
    return 0 if results else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
