#!/usr/bin/python3
"""torchvision models as users export them (issue 19): exported here with
random weights, compiled once by Kiln and compared in the VM and as AOT C with
ONNX Runtime on seeded images.

  mnasnet   mnasnet0_5 classification, x [batch, 3, height, width] dynamic
            (opset 13): 1x3x224x224 and 2x3x160x192;
  deeplab   deeplabv3_mobilenet_v3_large segmentation, the same dynamic axes:
            1x3x224x224 and 1x3x192x256 (the mask upsampled to the input's
            Shape);
  swin      torchvision's SwinTransformer (swin_t's code: shifted windows,
            relative position bias, patch merging) at a quarter of swin_t's
            widths, x 1x3x192x160 fixed (opset 17): its feature maps (48x40
            down to 6x5) are not multiples of the 7x7 window, so each block
            pads them by amounts computed with Mod from the sizes, which Kiln
            folds to constants;
  swin_dyn  the same with x [batch, 3, height, width] dynamic: 1x3x192x160
            and 1x3x100x132 (pads, window counts and the shifted windows'
            attention mask over the symbols; the view of the padded maps as
            windows is a run-time requirement). PyTorch would not shift the
            last stage's windows at 100x132 (a Python branch on the size the
            tracer fixed at 192x160): ONNX Runtime on the same graph is the
            reference;
  ssdlite   ssdlite320_mobilenet_v3_large, images [3, height, width] dynamic
            (opset 11): one module runs 320x320 and 480x360 images (its
            transform resizes them to 320x320; score filter, per-class TopK
            of min(n, 300), batched NMS in an If, outputs of lengths found
            during the run);
  frcnn     fasterrcnn_mobilenet_v3_large_320_fpn, images [3, height, width]
            dynamic (opset 11): one module runs 320x320, 300x420 and 160x240
            images. Its transform resizes each by a float scale computed
            from H and W and pads it to a multiple of 32 (lengths found
            during the run, without a bound: the backbone, FPN and anchors
            run on them); RPN NonZero/TopK/NMS, MultiScaleRoIAlign, the box
            head. (A 480x360 image gave scores 1.2e-4 from ORT's: ORT
            computes Resize's sampling coordinates in float32, Kiln in
            double, and `kiln compare --reference ort` finds the resized
            image the first value differing, by 8e-6, which the network
            amplifies; not a size whose scores the bound below can judge.)

Random weights give near-constant outputs whose NMS sees only ties, so the
backbone's BatchNorm statistics are recalibrated on seeded images (train-mode
passes, cumulative averages) and the classification logits are spread.
Every output within 1e-4 * max(1, max|ref|) of ONNX Runtime's and of the
same shape; VM and AOT (built without -m flags: another kernel path) within
the same of each other. Detections whose scores tie within that tolerance
may come in either order (NMS and TopK leave it to the implementation):
align_near_ties matches them up before the comparison.

usage: torchvision_models_test.py KILN SOURCE_DIR WORK_DIR
Exit 77 (skip) when ONNX Runtime is not installed.
"""
import os
import sys

import numpy as np
from ort_check import compare_outputs, run, tail


