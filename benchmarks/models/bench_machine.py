"""What bench_models.py records about the machine and the runners: CPU model and
ISA, Kiln's kernel paths (runnable ones and their AOT flags), the OpenBLAS core
that PyTorch's BLAS runs, tool versions, the load average and how far apart
two threads' CPUs are; and the latency line the runners print."""
import ctypes
import json
import os
import platform
import re
import subprocess

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORT_DIR = os.path.join(SOURCE_DIR, "benchmarks", "models", "ort")

# The CPU flags that decide which SIMD code can run (lscpu/cpuinfo spelling).
ISA_FLAGS = ("sse4_2", "avx", "f16c", "fma", "avx2", "avx512f", "avx512dq", "avx512bw",
             "avx512vl", "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "asimd",
             "sve")
# Kiln's kernel paths, narrowest first (runtime/CMakeLists.txt, vm/kernel_paths.h).
KERNEL_PATHS = ("portable", "avx2", "avx512", "neon")


def _text(cmd):
    try:
        return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return ""


# The line `kiln run`, `kiln bench`, the AOT runner and ort_run.js print.
LATENCY = re.compile(r"latency_ms median=([0-9.]+) min=([0-9.]+) max=([0-9.]+) runs=(\d+)")


def parse_latency(text):
    m = LATENCY.search(text)
    if not m:
        raise RuntimeError("no latency_ms line in: " + text.strip()[-200:])
    return {"median": float(m[1]), "min": float(m[2]), "max": float(m[3]), "runs": int(m[4])}


def load_average():
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def core_round_trip_ns(kernels_bench):
    """A cache line's round trip between two threads (kiln_benchmarks'
    BM_CoreToCoreRoundTrip) in ns, or None. A virtual machine's host may place
    its two vCPUs close (about 100 ns: a shared L3) or far apart (400-600 ns)
    and move them within minutes; the 2-thread figures follow the placement
    (ResNet-18 in the VM, 1t/2t: median 1.86 close, 1.63 far; docs/paths.md)."""
    out = _text([kernels_bench, "--benchmark_filter=^BM_CoreToCoreRoundTrip/",
                 "--benchmark_format=json"])
    try:  # the counter is an inverted rate: seconds per round trip
        return round(json.loads(out)["benchmarks"][0]["ns_per_round_trip"] * 1e9)
    except (ValueError, KeyError, IndexError, TypeError):
        return None


def kernel_path_flags():
    """{path: C flags} from runtime/CMakeLists.txt's KILN_PATH_FLAGS_<path>, the
    list the VM's copies of the kernels are compiled with; a bundle built with
    `-O3 FLAGS` runs the same path's code."""
    text = open(os.path.join(SOURCE_DIR, "runtime", "CMakeLists.txt")).read()
    flags = {}
    for path in KERNEL_PATHS:
        m = re.search(rf"^set\(KILN_PATH_FLAGS_{path}\s+(.*)\)\s*$", text, re.M)
        if m is None:
            raise RuntimeError(f"runtime/CMakeLists.txt sets no KILN_PATH_FLAGS_{path}")
        flags[path] = m[1].strip().strip('"')
    return flags


def runnable_paths(kiln, module, inputs):
    """The kernel paths `kiln run --isa` accepts on this machine, narrowest
    first, and the refusal message of each other one."""
    runnable, refused = [], {}
    for path in KERNEL_PATHS:
        p = subprocess.run([kiln, "run", module, "--isa", path] + inputs,
                           capture_output=True, text=True)
        if p.returncode == 0:
            runnable.append(path)
        else:
            refused[path] = (p.stderr.strip().splitlines() or ["exit %d" % p.returncode])[-1]
    return runnable, refused


