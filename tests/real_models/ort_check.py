"""What the real-model tests share: running a command into a log, and
checking the VM's and the AOT bundle's outputs against ONNX Runtime's
(1e-4 * max(1, max|ref|), same shape) and against each other."""
import subprocess

import numpy as np


def run(cmd, log):
    with open(log, "w") as f:
        return subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, timeout=1800).returncode == 0


def tail(log, n=5):
    with open(log) as f:
        return "".join(f.readlines()[-n:])


def bound_of(ref, rel):
    return rel * max(1.0, float(np.max(np.abs(ref))) if ref.size else 1.0)


def compare_outputs(label, names, outs, vm_vs_aot=1e-5):
    """Failure messages for outputs `names` (files outs["ort"|"vm"|"aot"][i]);
    prints one line per back end and output. `vm_vs_aot`: their relative
    tolerance (1e-4 when the AOT bundle runs another kernel path)."""
    failures = []
    for i, out in enumerate(names):
        ref = np.load(outs["ort"][i])
        for r in ("vm", "aot"):
            got = np.load(outs[r][i])
            if got.shape != ref.shape:
                failures.append(f"{label}: {r} output '{out}' has shape {got.shape}, "
                                f"ONNX Runtime {ref.shape}")
                continue
            diff = float(np.max(np.abs(got.astype(np.float64) - ref))) if ref.size else 0.0
            bound = bound_of(ref, 1e-4)
            print(f"{label} {r:3s} vs ORT '{out}' {tuple(ref.shape)}: max|diff|={diff:.3g} "
                  f"bound={bound:.3g} {'ok' if diff <= bound else 'MISMATCH'}")
            if diff > bound:
                failures.append(f"{label}: {r} output '{out}' differs from ONNX Runtime by "
                                f"{diff:.3g} (bound {bound:.3g})")
        vm, ao = np.load(outs["vm"][i]), np.load(outs["aot"][i])
        if vm.shape != ao.shape or (
                vm.size and np.max(np.abs(vm.astype(np.float64) - ao)) > bound_of(vm, vm_vs_aot)):
            failures.append(f"{label}: VM and AOT output '{out}' differ")
    return failures