def images(seed, sizes):
    """Smooth seeded images (blurred noise in [0, 1]), so features vary;
    a size (n, h, w) gives a batch."""
    import torch
    import torch.nn.functional as F
    g = torch.Generator().manual_seed(seed)
    out = []
    for size in sizes:
        n, (h, w) = (size[0], size[1:]) if len(size) == 3 else (0, size)
        x = torch.rand(max(n, 1), 3, h // 8 + 1, w // 8 + 1, generator=g)
        x = F.interpolate(x, size=(h, w), mode="bilinear", align_corners=False)
        out.append(x if n else x[0])
    return out


def recalibrate(model, seed):
    """BatchNorm statistics of the backbone from seeded images, then eval."""
    import torch
    model.eval()
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.reset_running_stats()
            m.momentum = None  # a cumulative average over the passes
            m.train()
    body = getattr(model, "backbone", model)
    with torch.no_grad():
        for _ in range(2):  # batches of 4: SSD's last maps are 1x1
            batch = torch.stack(images(seed + _, [(320, 320)] * 4))
            body((batch - 0.5) / 0.25)
    model.eval()


def export(name, path):
    import torch
    import torchvision
    torch.manual_seed(0)
    det = torchvision.models.detection
    if name in ("mnasnet", "deeplab"):
        if name == "mnasnet":
            model = torchvision.models.mnasnet0_5(weights=None)
        else:
            model = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
                weights=None, weights_backbone=None)
        recalibrate(model, 7)
        torch.onnx.export(model, images(11, [(1, 224, 224)])[0], path, opset_version=13,
                          input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 2: "height", 3: "width"}})
        return
    if name in ("swin", "swin_dyn"):
        from torchvision.models.swin_transformer import SwinTransformer
        model = SwinTransformer(patch_size=[4, 4], embed_dim=24, depths=[2, 2, 2, 2],
                                num_heads=[2, 2, 4, 4], window_size=[7, 7]).eval()
        axes = {"x": {0: "batch", 2: "height", 3: "width"}} if name == "swin_dyn" else None
        torch.onnx.export(model, images(11, [(1, 192, 160)])[0], path, opset_version=17,
                          input_names=["x"], dynamic_axes=axes)
        return
    if name == "ssdlite":
        model = det.ssdlite320_mobilenet_v3_large(weights=None, weights_backbone=None)
        with torch.no_grad():
            for layer in model.head.classification_head.module_list:
                for p in layer.parameters():
                    p.mul_(4.0)
    else:
        model = det.fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None,
                                                           box_score_thresh=0.0)
        with torch.no_grad():
            model.roi_heads.box_predictor.cls_score.weight.mul_(5.0)
    recalibrate(model, 7)
    x = images(11, [(320, 320)])
    torch.onnx.export(model, (x,), path, opset_version=11, input_names=["images"],
                      dynamic_axes={"images": {1: "height", 2: "width"}})


MODELS = {
    "mnasnet": {"compile": [], "sizes": [(1, 224, 224), (2, 160, 192)], "outputs": 1},
    "deeplab": {"compile": [], "sizes": [(1, 224, 224), (1, 192, 256)], "outputs": 1},
    "swin": {"compile": [], "sizes": [(1, 192, 160)], "outputs": 1},
    "swin_dyn": {"compile": [], "sizes": [(1, 192, 160), (1, 100, 132)], "outputs": 1},
    "ssdlite": {"compile": [], "sizes": [(320, 320), (480, 360)], "outputs": 3},
    "frcnn": {"compile": [], "sizes": [(320, 320), (300, 420), (160, 240)], "outputs": 3},
}
DETECTORS = ("ssdlite", "frcnn")


def align_near_ties(paths, ref_paths):
    """Detections (boxes, labels, scores) reordered to the reference's order
    where the two differ only among near-equal scores: NMS and TopK order
    ties as the implementation likes, and a score 1e-6 below another is a
    tie within float32 noise. Row i moves to the nearest free reference row
    of the same label whose score and box agree within the comparison's
    tolerances; without such a row nothing moves (the comparison reports
    it). Returns the paths of the aligned arrays."""
    boxes, labels, scores = (np.load(p) for p in paths)
    ref_boxes, ref_labels, ref_scores = (np.load(p) for p in ref_paths)
    n = scores.shape[0]
    if n != ref_scores.shape[0] or boxes.shape != ref_boxes.shape:
        return paths
    box_tol = 1e-4 * max(1.0, float(np.max(np.abs(ref_boxes))) if n else 1.0)
    order, free = [], set(range(n))
    for i in range(n):
        fits = [j for j in free if labels[i] == ref_labels[j]
                and abs(float(scores[i]) - float(ref_scores[j])) <= 1e-4
                and np.max(np.abs(boxes[i].astype(np.float64) - ref_boxes[j])) <= box_tol]
        if not fits:
            return paths
        j = min(fits, key=lambda j: abs(j - i))
        free.remove(j)
        order.append(j)
    perm = np.empty(n, dtype=np.int64)
    perm[np.array(order, dtype=np.int64)] = np.arange(n)
    aligned = []
    for p, a in zip(paths, (boxes, labels, scores)):
        q = p[:-len(".npy")] + ".aligned.npy"
        np.save(q, a[perm])
        aligned.append(q)
    return aligned


