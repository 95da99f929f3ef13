#!/usr/bin/python3
"""A notebook-style tour of `import kiln` (run it whole, or cell by cell in
an editor that understands `# %%`): export a torchvision model, compile it,
run it in the VM, compare it with PyTorch, look at its intermediates, build
it as C and time the VM against the C.

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/torchvision_to_c.py [OUT_DIR]

Needs the Python package (built by `bash scripts/test.sh`, or
`cmake --build --preset release --target kiln_python`) and Debian's
python3-torch and python3-torchvision. Random weights, no downloads.
"""

# %% Export a torchvision model to ONNX, in memory
import io
import os
import sys

import numpy as np
import torch
import torchvision

import kiln

out_dir = sys.argv[1] if len(sys.argv) > 1 else "build/python_example"
os.makedirs(out_dir, exist_ok=True)

torch.manual_seed(0)
model = torchvision.models.resnet18(weights=None).eval()
x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
onnx_bytes = io.BytesIO()
torch.onnx.export(model, torch.from_numpy(x), onnx_bytes, input_names=["image"],
                  output_names=["logits"], opset_version=13)
print(f"exported resnet18: {len(onnx_bytes.getvalue()) / 1e6:.1f} MB of ONNX")

# %% Compile (no files: bytes in, a module in memory out)
module = kiln.compile(onnx_bytes.getvalue())
print(module.signature)
print(f"arena: {module.arena_bytes / 2**20:.1f} MiB")

# %% Run in the VM: NumPy in, NumPy out
logits = module(x)
print("top-5 classes:", np.argsort(logits[0])[::-1][:5])

# %% Compare with PyTorch (the model itself is the reference)
result = kiln.compare(module, model, [x])
print(result)
assert result.ok

# %% Every intermediate by its ONNX name, and where the time goes
run = module.run(x, dump=True, profile=True, check_nan=True)
print(f"{len(run.dump)} intermediate values, e.g.:")
for name, value in list(run.dump.items())[:4]:
    print(f"  {name}: {value.dtype}{list(value.shape)}")
slowest = sorted(run.profile, key=lambda row: row["total_ms"], reverse=True)[:3]
for row in slowest:
    print(f"  dispatch {row['dispatch']:2d} {row['op']:<28} {row['mean_us']:8.1f} us "
          f"{row['gflops'] or 0:6.1f} GFLOP/s")

# %% Save the module, then build it as C and load the library with ctypes
module.save(os.path.join(out_dir, "resnet18.kiln"))
c_model = module.build_c(os.path.join(out_dir, "resnet18_c"), name="resnet18")
np.testing.assert_allclose(c_model(x), logits, rtol=1e-5, atol=1e-5)
print(f"built {c_model.path}")

# %% Time the VM against the C, same inputs, same timing loop
print(kiln.bench(module, x, c_model=c_model, repeat=20, warmup=2))
