#!/usr/bin/python3
"""Breadth sweep: many torchvision architectures (random weights, eval mode),
each exported to ONNX, compiled by Kiln and run in the VM beside ONNX Runtime
on the same input, to find the models Kiln compiles wrong, runs wrong, or
runs far slower than ORT. bench_models.py times a few models carefully; this
script times many roughly, to point at the kernel a model is missing.

For each model: torch.onnx.export (opset 17, fixed input shape), `kiln
compile`, `kiln run --repeat N --isa PATH` pinned to one CPU, ORT's
ort_run.js (1 thread, its profiler's per-run time) pinned alike, and each
output's largest |Kiln - ORT| relative to ORT's largest |value|. Prints one
Markdown row per model: status, the two medians, their ratio and the
difference; with --profile, the VM's three slowest op types as well.

usage: /usr/bin/python3 benchmarks/models/sweep_torchvision.py --kiln build/release/tools/kiln
           [--work DIR] [--models a,b,...] [--repeat N] [--isa PATH] [--profile]
Needs python3-torch, python3-torchvision, python3-onnx and ONNX Runtime
(bash benchmarks/models/ort/install.sh). Exports are kept in --work
(default /tmp/kiln_sweep) and reused. Single runs on a shared machine:
ratios within ~15% are noise; rerun a model to confirm.
"""
import argparse
import json
import os
import re
import subprocess
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ORT_RUN = os.path.join(HERE, "ort", "ort_run.js")


def specs():
    """name -> (constructor, input shapes). Sizes: each family's usual input,
    smaller for video (8 or 16 frames of 112 or 224)."""
    import torchvision.models as M

    def cls(name, size=224, **kw):
        return (lambda: getattr(M, name)(weights=None, **kw), [(1, 3, size, size)])

    def video(name, frames=8, size=112):
        return (lambda: getattr(M.video, name)(weights=None), [(1, 3, frames, size, size)])

    def seg(name):
        return (lambda: getattr(M.segmentation, name)(weights=None, weights_backbone=None,
                                                      aux_loss=False), [(1, 3, 224, 224)])

    def vit(name):
        """ViT, exported in training mode: eval mode's fused attention
        (aten::_native_multi_head_attention) has no ONNX export in torch 1.13,
        and its dropouts are 0. Its head starts at zero: given weights here,
        so that the outputs compare something."""
        def make():
            import torch
            model = getattr(M, name)(weights=None)
            with torch.no_grad():
                model.heads.head.weight.normal_(0.0, 0.02)
            return model
        return (make, [(1, 3, 224, 224)], True)

    return {
        "alexnet": cls("alexnet"),
        "convnext_tiny": cls("convnext_tiny"),
        "densenet121": cls("densenet121"),
        "efficientnet_b3": cls("efficientnet_b3", 300),
        "efficientnet_v2_s": cls("efficientnet_v2_s"),
        "inception_v3": cls("inception_v3", 299, aux_logits=False, init_weights=False),
        "maxvit_t": cls("maxvit_t"),
        "mnasnet1_0": cls("mnasnet1_0"),
        "mobilenet_v3_small": cls("mobilenet_v3_small"),
        "mobilenet_v3_large": cls("mobilenet_v3_large"),
        "regnet_x_400mf": cls("regnet_x_400mf"),
        "regnet_y_400mf": cls("regnet_y_400mf"),
        "resnet50": cls("resnet50"),
        "resnext50_32x4d": cls("resnext50_32x4d"),
        "shufflenet_v2_x0_5": cls("shufflenet_v2_x0_5"),
        "squeezenet1_1": cls("squeezenet1_1"),
        "swin_t": cls("swin_t"),
        "vgg11_bn": cls("vgg11_bn"),
        "wide_resnet50_2": cls("wide_resnet50_2"),
        "vit_b_32": vit("vit_b_32"),
        "r3d_18": video("r3d_18"),
        "mc3_18": video("mc3_18"),
        "r2plus1d_18": video("r2plus1d_18"),
        "s3d": video("s3d", 16, 224),
        "fcn_resnet50": seg("fcn_resnet50"),
        "deeplabv3_resnet50": seg("deeplabv3_resnet50"),
    }


def tail(text):
    lines = text.strip().splitlines()
    return lines[-1][:200] if lines else "?"


def median_ms(text):
    m = re.search(r"latency_ms median=([\d.]+)", text)
    return float(m.group(1)) if m else None