def check(name, kiln, src, work):
    spec = MODELS[name]
    d = os.path.join(work, name)
    os.makedirs(d, exist_ok=True)
    onnx_path = os.path.join(d, name + ".onnx")
    if not os.path.exists(onnx_path):
        export(name, onnx_path + ".part")
        os.replace(onnx_path + ".part", onnx_path)
    module = os.path.join(d, name + ".kiln")
    if not run([kiln, "compile", onnx_path, "-o", module] + spec["compile"], d + "/compile.log"):
        return [f"{name}: kiln compile failed:\n{tail(d + '/compile.log')}"]
    aot = os.path.join(d, "aot")
    if not run([kiln, "aot", module, "-o", aot, "--name", "det", "--no-size-report"],
               d + "/aot.log") or not run(["make", "-s", "-C", aot, "-j2", "CFLAGS=-O2"],
                                          d + "/make.log"):
        return [f"{name}: building the AOT bundle failed (logs in {d})"]
    ort_js = os.path.join(src, "benchmarks/models/ort/ort_run.js")
    failures = []
    for k, img in enumerate(images(100 + len(name), spec["sizes"])):
        x = os.path.join(d, f"image{k}.npy")
        np.save(x, img.numpy())
        n_out = spec["outputs"]
        outs = {r: [os.path.join(d, f"{r}{k}.{i}.npy") for i in range(n_out)]
                for r in ("ort", "vm", "aot")}
        cmds = {"ort": ["node", ort_js, onnx_path, "--input", x],
                "vm": [kiln, "run", module, "--input", x],
                "aot": [os.path.join(aot, "det_run"), "--input", x]}
        ok = True
        for r, cmd in cmds.items():
            log = os.path.join(d, f"{r}{k}.log")
            if not run(cmd + [a for p in outs[r] for a in ("--output", p)], log):
                failures.append(f"{name} image {k}: {r} failed:\n{tail(log)}")
                ok = False
        if not ok:
            continue
        if name in DETECTORS:
            for r in ("vm", "aot"):
                outs[r] = align_near_ties(outs[r], outs["ort"])
        # The AOT bundle is built without -m flags (the portable path): VM
        # and AOT are held to the reference's tolerance, not bitwise.
        failures += compare_outputs(f"{name} image {k} {tuple(img.shape)}",
                                    [str(i) for i in range(n_out)], outs, vm_vs_aot=1e-4)
        if name in DETECTORS and np.load(outs["ort"][0]).shape[0] == 0:
            failures.append(f"{name} image {k}: no detections (the weights are too degenerate "
                            f"to test anything)")
    return failures


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: torchvision_models_test.py KILN SOURCE_DIR WORK_DIR")
    kiln, src, work = sys.argv[1:]
    if not os.path.isdir(os.path.join(src, "benchmarks/models/ort/node_modules/onnxruntime-node")):
        print("SKIP torchvision models: ONNX Runtime is not installed "
              "(bash benchmarks/models/ort/install.sh; needs the npm registry)")
        return 77
    failures = []
    for name in MODELS:
        failures += check(name, kiln, src, work)
    print(f"torchvision models: {len(MODELS)} models, {len(failures)} failures")
    for f in failures:
        print("FAIL " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
