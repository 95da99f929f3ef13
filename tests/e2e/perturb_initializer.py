#!/usr/bin/python3
"""Writes a copy of an ONNX model with one initializer scaled (for kiln compare).
usage: perturb_initializer.py IN.onnx OUT.onnx INITIALIZER SCALE"""
import sys

import numpy as np
import onnx
from onnx import numpy_helper

src, dst, name, scale = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
model = onnx.load(src)
for i, init in enumerate(model.graph.initializer):
    if init.name == name:
        arr = numpy_helper.to_array(init) * np.float32(scale)
        model.graph.initializer[i].CopyFrom(numpy_helper.from_array(arr.astype(np.float32), name))
        break
else:
    sys.exit(f"no initializer named {name}")
onnx.save(model, dst)