def sweep_one(name, make, shapes, train_export, args):
    import onnx
    import torch
    d = os.path.join(args.work, name)
    os.makedirs(d, exist_ok=True)
    onnx_path = os.path.join(d, name + ".onnx")
    inputs = [os.path.join(d, "in%d.npy" % k) for k in range(len(shapes))]
    if not os.path.exists(onnx_path):
        torch.manual_seed(0)
        model = make()
        model.train() if train_export else model.eval()
        xs = tuple(torch.rand(*s) for s in shapes)
        mode = torch.onnx.TrainingMode.PRESERVE if train_export else torch.onnx.TrainingMode.EVAL
        try:
            with torch.no_grad():
                torch.onnx.export(model, xs, onnx_path + ".part", opset_version=17, training=mode)
        except Exception as e:  # the exporter's own limits: not Kiln's
            return {"status": "export failed: " + str(e).splitlines()[0][:120]}
        os.replace(onnx_path + ".part", onnx_path)
        for x, path in zip(xs, inputs):
            np.save(path, x.numpy())
    module = os.path.join(d, "m.kiln")
    c = subprocess.run([args.kiln, "compile", onnx_path, "-o", module], capture_output=True,
                       text=True)
    if c.returncode != 0:
        return {"status": "compile failed: " + tail(c.stderr)}
    outs = len(onnx.load(onnx_path, load_external_data=False).graph.output)
    in_args = sum([["--input", p] for p in inputs], [])
    kiln_outs = [os.path.join(d, "kiln%d.npy" % k) for k in range(outs)]
    pin = ["taskset", "-c", str(args.cpu)]
    r = subprocess.run(pin + [args.kiln, "run", module, "--isa", args.isa, "--repeat",
                              str(args.repeat)] + in_args
                       + sum([["--output", p] for p in kiln_outs], [])
                       + (["--profile"] if args.profile else []),
                       capture_output=True, text=True)
    if r.returncode != 0:
        return {"status": "run failed: " + tail(r.stderr)}
    ort_dir = os.path.join(d, "ort")
    o = subprocess.run(pin + ["node", ORT_RUN, onnx_path, "--threads", "1", "--repeat",
                              str(args.repeat), "--output-dir", ort_dir] + in_args,
                       capture_output=True, text=True)
    if o.returncode != 0:
        return {"status": "ORT failed: " + tail(o.stderr), "kiln_ms": median_ms(r.stdout)}
    worst = 0.0
    for k in range(outs):
        ref = np.load(os.path.join(ort_dir, "%d.npy" % k))
        got = np.load(kiln_outs[k])
        if ref.shape != got.shape:
            return {"status": "output %d shape %s, ORT %s" % (k, got.shape, ref.shape)}
        if ref.dtype.kind == "f":
            scale = float(np.max(np.abs(ref))) if ref.size else 0.0
            worst = max(worst, float(np.max(np.abs(ref.astype(np.float64) - got))) / (scale or 1.0)
                        if ref.size else 0.0)
        elif not np.array_equal(ref, got):
            worst = max(worst, 1.0)
    result = {"status": "ok", "kiln_ms": median_ms(r.stdout), "ort_ms": median_ms(o.stdout),
              "rel_diff": worst}
    if args.profile:
        ops = re.findall(r"^(\w+)\s+\d+\s+\d+\s+([\d.]+)\s+[\d.]+\s+([\d.]+)%", r.stdout, re.M)
        top = sorted(((float(ms), op, share) for op, ms, share in ops), reverse=True)[:3]
        result["top_ops"] = ", ".join("%s %s%%" % (op, share) for _, op, share in top)
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kiln", required=True)
    ap.add_argument("--work", default="/tmp/kiln_sweep")
    ap.add_argument("--models", default="")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--isa", default="auto")
    ap.add_argument("--cpu", type=int, default=1, help="the CPU both runners are pinned to")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--json", default="", help="also write the results here")
    args = ap.parse_args()
    table = specs()
    names = [m for m in args.models.split(",") if m] or list(table)
    unknown = [m for m in names if m not in table]
    if unknown:
        sys.exit("unknown models: %s (known: %s)" % (", ".join(unknown), ", ".join(table)))
    os.makedirs(args.work, exist_ok=True)
    print("| model | input | status | Kiln VM ms | ORT ms | Kiln/ORT | max rel diff |%s"
          % (" slowest ops (VM) |" if args.profile else ""))
    print("|---|---|---|---|---|---|---|%s" % ("---|" if args.profile else ""))
    results = {}
    for name in names:
        make, shapes, *train_export = table[name]
        res = sweep_one(name, make, shapes, bool(train_export and train_export[0]), args)
        results[name] = res
        k, o = res.get("kiln_ms"), res.get("ort_ms")
        ratio = "%.2f" % (k / o) if k and o else ""
        diff = "%.1e" % res["rel_diff"] if "rel_diff" in res else ""
        print("| %s | %s | %s | %s | %s | %s | %s |%s" % (
            name, "x".join(str(v) for v in shapes[0][1:]), res["status"],
            "%.2f" % k if k else "", "%.2f" % o if o else "", ratio, diff,
            " %s |" % res.get("top_ops", "") if args.profile else ""), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    return 0 if all(r["status"] == "ok" or r["status"].startswith("export failed")
                    for r in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
