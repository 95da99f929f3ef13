#include "tests/conformance/tensor_proto.h"

#include <cstring>
#include <fstream>
#include <sstream>

#include "absl/strings/str_cat.h"
#include "onnx/onnx_pb.h"
#include "vm/dtype.h"

namespace kiln::conformance {
namespace {

using fb::DType;

// TensorProto.DataType codes (onnx.proto) to Kiln dtypes.
DType FromOnnx(int code) {
  switch (code) {
    case onnx::TensorProto::FLOAT: return DType::F32;
    case onnx::TensorProto::UINT8: return DType::U8;
    case onnx::TensorProto::INT8: return DType::I8;
    case onnx::TensorProto::UINT16: return DType::U16;
    case onnx::TensorProto::INT16: return DType::I16;
    case onnx::TensorProto::INT32: return DType::I32;
    case onnx::TensorProto::INT64: return DType::I64;
    case onnx::TensorProto::BOOL: return DType::Bool;
    case onnx::TensorProto::FLOAT16: return DType::F16;
    case onnx::TensorProto::DOUBLE: return DType::F64;
    case onnx::TensorProto::UINT32: return DType::U32;
    case onnx::TensorProto::UINT64: return DType::U64;
    case onnx::TensorProto::BFLOAT16: return DType::BF16;
    default: return DType::Unknown;
  }
}

// Stores each widened value of a typed field as the element type. float16
// and bfloat16 arrive as raw bits in int32_data; bool as 0/1.
template <typename Field>
void Store(const Field& field, DType dtype, std::vector<uint8_t>* out) {
  const size_t elem = DTypeSize(dtype);
  out->resize(static_cast<size_t>(field.size()) * elem);
  uint8_t* p = out->data();
  for (const auto& v : field) {
    switch (dtype) {
      case DType::F32: { float x = static_cast<float>(v); std::memcpy(p, &x, 4); break; }
      case DType::F64: { double x = static_cast<double>(v); std::memcpy(p, &x, 8); break; }
      case DType::I64:
      case DType::U64: { uint64_t x = static_cast<uint64_t>(v); std::memcpy(p, &x, 8); break; }
      case DType::I32:
      case DType::U32: { uint32_t x = static_cast<uint32_t>(v); std::memcpy(p, &x, 4); break; }
      case DType::I16:
      case DType::U16:
      case DType::BF16:
      case DType::F16: { uint16_t x = static_cast<uint16_t>(v); std::memcpy(p, &x, 2); break; }
      case DType::Bool: *p = v != 0 ? 1 : 0; break;
      default: *p = static_cast<uint8_t>(v); break;
    }
    p += elem;
  }
}

}  // namespace

absl::StatusOr<vm::NpyArray> ReadTensorProto(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat(path, ": cannot open"));
  std::stringstream ss;
  ss << in.rdbuf();
  onnx::TensorProto t;
  if (!t.ParseFromString(ss.str())) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": not a serialized TensorProto"));
  }
  if (t.data_type() == onnx::TensorProto::STRING) {
    return absl::UnimplementedError("string tensors");
  }
  vm::NpyArray a;
  a.dtype = FromOnnx(t.data_type());
  if (a.dtype == DType::Unknown) {
    return absl::UnimplementedError(
        absl::StrCat("element type ", onnx::TensorProto::DataType_Name(
                                          static_cast<onnx::TensorProto::DataType>(t.data_type())),
                     " unsupported"));
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    return absl::UnimplementedError("external tensor data");
  }
  a.shape.assign(t.dims().begin(), t.dims().end());
  int64_t count = 1;
  for (int64_t d : a.shape) {
    if (d < 0) return absl::InvalidArgumentError(absl::StrCat(path, ": negative dim"));
    count *= d;
  }
  if (t.has_raw_data()) {
    a.data.assign(t.raw_data().begin(), t.raw_data().end());
    if (a.dtype == DType::Bool) {
      for (uint8_t& b : a.data) b = b != 0 ? 1 : 0;
    }
  } else {
    switch (a.dtype) {
      case DType::F32: Store(t.float_data(), a.dtype, &a.data); break;
      case DType::F64: Store(t.double_data(), a.dtype, &a.data); break;
      case DType::I64: Store(t.int64_data(), a.dtype, &a.data); break;
      case DType::U32:
      case DType::U64: Store(t.uint64_data(), a.dtype, &a.data); break;
      default: Store(t.int32_data(), a.dtype, &a.data); break;
    }
  }
  if (a.data.size() != static_cast<size_t>(count) * DTypeSize(a.dtype)) {
    return absl::InvalidArgumentError(absl::StrCat(path, ": holds ", a.data.size(),
                                                   " bytes, its shape needs ",
                                                   count * DTypeSize(a.dtype)));
  }
  return a;
}

}  // namespace kiln::conformance
