#!/usr/bin/python3
"""Checks `kiln run --dump` of MobileNetV2 against PyTorch.

Rebuilds the model exactly as benchmarks/models/export.py does (same seeds),
records inner values with forward hooks, and compares them with the .npy
files the dump wrote for the ONNX values those modules produce (found through
DIR/values.json). The exporter names values after the module path, e.g.
module features.3 (a residual block) ends in '/features/features.3/Add_output_0'.
Tolerance: |kiln - torch| <= 1e-4 * max(1, max|torch|) + 1e-4 * |torch|.
usage: dump_reference_check.py SOURCE_DIR DUMP_DIR INPUT.npy
"""
import importlib.util
import json
import os
import sys

import numpy as np
import torch

src, dump_dir, input_path = sys.argv[1:4]
sys.path.insert(0, os.path.join(src, "benchmarks", "models"))  # export.py's own imports
spec = importlib.util.spec_from_file_location(
    "export", os.path.join(src, "benchmarks", "models", "export.py"))
export = importlib.util.module_from_spec(spec)
spec.loader.exec_module(export)
model, _ = export.build("mobilenet_v2")
x = torch.from_numpy(np.load(input_path))

# module path -> ONNX value name its output becomes
HOOKED = {
    "features.0": "/features/features.0/features.0.2/Clip_output_0",
    "features.3": "/features/features.3/Add_output_0",
    "features.10.conv.1": "/features/features.10/conv/conv.1/conv.1.2/Clip_output_0",
    "features.14.conv.3": "/features/features.14/conv/conv.3/BatchNormalization_output_0",
    "features.18": "/features/features.18/features.18.2/Clip_output_0",
}
refs = {}
modules = dict(model.named_modules())
for path, value in HOOKED.items():
    modules[path].register_forward_hook(
        lambda m, i, o, value=value: refs.__setitem__(value, o.detach().numpy().copy()))
# The classifier's input is the flattened pooled features.
model.classifier.register_forward_pre_hook(
    lambda m, i: refs.__setitem__("/Flatten_output_0", i[0].detach().numpy().copy()))
with torch.no_grad():
    model(x)

index = {e["value"]: e for e in json.load(open(os.path.join(dump_dir, "values.json")))}
failed = 0
for value, ref in refs.items():
    if value not in index:
        print(f"FAILED: {value} was not dumped")
        failed += 1
        continue
    got = np.load(os.path.join(dump_dir, index[value]["file"]))
    if got.shape != ref.shape:
        print(f"FAILED: {value}: shape {got.shape}, torch {ref.shape}")
        failed += 1
        continue
    diff = np.abs(got.astype(np.float64) - ref)
    bound = 1e-4 * max(1.0, float(np.abs(ref).max())) + 1e-4 * np.abs(ref)
    ok = bool((diff <= bound).all())
    print(f"{'ok' if ok else 'FAILED'}: {value} {tuple(ref.shape)} "
          f"max_abs_diff={diff.max():.3g} max|ref|={np.abs(ref).max():.3g}")
    failed += not ok
print(f"{len(refs) - failed} of {len(refs)} inner values match PyTorch")
sys.exit(1 if failed else 0)
