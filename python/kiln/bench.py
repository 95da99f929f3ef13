"""kiln.bench: the same module timed in the VM and as AOT C in this process,
both by one C++ loop around one call per run, on the same inputs."""

import statistics
import tempfile

import numpy as np

from ._inputs import order_inputs


class Timing:
    """Milliseconds per run: median, min, max over `runs` runs."""

    def __init__(self, ms):
        self.samples = list(ms)
        self.median_ms = statistics.median(self.samples)
        self.min_ms = min(self.samples)
        self.max_ms = max(self.samples)
        self.runs = len(self.samples)

    def __repr__(self):
        return (f"Timing(median_ms={self.median_ms:.4f}, min_ms={self.min_ms:.4f}, "
                f"max_ms={self.max_ms:.4f}, runs={self.runs})")


class BenchResult:
    """vm and aot Timings, vm_over_aot (ratio of medians) and the largest
    difference between their outputs."""

    def __init__(self, vm, aot, max_abs_diff, c_model):
        self.vm = vm
        self.aot = aot
        self.vm_over_aot = vm.median_ms / aot.median_ms if aot.median_ms > 0 else float("inf")
        self.max_abs_diff = max_abs_diff
        self.c_model = c_model

    def __str__(self):
        return (f"median latency: vm {self.vm.median_ms:.3g} ms, aot {self.aot.median_ms:.3g} ms, "
                f"vm/aot {self.vm_over_aot:.2f}x (max_abs_diff {self.max_abs_diff:.3g}, "
                f"{self.vm.runs} runs each)")

    def __repr__(self):
        return f"<kiln.BenchResult {self}>"


def _max_abs_diff(a, b):
    worst = 0.0
    for x, y in zip(a, b):
        if x.size:
            worst = max(worst, float(np.max(np.abs(x.astype(np.float64) - y.astype(np.float64)))))
    return worst


def bench(module, *arrays, repeat=100, warmup=5, threads=1, c_model=None, dir=None,
          cflags="-O3 -march=native", **named):
    """Times `module` in the VM and as AOT C on the same inputs.

    The AOT side is `c_model` (a kiln.CModel), or one built now with
    module.build_c(dir, cflags=cflags) (a new temporary directory when dir
    is None). Both are timed by the same C++ loop, `warmup` untimed runs
    then `repeat` timed ones; threads applies to the VM (NAME_run is serial).
    """
    inputs = order_inputs(module.signature.inputs, arrays, named)
    if c_model is None:
        if dir is None:
            dir = tempfile.mkdtemp(prefix="kiln-bench-")
        c_model = module.build_c(dir, cflags=cflags)
    vm_ms = module._native.time(inputs, int(warmup), int(repeat), int(threads))
    aot_ms = c_model.time(*inputs, warmup=warmup, repeat=repeat)
    diff = _max_abs_diff(module.run(*inputs, threads=threads), c_model.run(*inputs))
    return BenchResult(Timing(vm_ms), Timing(aot_ms), diff, c_model)
