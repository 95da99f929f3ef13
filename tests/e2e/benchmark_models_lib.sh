# Sourced by the benchmark-model tests (tests/e2e/benchmark_models_test.sh on
# the x86 paths, tests/aarch64/benchmark_models_test.sh under qemu-aarch64):
# the models that benchmarks/models/export.py makes, and their inputs.

# MLP, ResNet-18, MobileNetV2, GoogLeNet, EfficientNet-B0, a DS-CNN, a
# BERT-style encoder at opsets 13 and 17, a GRU and an LSTM.
BENCHMARK_MODELS="mlp resnet18 mobilenet_v2 googlenet efficientnet_b0 ds_cnn bert bert_op17 gru lstm"
# What runs on an x86 path narrower than the widest this CPU has.
BENCHMARK_MODELS_NARROWER="mobilenet_v2 efficientnet_b0 ds_cnn bert lstm"

# export_missing_models SOURCE_DIR MODELS_DIR: exports the models not yet in
# MODELS_DIR or older than the exporter (exporting is deterministic, so
# earlier files are reused).
export_missing_models() {
  local src=$1 dir=$2 missing="" model
  for model in $BENCHMARK_MODELS; do
    local out="$dir/$model.output.npy"
    [ "$out" -nt "$src/benchmarks/models/export.py" ] &&
      [ "$out" -nt "$src/benchmarks/models/seq_models.py" ] || missing="$missing,$model"
  done
  if [ -n "$missing" ]; then
    /usr/bin/python3 "$src/benchmarks/models/export.py" --out "$dir" --models "${missing#,}"
  fi
}

# model_inputs MODELS_DIR/NAME: sets INPUTS to the --input options of the
# model's reference inputs: NAME.input.npy, or NAME.input0.npy,
# NAME.input1.npy, ... in signature order. Empty when there is none.
model_inputs() {
  local m=$1 i
  INPUTS=()
  if [ -f "$m.input.npy" ]; then
    INPUTS=(--input "$m.input.npy")
    return
  fi
  for ((i = 0; i < 10; ++i)); do
    [ -f "$m.input$i.npy" ] || break
    INPUTS+=(--input "$m.input$i.npy")
  done
}
