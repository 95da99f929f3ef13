"""docs/benchmarks.md from bench_models.py's results: the machine, one latency
table per kernel path against ONNX Runtime, PyTorch, output agreement, module
sizes, and (optionally) SGEMM against OpenBLAS per path."""
import re

# issue 18's goal for Kiln AOT 1 thread / ONNX Runtime 1 thread: CNNs 0.8,
# everything else 1.0.
AOT_VS_ORT_GOAL = {"resnet18": 0.8, "mobilenet_v2": 0.8, "googlenet": 0.8,
                   "efficientnet_b0": 0.8, "ds_cnn": 0.8}
DEFAULT_GOAL = 1.0


def _median(r, key):
    lat = r["latency"].get(key)
    return lat["median"] if lat else None


def _ms(v):
    return "—" if v is None else (f"{v:.3f}" if v < 100 else f"{v:.1f}")


def _ratio(a, b, digits=2):
    return "—" if a is None or b is None else f"{a / b:.{digits}f}"


def _machine(info, settings):
    cpu = info["cpu"]
    paths = info["kernel paths"]
    lines = ["## Machine", ""]
    for k, v in cpu.items():
        lines.append(f"- {k}: {v}")
    lines.append(f"- Kiln kernel paths this machine runs: {', '.join(paths['runnable'] or [])}")
    for p, cflags in paths["timed"].items():
        lines.append(f"- path `{p}` timed: VM `--isa {p}`, AOT bundle `CFLAGS='{cflags}'`")
    for p, why in (paths["skipped"] or {}).items():
        lines.append(f"- path `{p}` not timed: {why}")
    lines.append(f"- OPENBLAS_CORETYPE: {info['OPENBLAS_CORETYPE']}")
    core = info["OpenBLAS in use (PyTorch)"]
    if "core Prescott" in core and "avx2" in cpu.get("ISA flags", "").split():
        core += (" — SSE3 kernels on an AVX2/AVX-512 CPU: PyTorch's BLAS-bound models run "
                 "slowly (`--openblas-coretype auto` avoids this)")
    lines.append(f"- OpenBLAS in use (PyTorch's BLAS): {core}")
    if info.get("OpenBLAS in use (SGEMM benchmark)"):
        lines.append("- OpenBLAS in use (SGEMM benchmark below): core "
                     f"{info['OpenBLAS in use (SGEMM benchmark)']}")
    for k, v in info["versions"].items():
        lines.append(f"- {k}: {v}")
    before, after = info["load average before / after"]
    lines.append(f"- load average before / after: {before} / {after} (other processes sharing "
                 "the cores inflate and scatter every number)")
    trips = info.get("core-to-core round trip before / after (ns)")
    if trips and None not in trips:
        lines.append(f"- a cache line's round trip between two threads before / after: {trips[0]} / "
                     f"{trips[1]} ns (about 100: the two CPUs share a cache; 400-600: far apart, "
                     "and the 2-thread figures drop, docs/paths.md)")
    if "1-thread configurations pinned to CPU" in info:
        cpu = info["1-thread configurations pinned to CPU"]
        lines.append("- 1-thread configurations (ORT, Kiln VM and AOT, PyTorch): " +
                     (f"pinned to CPU {cpu} (2-thread ones unpinned)" if cpu is not None
                      else "not pinned"))
    if "kiln commit" in info:
        lines.append(f"- Kiln source: {info['kiln commit']}")
    lines.append(f"- duration: {info['duration_s']} s; settings: " +
                 ", ".join(f"{k} {v}" for k, v in settings.items()))
    return lines


