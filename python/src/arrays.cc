#include "arrays.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "status_errors.h"
#include "vm/dtype.h"

namespace kiln::python {
namespace py = pybind11;

fb::DType DTypeOf(const py::dtype& dtype) {
  if (!dtype.attr("isnative").cast<bool>()) return fb::DType::Unknown;
  const char kind = dtype.kind();
  const ssize_t size = dtype.itemsize();
  switch (kind) {
    case 'f':
      return size == 2 ? fb::DType::F16 : size == 4 ? fb::DType::F32
                                        : size == 8 ? fb::DType::F64 : fb::DType::Unknown;
    case 'i':
      return size == 1 ? fb::DType::I8 : size == 2 ? fb::DType::I16
             : size == 4 ? fb::DType::I32 : size == 8 ? fb::DType::I64 : fb::DType::Unknown;
    case 'u':
      return size == 1 ? fb::DType::U8 : size == 2 ? fb::DType::U16
             : size == 4 ? fb::DType::U32 : size == 8 ? fb::DType::U64 : fb::DType::Unknown;
    case 'b':
      return size == 1 ? fb::DType::Bool : fb::DType::Unknown;
    case 'V':  // bfloat16 (ml_dtypes' type, or raw 2-byte void): NumPy has none
      return size == 2 && !dtype.attr("fields").cast<bool>() ? fb::DType::BF16 : fb::DType::Unknown;
    default:
      return fb::DType::Unknown;
  }
}

py::dtype NumpyDType(fb::DType dtype) {
  if (dtype == fb::DType::BF16) return py::dtype("V2");  // raw bits; .view(ml_dtypes.bfloat16)
  return py::dtype(std::string(DTypeName(dtype)));
}

std::vector<vm::HostTensor> InputViews(const std::vector<py::array>& arrays,
                                       const fb::Signature& signature,
                                       std::vector<std::vector<int64_t>>* shapes) {
  shapes->assign(arrays.size(), {});
  std::vector<vm::HostTensor> views;
  for (size_t i = 0; i < arrays.size(); ++i) {
    const py::array& a = arrays[i];
    const fb::DType dtype = DTypeOf(a.dtype());
    if (dtype == fb::DType::Unknown && i < signature.inputs()->size()) {
      const fb::TensorDesc& desc = *signature.inputs()->Get(static_cast<uint32_t>(i));
      throw StatusError(absl::InvalidArgumentError(absl::StrCat(
          "input ", i, " ('", desc.name() ? desc.name()->str() : "", "') has dtype ",
          py::str(a.dtype()).cast<std::string>(), "; the module expects ",
          DTypeName(desc.dtype()))));
    }
    (*shapes)[i].assign(a.shape(), a.shape() + a.ndim());
    views.push_back({dtype, (*shapes)[i], const_cast<void*>(a.data()),
                     static_cast<uint64_t>(a.nbytes())});
  }
  return views;
}

py::array NewArray(fb::DType dtype, const std::vector<int64_t>& shape) {
  std::vector<ssize_t> dims(shape.begin(), shape.end());
  return py::array(NumpyDType(dtype), dims);
}

vm::HostTensor OutputView(py::array& array, fb::DType dtype, std::vector<int64_t>* shape_storage) {
  shape_storage->assign(array.shape(), array.shape() + array.ndim());
  return {dtype, *shape_storage, array.mutable_data(), static_cast<uint64_t>(array.nbytes())};
}

py::array ArrayFromBytes(fb::DType dtype, const std::vector<int64_t>& shape, const uint8_t* bytes,
                         size_t size) {
  py::array a = NewArray(dtype, shape);
  const size_t n = std::min(size, static_cast<size_t>(a.nbytes()));
  if (n > 0) std::memcpy(a.mutable_data(), bytes, n);
  return a;
}

vm::NpyArray NpyFromArray(const py::array& array) {
  vm::NpyArray out;
  out.dtype = DTypeOf(array.dtype());
  if (out.dtype == fb::DType::Unknown) {
    throw StatusError(absl::InvalidArgumentError(absl::StrCat(
        "an input has dtype ", py::str(array.dtype()).cast<std::string>(),
        ", which no module takes")));
  }
  out.shape.assign(array.shape(), array.shape() + array.ndim());
  const auto* data = static_cast<const uint8_t*>(array.data());
  out.data.assign(data, data + array.nbytes());
  return out;
}

}  // namespace kiln::python