# The OpenBLAS core that runs a CPU's widest SIMD, for a CPU that OpenBLAS's
# autodetection does not know (it then falls back to Prescott, SSE3 only: on an
# AVX-512 Xeon of family 6 model 207, 0.3.21 runs SGEMM ~10x slower so).
CORE_FOR_ISA = (("avx512f", "SkylakeX"), ("avx2", "Haswell"))
PROBE = ("import ctypes, numpy\n"
         "libs = sorted({l.split()[-1] for l in open('/proc/self/maps') if 'openblas' in l})\n"
         "h = ctypes.CDLL(libs[0]) if libs else None\n"
         "if h: h.openblas_get_corename.restype = ctypes.c_char_p\n"
         "print(h.openblas_get_corename().decode() if h else '')\n")


def openblas_autodetected_core(python):
    """The core OpenBLAS picks with OPENBLAS_CORETYPE unset ('' if none loads)."""
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_CORETYPE"}
    try:
        return subprocess.run([python, "-c", PROBE], check=True, capture_output=True,
                              text=True, env=env).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def openblas_coretype_choice(requested, python):
    """(value for OPENBLAS_CORETYPE or None for unset, why) for the runs.

    'auto': unset, unless OpenBLAS then falls back to Prescott on a CPU with
    AVX2 or AVX-512, when the core for that ISA is set instead. 'unset': unset.
    Anything else: that core."""
    if requested == "unset":
        return None, "unset (--openblas-coretype unset)"
    if requested != "auto":
        return requested, f"{requested} (--openblas-coretype)"
    detected = openblas_autodetected_core(python)
    have = set(cpu().get("ISA flags", "").split())
    if detected == "Prescott":
        for flag, core in CORE_FOR_ISA:
            if flag in have:
                return core, (f"{core}: unset, OpenBLAS autodetection falls back to Prescott "
                              f"(SSE3) on this CPU, which has {flag}; set to {core} instead "
                              "(--openblas-coretype auto)")
    return None, f"unset (OpenBLAS autodetects {detected or 'nothing'})"


def openblas_library():
    """The OpenBLAS this process loaded (through torch/numpy), or None."""
    try:
        with open("/proc/self/maps") as maps:
            libs = sorted({line.split()[-1] for line in maps
                           if "openblas" in line and ".so" in line})
    except OSError:
        return None
    for lib in libs:
        try:
            handle = ctypes.CDLL(lib)
            handle.openblas_get_corename.restype = ctypes.c_char_p
            handle.openblas_get_config.restype = ctypes.c_char_p
            return handle
        except (OSError, AttributeError):
            continue
    return None


def openblas_description(handle):
    if handle is None:
        return "not loaded by this process"
    return (f"core {handle.openblas_get_corename().decode()} "
            f"(openblas_get_corename; config: {handle.openblas_get_config().decode()})")


def cpu():
    info = {}
    lscpu = _text(["lscpu"])
    for key in ("Model name", "Vendor ID", "CPU family", "Model", "L1d cache", "L2 cache",
                "L3 cache"):
        m = re.search(rf"^{key}:\s*(.+)$", lscpu, re.M)
        if m:
            info[key] = m[1].strip()
    m = re.search(r"^Flags:\s*(.+)$", lscpu, re.M)
    if m:
        have = set(m[1].split())
        info["ISA flags"] = " ".join(f for f in ISA_FLAGS if f in have)
    info["cpus"] = os.cpu_count()
    return info


def tool_versions(torch_version):
    versions = {"platform": platform.platform(), "python": platform.python_version(),
                "torch": torch_version}
    gcc = _text(["gcc", "--version"]).splitlines()
    versions["gcc"] = gcc[0] if gcc else "unknown"
    versions["node"] = _text(["node", "--version"]).strip() or "not found"
    try:
        with open(os.path.join(ORT_DIR, "node_modules", "onnxruntime-node", "package.json")) as f:
            versions["onnxruntime-node"] = json.load(f)["version"]
    except (OSError, ValueError, KeyError):
        versions["onnxruntime-node"] = "not installed (bash benchmarks/models/ort/install.sh)"
    return versions
