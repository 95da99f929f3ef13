#!/usr/bin/python3
"""Writes reference cases for resize_rt_f32 (Resize with run-time scales or
roi) to tests/runtime/data/ (format of reference_case.py, read by
tests/runtime/kernel_case.h).

References, independent of the C kernels: ONNX's own reference
implementation of Resize as shipped with onnx 1.12
(onnx/backend/test/case/node/resize.py: interpolate_nd_with_x and its
nearest/linear/cubic coefficient functions), evaluated in float64 on the
float32 scales the kernel reads. Two notes on that reference:
- it has no tf_half_pixel_for_nn; x_ori = (x + 0.5) / scale is its
  asymmetric mode at coordinate x + 0.5, so that is how it is asked;
- for tf_crop_and_resize it divides by scale * in - 1 where the ONNX spec
  (and Kiln) use the output length - 1: the cases here take scales whose
  scale * in is a whole number, where the two agree.

Run with Debian's interpreter: /usr/bin/python3 tests/runtime/make_reference_resize.py
"""
import numpy as np
from onnx.backend.test.case.node.resize import (cubic_coeffs, interpolate_nd_with_x,
                                                linear_coeffs, nearest_coeffs)

from reference_case import IN, OUT, binding, write_case

F32, F64 = 1, 3
MODES = {"nearest": 0, "linear": 1, "cubic": 2}
NEAREST = {"round_prefer_floor": 0, "round_prefer_ceil": 1, "floor": 2, "ceil": 3}
CTM = {"half_pixel": 0, "align_corners": 1, "asymmetric": 2, "tf_crop_and_resize": 3,
       "pytorch_half_pixel": 4, "tf_half_pixel_for_nn": 5}
rng = np.random.default_rng(20250611)


def reference(x, out_shape, scales, roi, mode, nearest, ctm, a, exclude, extrapolation):
    if mode == "nearest":
        coeffs = lambda r: nearest_coeffs(r, mode=nearest)
    elif mode == "linear":
        coeffs = linear_coeffs
    else:
        coeffs = lambda r: cubic_coeffs(r, A=a)
    shift = 0.5 if ctm == "tf_half_pixel_for_nn" else 0.0
    ref_ctm = "asymmetric" if ctm == "tf_half_pixel_for_nn" else ctm
    y = np.zeros(out_shape, np.float64)
    for idx in np.ndindex(*out_shape):
        y[idx] = interpolate_nd_with_x(
            x.astype(np.float64), x.ndim, scales, [i + shift for i in idx], coeffs,
            roi=None if roi is None else roi.astype(np.float64),
            extrapolation_value=extrapolation, coordinate_transformation_mode=ref_ctm,
            exclude_outside=exclude)
    return y


def case(name, shape, mode="nearest", nearest="round_prefer_floor", ctm="half_pixel",
         scales=None, sizes=None, roi=None, roi_t=F32, a=-0.75, exclude=False,
         extrapolation=0.0):
    """scales: the run-time scales (the kernel checks them); sizes: the
    run-time-sizes form (check_scales 0, scales = out / in in float32)."""
    x = rng.standard_normal(shape).astype(np.float32)
    r = len(shape)
    if scales is not None:
        s32 = np.array(scales, np.float32)
        out = [int(np.floor(float(n) * float(s))) for n, s in zip(shape, s32)]
        check = 1
    else:
        out = list(sizes)
        s32 = np.array([o / n for o, n in zip(out, shape)], np.float32)
        check = 0
    roi_arr = np.array(roi if roi is not None else [0.0] * r + [1.0] * r,
                       np.float64 if roi_t == F64 else np.float32)
    y = reference(x, out, s32.astype(np.float64), roi_arr if ctm == "tf_crop_and_resize" else None,
                  mode, nearest, ctm, a, exclude, extrapolation)
    ip = [r, MODES[mode], NEAREST[nearest], CTM[ctm], int(exclude), check, roi_t] + \
        list(shape) + out
    write_case(name, "resize_rt_f32", ip, [a, extrapolation],
               [binding(IN, x), binding(IN, roi_arr), binding(IN, s32),
                binding(OUT, expected=y.astype(np.float32))])


def main():
    case("nearest_half_pixel", [1, 2, 4, 5], scales=[1, 1, 0.6, 1.7])
    case("nearest_ceil_asymmetric", [2, 3], nearest="ceil", ctm="asymmetric", scales=[2.5, 1.5])
    case("nearest_floor_asymmetric_upsample", [1, 1, 2, 2], nearest="floor", ctm="asymmetric",
         scales=[1, 1, 2, 3])
    case("nearest_prefer_ceil_tf_half_pixel_for_nn", [3, 7], nearest="round_prefer_ceil",
         ctm="tf_half_pixel_for_nn", scales=[1.5, 0.5])
    case("nearest_prefer_ceil_align_corners", [5, 4], nearest="round_prefer_ceil",
         ctm="align_corners", scales=[1.4, 2.0])
    case("linear_half_pixel_3d", [3, 5, 4], mode="linear", scales=[1.5, 0.8, 2.0])
    case("linear_align_corners", [1, 1, 2, 4], mode="linear", ctm="align_corners",
         scales=[1, 1, 0.6, 0.6])
    case("linear_pytorch_half_pixel_to_one", [2, 4, 6], mode="linear",
         ctm="pytorch_half_pixel", scales=[1.0, 0.25, 1.5])
    case("linear_1d", [9], mode="linear", scales=[0.55])
    case("cubic_half_pixel", [1, 1, 4, 4], mode="cubic", scales=[1, 1, 2, 2])
    case("cubic_exclude_outside", [1, 1, 5, 4], mode="cubic", a=-0.5, exclude=True,
         scales=[1, 1, 0.8, 1.75])
    case("cubic_asymmetric", [2, 4, 3], mode="cubic", ctm="asymmetric", scales=[1, 1.5, 2.5])
    case("cubic_align_corners", [4, 4], mode="cubic", ctm="align_corners", scales=[0.8, 1.5])
    case("tf_crop_linear_f32_roi", [1, 1, 4, 4], mode="linear", ctm="tf_crop_and_resize",
         scales=[1, 1, 0.75, 0.75], roi=[0, 0, 0.4, 0.6, 1, 1, 1.2, 1.7], extrapolation=10.0)
    case("tf_crop_nearest_f64_roi_sizes", [2, 5, 4], ctm="tf_crop_and_resize",
         sizes=[2, 3, 1], roi=[0, -0.3, 0.6, 1, 0.9, 0.9], roi_t=F64, extrapolation=-2.0)
    case("tf_crop_cubic_sizes", [3, 6], mode="cubic", ctm="tf_crop_and_resize", sizes=[4, 5],
         roi=[0.1, 0.25, 0.8, 0.95])
    case("linear_sizes_half_pixel", [4, 7], mode="linear", sizes=[6, 3])
    # Coordinates exactly halfway between two inputs (x / 4 and x / 2).
    case("nearest_prefer_floor_ties", [3, 4], ctm="asymmetric", scales=[4, 2])
    case("nearest_prefer_ceil_ties", [3, 4], nearest="round_prefer_ceil", ctm="asymmetric",
         scales=[4, 2])
    case("nearest_rank5", [1, 2, 2, 3, 2], nearest="round_prefer_ceil",
         scales=[1, 2, 1.5, 1, 2.5])
    case("downsample_to_empty", [2, 4], mode="linear", scales=[1, 0.2])


if __name__ == "__main__":
    main()
