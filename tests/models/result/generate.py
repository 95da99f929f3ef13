"""Models whose output length is known only after the run, returned as graph
outputs without a declared shape (dim_param): NonZero (beside a Relu;
references by numpy.nonzero; three inputs give 2, 9 and 0 non-zeros) and
Compress along axis 1 with a run-time condition (references by
numpy.compress; conditions selecting 2, 4 and 0 columns), Unique without an
axis (all four outputs) and along axis 1 (no counts output), references by
numpy.unique with return_index/inverse/counts, data with repeats, all
elements equal and all distinct; NonMaxSuppression with a constant
max_output_boxes_per_class and a run-time score_threshold, and with a
run-time max_output_boxes_per_class, references by nms_reference below
(NumPy, following the ONNX operator's definition).
usage: /usr/bin/python3 tests/models/result/generate.py"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.INT64, [2, "n"])
    r = helper.make_tensor_value_info("r", TensorProto.FLOAT, [3, 4])
    graph = helper.make_graph([helper.make_node("NonZero", ["x"], ["y"], name="nz"),
                               helper.make_node("Relu", ["x"], ["r"], name="relu")],
                              "nonzero_after_run", [x], [y, r])
    model = helper.make_model(graph, producer_name="kiln-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "nonzero_after_run.onnx"))
    rng = np.random.default_rng(1)
    for k, density in enumerate([0.3, 0.8, 0.0]):
        a = (rng.random((3, 4)) < density).astype(np.float32)
        a *= rng.standard_normal((3, 4)).astype(np.float32)
        np.save(os.path.join(HERE, f"nonzero_after_run.in{k}.npy"), a)
        np.save(os.path.join(HERE, f"nonzero_after_run.ref{k}.npy"),
                np.array(np.nonzero(a), dtype=np.int64))
        print(k, int(np.count_nonzero(a)), "non-zeros")

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, "k"])
    graph = helper.make_graph([helper.make_node("Compress", ["x", "cond"], ["y"], name="cp", axis=1)],
                              "compress_after_run", [x, cond], [y])
    model = helper.make_model(graph, producer_name="kiln-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, "compress_after_run.onnx"))
    data = rng.standard_normal((3, 4)).astype(np.float32)
    for k, c in enumerate([[1, 0, 0, 1], [1, 1, 1, 1], [0, 0, 0, 0]]):
        c = np.array(c, dtype=bool)
        np.save(os.path.join(HERE, f"compress_after_run.x{k}.npy"), data)
        np.save(os.path.join(HERE, f"compress_after_run.cond{k}.npy"), c)
        np.save(os.path.join(HERE, f"compress_after_run.ref{k}.npy"), np.compress(c, data, axis=1))

    unique_models(rng)
    nms_models(rng)


def save_model(graph, name):
    model = helper.make_model(graph, producer_name="kiln-tests",
                              opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, os.path.join(HERE, name + ".onnx"))


def save(model, tensor, k, array):
    np.save(os.path.join(HERE, f"{model}.{tensor}{k}.npy"), array)


def unique_models(rng):
    # No axis, sorted: x [8] float32; Y, indices, counts [n], inverse [8].
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [8])
    outs = [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n"]),
            helper.make_tensor_value_info("indices", TensorProto.INT64, ["n"]),
            helper.make_tensor_value_info("inverse", TensorProto.INT64, [8]),
            helper.make_tensor_value_info("counts", TensorProto.INT64, ["n"])]
    node = helper.make_node("Unique", ["x"], ["y", "indices", "inverse", "counts"], name="uq",
                            sorted=1)
    save_model(helper.make_graph([node], "unique_after_run", [x], outs), "unique_after_run")
    data = [np.array([2.5, -1, 2.5, 0, 7, -1, 2.5, 3], dtype=np.float32),  # repeats: 5 distinct
            np.full(8, 4.25, dtype=np.float32),                              # all equal: 1
            rng.permutation(np.arange(8)).astype(np.float32) * 1.5 - 3]      # all distinct: 8
    for k, a in enumerate(data):
        y, idx, inv, cnt = np.unique(a, return_index=True, return_inverse=True, return_counts=True)
        save("unique_after_run", "x", k, a)
        for name, r in [("y", y), ("indices", idx), ("inverse", inv), ("counts", cnt)]:
            save("unique_after_run", name, k, r.astype(np.float32 if name == "y" else np.int64))
        print("unique", k, len(y), "distinct")

    # Along axis 1 of x [3, 5] int64, sorted: Y [3, n], indices [n], inverse
    # [5] (a static output beside the result-shaped ones); no counts.
    x = helper.make_tensor_value_info("x", TensorProto.INT64, [3, 5])
    outs = [helper.make_tensor_value_info("y", TensorProto.INT64, [3, "n"]),
            helper.make_tensor_value_info("indices", TensorProto.INT64, ["n"]),
            helper.make_tensor_value_info("inverse", TensorProto.INT64, [5])]
    node = helper.make_node("Unique", ["x"], ["y", "indices", "inverse"], name="uq", axis=1,
                            sorted=1)
    save_model(helper.make_graph([node], "unique_axis_after_run", [x], outs),
               "unique_axis_after_run")
    cols = rng.integers(-4, 5, size=(3, 5)).astype(np.int64)
    data = [cols[:, [0, 2, 0, 4, 2]],                   # repeated columns: 3 distinct
            np.repeat(cols[:, [1]], 5, axis=1),         # all columns equal: 1
            np.stack([np.arange(5) * 3 - 6, np.zeros(5), np.arange(5)[::-1]]).astype(np.int64)]
    for k, a in enumerate(data):
        a = np.ascontiguousarray(a)
        y, idx, inv = np.unique(a, axis=1, return_index=True, return_inverse=True)
        save("unique_axis_after_run", "x", k, a)
        for name, r in [("y", y), ("indices", idx), ("inverse", inv.reshape(-1))]:
            save("unique_axis_after_run", name, k, np.ascontiguousarray(r, dtype=np.int64))
        print("unique axis 1", k, y.shape[1], "distinct columns")


def iou(a, b):
    """IoU of boxes [y1, x1, y2, x2] (either diagonal), float64."""
    ay0, ay1 = sorted([a[0], a[2]])
    ax0, ax1 = sorted([a[1], a[3]])
    by0, by1 = sorted([b[0], b[2]])
    bx0, bx1 = sorted([b[1], b[3]])
    ih = max(0.0, min(ay1, by1) - max(ay0, by0))
    iw = max(0.0, min(ax1, bx1) - max(ax0, bx0))
    inter = ih * iw
    union = (ay1 - ay0) * (ax1 - ax0) + (by1 - by0) * (bx1 - bx0) - inter
    return inter / union if inter > 0 and union > 0 else 0.0


def nms_reference(boxes, scores, max_out, iou_thr, score_thr):
    """ONNX NonMaxSuppression (center_point_box 0): per batch and class,
    boxes scoring above score_thr, best first (ties: lower index), each kept
    unless its IoU with a kept one exceeds iou_thr, at most max_out."""
    rows = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c].astype(np.float64)
            cand = [i for i in np.argsort(-s, kind="stable") if score_thr is None or s[i] > score_thr]
            kept = []
            for i in cand:
                if len(kept) >= max_out:
                    break
                if all(iou(boxes[b, i], boxes[b, j]) <= iou_thr for j in kept):
                    kept.append(i)
            rows += [[b, c, i] for i in kept]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def nms_data(rng, batches, n, iou_thr):
    """Boxes on a grid with jitter (some overlapping pairs), drawn again
    until no pair's IoU is within 1e-3 of iou_thr."""
    while True:
        boxes = np.zeros((batches, n, 4), dtype=np.float32)
        for b in range(batches):
            for i in range(n):
                y0 = (i % 3) * 0.6 + rng.uniform(0, 0.3)
                x0 = (i // 3) * 0.6 + rng.uniform(0, 0.3)
                boxes[b, i] = [y0, x0, y0 + 1.0, x0 + 1.0]
        if all(abs(iou(boxes[b, i], boxes[b, j]) - iou_thr) > 1e-3
               for b in range(batches) for i in range(n) for j in range(i)):
            return boxes


def check_margins(boxes, scores, iou_thr, score_thr):
    """No IoU or score sits within 1e-3 of its threshold (float32 vs float64)."""
    for b in range(boxes.shape[0]):
        for i in range(boxes.shape[1]):
            for j in range(i):
                assert abs(iou(boxes[b, i], boxes[b, j]) - iou_thr) > 1e-3
    if score_thr is not None:
        assert np.abs(scores.astype(np.float64) - score_thr).min() > 1e-3


def check_nms_reference():
    """nms_reference reproduces the ONNX test data (corner-format cases)."""
    from onnx import numpy_helper
    root = os.path.join(os.path.dirname(onnx.__file__), "backend/test/data/node")
    cases = [d for d in sorted(os.listdir(root))
             if d.startswith("test_nonmaxsuppression_") and "center_point" not in d]
    assert cases, "no ONNX NonMaxSuppression test data"
    for d in cases:
        data = os.path.join(root, d, "test_data_set_0")
        load = lambda f: numpy_helper.to_array(onnx.load_tensor(os.path.join(data, f)))
        args = [load(f"input_{i}.pb") for i in range(5)]
        got = nms_reference(args[0], args[1], int(args[2].reshape(-1)[0]),
                            float(args[3].reshape(-1)[0]), float(args[4].reshape(-1)[0]))
        assert np.array_equal(got, load("output_0.pb")), d


def nms_models(rng):
    check_nms_reference()
    # Constant max_output_boxes_per_class 3 and iou_threshold 0.3, run-time
    # score_threshold: boxes [2, 6, 4], scores [2, 2, 6]; bound 2*2*3.
    boxes = helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [2, 6, 4])
    scores = helper.make_tensor_value_info("scores", TensorProto.FLOAT, [2, 2, 6])
    thr = helper.make_tensor_value_info("score_threshold", TensorProto.FLOAT, [1])
    sel = helper.make_tensor_value_info("selected", TensorProto.INT64, ["n", 3])
    inits = [helper.make_tensor("max_out", TensorProto.INT64, [1], [3]),
             helper.make_tensor("iou_threshold", TensorProto.FLOAT, [1], [0.3])]
    node = helper.make_node("NonMaxSuppression",
                            ["boxes", "scores", "max_out", "iou_threshold", "score_threshold"],
                            ["selected"], name="nms")
    save_model(helper.make_graph([node], "nms_after_run", [boxes, scores, thr], [sel],
                                 initializer=inits), "nms_after_run")
    b = nms_data(rng, 2, 6, 0.3)
    s = rng.permutation(24).reshape(2, 2, 6).astype(np.float32) / 24 + 0.01
    for k, t in enumerate([0.005, 0.7, 2.0]):  # all candidates, a few, none
        check_margins(b, s, 0.3, t)
        ref = nms_reference(b, s, 3, 0.3, t)
        save("nms_after_run", "boxes", k, b)
        save("nms_after_run", "scores", k, s)
        save("nms_after_run", "score_threshold", k, np.array([t], dtype=np.float32))
        save("nms_after_run", "selected", k, ref)
        print("nms", k, len(ref), "selected")

    # Run-time max_output_boxes_per_class, no thresholds given but iou 0.3:
    # boxes [1, 6, 4], scores [1, 3, 6]; bound 1*3*6.
    boxes = helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 6, 4])
    scores = helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 3, 6])
    mo = helper.make_tensor_value_info("max_out", TensorProto.INT64, [1])
    inits = [helper.make_tensor("iou_threshold", TensorProto.FLOAT, [1], [0.3])]
    node = helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou_threshold"],
                            ["selected"], name="nms")
    save_model(helper.make_graph([node], "nms_max_after_run", [boxes, scores, mo], [sel],
                                 initializer=inits), "nms_max_after_run")
    b = nms_data(rng, 1, 6, 0.3)
    s = rng.permutation(18).reshape(1, 3, 6).astype(np.float32) / 18 + 0.01
    check_margins(b, s, 0.3, None)
    for k, m in enumerate([1, 100, 0]):
        ref = nms_reference(b, s, m, 0.3, None)
        save("nms_max_after_run", "boxes", k, b)
        save("nms_max_after_run", "scores", k, s)
        save("nms_max_after_run", "max_out", k, np.array([m], dtype=np.int64))
        save("nms_max_after_run", "selected", k, ref)
        print("nms max", k, len(ref), "selected")


if __name__ == "__main__":
    main()
