"""NumPy references for the ops whose output length depends on the data,
shared by tests/runtime/make_reference_data_dependent.py (kernel cases) and
tests/models/generate_data_dependent.py (an end-to-end model). Independent
of Kiln's C kernels: np.unique, and a plain transcription of the ONNX
NonMaxSuppression definition."""
import numpy as np


def unique_reference(x, axis=None, is_sorted=True):
    """ONNX Unique's Y, indices, inverse_indices, counts: np.unique's results,
    reordered by first occurrence when not sorted."""
    y, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                          return_counts=True, axis=axis)
    if not is_sorted:
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        y = np.take(y, order, axis=0 if axis is None else axis)
        first, counts, inverse = first[order], counts[order], rank[inverse]
    return y, first, inverse.reshape(-1), counts


def iou_over(a, b, threshold):
    """Box a suppresses b (both [x_min, y_min, x_max, y_max] float32)."""
    z = np.float32(0)
    iw = max(min(a[2], b[2]) - max(a[0], b[0]), z)
    ih = max(min(a[3], b[3]) - max(a[1], b[1]), z)
    inter = np.float32(iw * ih)
    if not inter > 0:
        return False
    area_a = np.float32((a[2] - a[0]) * (a[3] - a[1]))
    area_b = np.float32((b[2] - b[0]) * (b[3] - b[1]))
    union = np.float32(area_a + area_b - inter)
    if not (area_a > 0 and area_b > 0 and union > 0):
        return False
    return np.float32(inter / union) > threshold


def corners(boxes, center):
    """[..., 4] boxes as float32 [x_min, y_min, x_max, y_max]."""
    b = boxes.astype(np.float32)
    if center:
        half_w, half_h = b[..., 2] / np.float32(2), b[..., 3] / np.float32(2)
        return np.stack([b[..., 0] - half_w, b[..., 1] - half_h,
                         b[..., 0] + half_w, b[..., 1] + half_h], axis=-1)
    return np.stack([np.minimum(b[..., 1], b[..., 3]), np.minimum(b[..., 0], b[..., 2]),
                     np.maximum(b[..., 1], b[..., 3]), np.maximum(b[..., 0], b[..., 2])],
                    axis=-1)


def nms_reference(boxes, scores, max_out, iou, score_thr, center):
    """selected_indices [count, 3]: per batch and class, the boxes scoring
    above score_thr (None: all; never NaN), best first (ties: lower index),
    each kept unless its IoU with a kept box exceeds iou (computed in
    float32 as ONNX Runtime does), at most max_out per class."""
    rows = []
    c_boxes = corners(boxes, center)
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            s = scores[b, c]
            cand = [i for i in range(s.size)
                    if not np.isnan(s[i]) and (score_thr is None or s[i] > score_thr)]
            cand.sort(key=lambda i: -s[i])  # stable: equal scores keep box order
            kept = []
            for i in cand:
                if len(kept) >= max_out:
                    break
                if not any(iou_over(c_boxes[b, i], c_boxes[b, k], iou) for k in kept):
                    kept.append(i)
            rows += [[b, c, k] for k in kept]
    return np.array(rows, dtype=np.int64).reshape(-1, 3)