def _path_table(results, path, label):
    lines = ["", f"## Path `{path}` ({label}): latency (ms) and ratios", ""]
    if label == "forced":
        # ORT has no switch for its kernels' ISA: a forced Kiln path is set
        # against ORT's widest, which overstates the gap a CPU of that ISA sees.
        lines += ["ONNX Runtime is not forced: it runs its own widest kernels for this CPU, so "
                  "the ratios set Kiln's forced path against ORT's native one.", ""]
    lines += ["| model | ORT 1t | ORT 2t | Kiln AOT 1t | Kiln VM 1t | Kiln VM 2t "
              "| AOT/ORT 1t | goal | VM/ORT 1t | VM/ORT 2t | VM/AOT 1t | VM 1t/2t |",
              "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        ort1, ort2 = _median(r, "ort_1t"), _median(r, "ort_2t")
        aot = _median(r, f"kiln_aot_{path}_1t")
        vm1, vm2 = _median(r, f"kiln_vm_{path}_1t"), _median(r, f"kiln_vm_{path}_2t")
        goal = AOT_VS_ORT_GOAL.get(r["model"], DEFAULT_GOAL)
        met = "—" if aot is None or ort1 is None else ("met" if aot / ort1 <= goal else "not met")
        lines.append(f"| {r['model']} | {_ms(ort1)} | {_ms(ort2)} | {_ms(aot)} | {_ms(vm1)} "
                     f"| {_ms(vm2)} | {_ratio(aot, ort1)} | ≤ {goal:.1f}: {met} "
                     f"| {_ratio(vm1, ort1)} | {_ratio(vm2, ort2)} | {_ratio(vm1, aot, 3)} "
                     f"| {_ratio(vm1, vm2)} |")
    return lines


def _torch_table(results):
    lines = ["", "## PyTorch (secondary baseline): latency (ms)", "",
             "| model | eager 1t | frozen 1t | eager 2t | frozen 2t | best 1t / ORT 1t |",
             "|---|---|---|---|---|---|"]
    for r in results:
        cells = [_median(r, f"torch_{k}_{t}t") for t in (1, 2) for k in ("eager", "frozen")]
        best1 = min((v for v in cells[:2] if v is not None), default=None)
        lines.append(f"| {r['model']} | " + " | ".join(_ms(v) for v in cells) +
                     f" | {_ratio(best1, _median(r, 'ort_1t'))} |")
    return lines


def _agreement_table(results, paths):
    head = ["ORT"] + [f"{kind} `{p}`" for p in paths for kind in ("VM", "AOT")]
    lines = ["", "## Outputs against PyTorch (max abs difference; tolerance "
             "1e-4 x max(1, max abs reference), as in the e2e test)", "",
             "| model | tolerance | " + " | ".join(head) + " |",
             "|---|---|" + "---|" * len(head)]
    for r in results:
        d = r["max_abs_diff"]
        cells = [d.get("ort_1t")]
        for p in paths:
            vm = [d[k] for k in (f"kiln_vm_{p}_1t", f"kiln_vm_{p}_2t") if k in d]
            cells += [max(vm) if vm else None, d.get(f"kiln_aot_{p}_1t")]
        text = ["—" if v is None else f"{v:.2g}" + ("" if v <= r["tolerance"] else " (over)")
                for v in cells]
        lines.append(f"| {r['model']} | {r['tolerance']:.2g} | " + " | ".join(text) + " |")
    return lines


def _module_table(results, paths):
    lines = ["", "## Module", "",
             "| model | dispatches | arena bytes | live lower bound | arena / bound "
             "| compile (s) | " + " | ".join(f"bundle build `{p}` (s)" for p in paths) + " |",
             "|---|---|---|---|---|---|" + "---|" * len(paths)]
    for r in results:
        if "compile_s" not in r:
            continue
        arena, bound = r.get("arena_bytes"), r.get("arena_lower_bound")
        ratio = f"{arena / bound:.2f}" if arena and bound else "—"
        builds = [r["aot_build_s"].get(p) for p in paths]
        lines.append(f"| {r['model']} | {r['dispatches']} | {arena} | {bound} | {ratio} "
                     f"| {r['compile_s']:.2f} | " +
                     " | ".join("—" if b is None else f"{b:.1f}" for b in builds) + " |")
    return lines


def _failures(results):
    lines = []
    for r in results:
        for key, message in r["errors"].items():
            lines.append(f"- {r['model']}, {key}: {message}")
    return ["", "## Failures", ""] + lines if lines else []


def kernels_markdown(data):
    """Kiln (per path) vs OpenBLAS SGEMM from a Google Benchmark JSON of
    gemm_benchmark.cc (BM_KilnSgemm/PATH/M:..., BM_OpenblasSgemm/M:...)."""
    rate = {}  # shape -> {(kind, path): GFLOP/s}
    for b in data["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        m = re.match(r"BM_(\w+?)(?:/(\w+))?/M:(\d+)/N:(\d+)/K:(\d+)", b["name"])
        if m and "GFLOP/s" in b:
            gflops = b["GFLOP/s"] / 1e9 if b["GFLOP/s"] > 1e6 else b["GFLOP/s"]
            rate.setdefault(f"{m[3]}x{m[4]}x{m[5]}", {})[(m[1], m[2])] = gflops
    order = ("avx512", "avx2", "neon", "portable")  # widest first, like the tables above
    paths = sorted({p for r in rate.values() for (_, p) in r if p},
                   key=lambda p: order.index(p) if p in order else len(order))
    lines = []
    for path in paths:
        lines += ["", f"## SGEMM on path `{path}`, 1 thread (GFLOP/s, Google Benchmark, "
                      "same binary; OpenBLAS with the SGEMM benchmark's core above)", "",
                  "| M x N x K | Kiln | Kiln, B pre-packed | OpenBLAS | Kiln / OpenBLAS "
                  "| pre-packed / OpenBLAS |", "|---|---|---|---|---|---|"]
        for shape, r in rate.items():
            k, p = r.get(("KilnSgemm", path)), r.get(("KilnSgemmPackedB", path))
            o = r.get(("OpenblasSgemm", None))
            if k and p and o:
                lines.append(f"| {shape} | {k:.1f} | {p:.1f} | {o:.1f} | {k / o:.2f} "
                             f"| {p / o:.2f} |")
    return lines


def render(results, info, settings, paths, kernels=None):
    runnable = info["kernel paths"]["runnable"] or []
    lines = ["# Kiln benchmarks", "",
             "Generated by `benchmarks/models/bench_models.py` (its header gives the command); "
             "latencies in ms, batch 1, float32. Every configuration runs a few times first "
             "(warm-up and output check), then once per round, the rounds interleaved so load "
             "from other processes hits all alike; median = median of the round medians "
             "(min/max in the JSON beside this file). ORT = ONNX Runtime (npm "
             "onnxruntime-node, CPU, all graph optimizations), timed by its profiler's per-run "
             "events. Kiln VM = `kiln run --isa PATH --threads T`; Kiln AOT = the bundle built "
             "with `-O3` and the path's flags, called serially. Ratios below 1: Kiln is faster "
             "(VM 1t/2t: the speed-up from a second thread). The goal column is issue 18's "
             "(AOT/ORT ≤ 0.8 for CNNs, ≤ 1.0 otherwise).", ""]
    lines += ["One model, one path, against ONNX Runtime "
              "([compare-vm-aot.md](compare-vm-aot.md)):", "", "```sh",
              "bash benchmarks/models/ort/install.sh",
              "kiln bench benchmarks/models/out/resnet18.onnx "
              "--input benchmarks/models/out/resnet18.input.npy --repeat 50 --isa avx2 \\",
              "    --baseline-cmd 'node benchmarks/models/ort/ort_run.js "
              "benchmarks/models/out/resnet18.onnx --threads 1'", "```", ""]
    lines += _machine(info, settings)
    for p in paths:
        label = "native, the widest this CPU runs" if runnable and p == runnable[-1] else "forced"
        lines += _path_table(results, p, label)
    lines += _torch_table(results)
    lines += _agreement_table(results, paths)
    lines += _module_table(results, paths)
    lines += _failures(results)
    if kernels:
        lines += kernels_markdown(kernels)
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    # Re-renders the Markdown from a run's JSON (after a change of layout
    # here, without timing again): bench_markdown.py RESULTS.json OUT.md
    import json
    import sys
    with open(sys.argv[1]) as f:
        data = json.load(f)
    paths = list(data["machine"]["kernel paths"]["timed"])
    with open(sys.argv[2], "w") as f:
        f.write(render(data["results"], data["machine"], data["settings"], paths,
                       data.get("kernels")))
