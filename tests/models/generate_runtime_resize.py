#!/usr/bin/python3
"""Writes an end-to-end model whose Resize scales and roi are graph inputs.

Run with Debian's interpreter (onnx 1.12, numpy):
  /usr/bin/python3 tests/models/generate_runtime_resize.py

rtresize_ops (opset 13), x [1,2,5,6]:
- rt_resize: linear half_pixel by run-time scales [1,1,1.6,0.5] -> [1,2,8,3];
- const_resize: the same Resize with the scales as an initializer (Kiln's
  compile-time tap tables), the same reference;
- rt_nearest: nearest (floor, asymmetric, the Upsample form) by run-time
  scales [1,1,2,1.5] -> [1,2,10,9];
- rt_crop: cubic tf_crop_and_resize by a run-time roi and run-time sizes
  [1,2,4,4], extrapolation_value 5.
Every output declares a static shape; Kiln compiles the sizes from the
declarations and resize_rt_f32 reads the scales/roi at run time. References
come from ONNX's own reference Resize shipped with onnx 1.12
(onnx/backend/test/case/node/resize.py, NumPy); Kiln's code is not involved.
tests/models/bad/rtresize_ops.input1.wrong.npy holds scales that give 10
rows, not the declared 8: running with it must fail
(tests/e2e/runtime_values_test.sh).
"""
import os

import numpy as np
from onnx import TensorProto, helper, numpy_helper
from onnx.backend.test.case.node.resize import cubic_coeffs, interpolate_nd, linear_coeffs, \
    nearest_coeffs

HERE = os.path.dirname(os.path.abspath(__file__))
from model_files import save_model  # noqa: E402  (beside this script)
F, I64 = TensorProto.FLOAT, TensorProto.INT64


def main():
    rng = np.random.default_rng(26)
    x = rng.standard_normal((1, 2, 5, 6)).astype(np.float32)
    ins = {
        "x": x,
        "scales": np.array([1, 1, 1.6, 0.5], np.float32),
        "roi": np.array([0, 0, 0.1, -0.2, 1, 1, 0.9, 0.8], np.float32),
        "sizes": np.array([1, 2, 4, 4], np.int64),
        "scales_n": np.array([1, 1, 2, 1.5], np.float32),
    }
    x64 = x.astype(np.float64)
    up = interpolate_nd(x64, linear_coeffs, scale_factors=ins["scales"].astype(np.float64))
    outs = {
        "up": up,
        "up_const": up,
        "near": interpolate_nd(x64, lambda r: nearest_coeffs(r, mode="floor"),
                               scale_factors=ins["scales_n"].astype(np.float64),
                               coordinate_transformation_mode="asymmetric"),
        "crop": interpolate_nd(x64, lambda r: cubic_coeffs(r, A=-0.75),
                               output_size=list(ins["sizes"]),
                               roi=ins["roi"].astype(np.float64),
                               coordinate_transformation_mode="tf_crop_and_resize",
                               extrapolation_value=5.0),
    }
    assert outs["up"].shape == (1, 2, 8, 3) and outs["near"].shape == (1, 2, 10, 9)
    const_scales = numpy_helper.from_array(ins["scales"], "const_scales")
    nodes = [
        helper.make_node("Resize", ["x", "", "scales"], ["up"], mode="linear",
                         name="rt_resize"),
        helper.make_node("Resize", ["x", "", "const_scales"], ["up_const"], mode="linear",
                         name="const_resize"),
        helper.make_node("Resize", ["x", "", "scales_n"], ["near"], mode="nearest",
                         nearest_mode="floor", coordinate_transformation_mode="asymmetric",
                         name="rt_nearest"),
        helper.make_node("Resize", ["x", "roi", "", "sizes"], ["crop"], mode="cubic",
                         coordinate_transformation_mode="tf_crop_and_resize",
                         extrapolation_value=5.0, name="rt_crop"),
    ]
    save_model(HERE, "rtresize_ops", nodes, ins,
               {k: np.asarray(v, np.float32) for k, v in outs.items()}, [const_scales])
    # Scales [1,1,2,0.5] give 10 rows, not the declared 8.
    np.save(os.path.join(HERE, "bad", "rtresize_ops.input1.wrong.npy"),
            np.array([1, 1, 2, 0.5], np.float32))


if __name__ == "__main__":
    main()
