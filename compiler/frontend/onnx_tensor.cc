#include "compiler/frontend/onnx_tensor.h"

#include <cstring>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "compiler/ir/graph_util.h"

namespace kiln::compiler {
namespace {

using ir::DType;

// Typed repeated fields hold each element widened; narrow them to the
// storage type. Bool is one byte, (b)float16 arrives as raw bits in int32_data.
template <typename Src>
void Narrow(const Src& src, DType dtype, std::vector<uint8_t>* out) {
  const size_t elem = ir::DTypeSize(dtype);
  out->resize(static_cast<size_t>(src.size()) * elem);
  uint8_t* p = out->data();
  for (const auto& v : src) {
    switch (dtype) {
      case DType::F32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
      case DType::F64: { double x = static_cast<double>(v); std::memcpy(p, &x, 8); break; }
      case DType::I64: { int64_t x = static_cast<int64_t>(v); std::memcpy(p, &x, 8); break; }
      case DType::I32: { int32_t x = static_cast<int32_t>(v); std::memcpy(p, &x, 4); break; }
      case DType::I16:
      case DType::BF16:
      case DType::F16: { uint16_t x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); break; }
      case DType::I8:
      case DType::U8: { uint8_t x = static_cast<uint8_t>(v); *p = x; break; }
      case DType::Bool: { *p = v != 0 ? 1 : 0; break; }
      case DType::U16: { uint16_t x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); break; }
      case DType::U32: { uint32_t x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); break; }
      case DType::U64: { uint64_t x = static_cast<uint64_t>(v); std::memcpy(p, &x, 8); break; }
      default: break;
    }
    p += elem;
  }
}

}  // namespace

absl::StatusOr<ir::ConstantPtr> ConstantFromTensorProto(const onnx::TensorProto& tensor,
                                                        const std::string& where) {
  const std::string label = absl::StrCat("tensor '", tensor.name(), "' ", where);
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    return absl::UnimplementedError(absl::StrCat(
        label, " stores its data in an external file; external data is not supported yet"));
  }
  const DType dtype = ir::DTypeFromOnnx(tensor.data_type());
  if (dtype == DType::Unknown) {
    return absl::UnimplementedError(
        absl::StrCat(label, " has unsupported element type ", tensor.data_type()));
  }
  std::vector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  const int64_t count = ir::ElementCount(shape);
  if (count < 0) {
    return absl::InvalidArgumentError(absl::StrCat(label, " has invalid dims ", ir::ShapeStr(shape)));
  }
  const size_t elem = ir::DTypeSize(dtype);
  std::vector<uint8_t> bytes;
  if (tensor.has_raw_data()) {
    const std::string& raw = tensor.raw_data();
    bytes.assign(raw.begin(), raw.end());
    if (dtype == DType::Bool) {
      for (uint8_t& b : bytes) b = b != 0 ? 1 : 0;
    }
  } else {
    switch (dtype) {
      case DType::F32: Narrow(tensor.float_data(), dtype, &bytes); break;
      case DType::F64: Narrow(tensor.double_data(), dtype, &bytes); break;
      case DType::I64: Narrow(tensor.int64_data(), dtype, &bytes); break;
      case DType::U32:
      case DType::U64: Narrow(tensor.uint64_data(), dtype, &bytes); break;
      default: Narrow(tensor.int32_data(), dtype, &bytes); break;
    }
  }
  if (bytes.size() != static_cast<size_t>(count) * elem) {
    return absl::InvalidArgumentError(absl::StrCat(
        label, " holds ", bytes.size(), " bytes but its shape ", ir::ShapeStr(shape), " of ",
        ir::DTypeName(dtype), " needs ", static_cast<size_t>(count) * elem));
  }
  return ir::MakeConstant(dtype, std::move(shape), std::move(bytes));
}

}  // namespace kiln::compiler
