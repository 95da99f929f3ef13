// NumPy arrays ↔ the VM's tensors: dtype mapping, views of caller arrays
// (no copy), new arrays for outputs and recorded values.
#ifndef KILN_PYTHON_ARRAYS_H_
#define KILN_PYTHON_ARRAYS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "kiln/module_generated.h"
#include "vm/instance.h"
#include "vm/tools/npy.h"

namespace kiln::python {

// The module dtype of a native-byte-order NumPy dtype; Unknown for any
// other (complex, object, strings, byte-swapped).
fb::DType DTypeOf(const pybind11::dtype& dtype);
pybind11::dtype NumpyDType(fb::DType dtype);

// `arrays` (C-contiguous and aligned: kiln/_module.py ensures it) as VM
// input views in signature order. Their shapes live in `shapes`, which must
// outlive the views. An array whose dtype has no module dtype is refused
// with the VM's wording ("input 0 ('x') has dtype complex64; ...").
std::vector<vm::HostTensor> InputViews(const std::vector<pybind11::array>& arrays,
                                       const fb::Signature& signature,
                                       std::vector<std::vector<int64_t>>* shapes);

// A new uninitialised array, and an output view of it.
pybind11::array NewArray(fb::DType dtype, const std::vector<int64_t>& shape);
vm::HostTensor OutputView(pybind11::array& array, fb::DType dtype,
                          std::vector<int64_t>* shape_storage);

// A new array holding `bytes` (C order of `shape`).
pybind11::array ArrayFromBytes(fb::DType dtype, const std::vector<int64_t>& shape,
                               const uint8_t* bytes, size_t size);

// A copy of `array` as the tools' tensor type (kiln.compare's inputs).
vm::NpyArray NpyFromArray(const pybind11::array& array);

}  // namespace kiln::python

#endif  // KILN_PYTHON_ARRAYS_H_
