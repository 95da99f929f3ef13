#!/usr/bin/python3
"""A model's 1-thread / 2-thread speed-up in the VM, sorted by where the host
placed the two CPUs at the time.

On a virtual machine the host may run the two vCPUs close together (a cache
line's round trip about 100 ns: they share an L3) or far apart (400-600 ns),
and move them within minutes; a layer split over two threads then reads half
of what the layer before wrote from the other core at a quarter of the speed.
This script alternates: the round trip (kiln_benchmarks'
BM_CoreToCoreRoundTrip), the model on 1 thread (pinned to the last CPU) and on
2, the round trip again; it keeps each pair whose two round trips agree on the
placement and reports the median speed-up per placement.

  benchmarks/models/scaling_by_placement.py --kiln build/release/tools/kiln \\
      --kernels-bench build/release/benchmarks/kiln_benchmarks \\
      --module resnet18.kiln --input benchmarks/models/out/resnet18.input.npy --seconds 900
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_machine  # noqa: E402

# Round trips under this are "close", over FAR_NS "far"; pairs between or
# straddling a move are left out.
CLOSE_NS, FAR_NS = 200, 300


def median_ms(kiln, module, inputs, output, threads, repeat, pin):
    cmd = [kiln, "run", module, "--output", output, "--repeat", str(repeat),
           "--threads", str(threads)] + inputs
    if pin is not None:
        cmd = ["taskset", "-c", str(pin)] + cmd
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return bench_machine.parse_latency(out)["median"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--kernels-bench", required=True, help="kiln_benchmarks")
    ap.add_argument("--module", required=True)
    ap.add_argument("--input", action="append", required=True, help="repeat per input")
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--repeat", type=int, default=30, help="runs per measurement")
    args = ap.parse_args()
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        sys.exit("scaling_by_placement: needs two CPUs")
    inputs = [a for x in args.input for a in ("--input", x)]
    ratios = {"close": [], "far": []}
    with tempfile.TemporaryDirectory(prefix="kiln_scaling_") as work:
        output = os.path.join(work, "out.npy")
        end = time.time() + args.seconds
        while time.time() < end:
            before = bench_machine.core_round_trip_ns(args.kernels_bench)
            t1 = median_ms(args.kiln, args.module, inputs, output, 1, args.repeat, cpus[-1])
            t2 = median_ms(args.kiln, args.module, inputs, output, 2, args.repeat, None)
            after = bench_machine.core_round_trip_ns(args.kernels_bench)
            if before is None or after is None:
                sys.exit("scaling_by_placement: BM_CoreToCoreRoundTrip did not run")
            place = ("close" if max(before, after) < CLOSE_NS else
                     "far" if min(before, after) > FAR_NS else "moved")
            if place != "moved":
                ratios[place].append(t1 / t2)
            print(f"round trip {before} / {after} ns ({place}): 1 thread {t1:.3f} ms, "
                  f"2 threads {t2:.3f} ms, {t1 / t2:.2f}x", flush=True)
    for place, r in ratios.items():
        if r:
            print(f"{place} (round trip {'<' if place == 'close' else '>'} "
                  f"{CLOSE_NS if place == 'close' else FAR_NS} ns): {len(r)} pairs, 1t/2t median "
                  f"{statistics.median(r):.2f}, range {min(r):.2f}-{max(r):.2f}")
        else:
            print(f"{place}: no pairs")


if __name__ == "__main__":
    main()
