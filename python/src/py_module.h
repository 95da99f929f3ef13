// kiln._kiln.Module: a verified module image and the VM instances that run
// it (one per thread count, created on first use). The pure-Python
// kiln.Module wraps it with argument handling and documentation.
//
// Runs release the GIL. An instance is used by one thread at a time, so
// runs of one module are serialised by a mutex, always taken with the GIL
// released: a thread never waits for the mutex while holding the GIL, so
// the two cannot deadlock.
#ifndef KILN_PYTHON_PY_MODULE_H_
#define KILN_PYTHON_PY_MODULE_H_

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "vm/instance.h"
#include "vm/module_image.h"

namespace kiln::python {

struct RunOptions {
  int threads = 1;
  int repeat = 1;
  bool dump = false;       // record every intermediate (kiln run --dump)
  bool check_nan = false;  // stop at the first NaN/Inf (kiln run --check-nan)
  bool profile = false;    // time every dispatch (kiln run --profile)
  std::string trace;       // Chrome trace file (kiln run --trace)
};

class PyModule {
 public:
  explicit PyModule(std::shared_ptr<const vm::ModuleImage> image) : image_(std::move(image)) {}

  const std::shared_ptr<const vm::ModuleImage>& image() const { return image_; }

  // {"inputs": [...], "outputs": [...]}, each {"name", "dtype", "shape"}
  // with a symbolic dim as its name or expression ("N", "S + T").
  pybind11::dict Signature() const;

  // Runs on `inputs` (signature order). Returns (outputs, dump, profile):
  // dump a list of (value name, array) in run order or None, profile a list
  // of per-dispatch dicts or None.
  pybind11::tuple Run(const std::vector<pybind11::array>& inputs, const RunOptions& options);

  // Milliseconds of each of `repeat` runs after `warmup` untimed ones
  // (kiln.bench): the VM timed in C++ as `kiln run --repeat` times it.
  std::vector<double> Time(const std::vector<pybind11::array>& inputs, int warmup, int repeat,
                           int threads);

 private:
  // The instance for `threads`, created on first use; call with mu_ held.
  vm::Instance& InstanceFor(int threads);

  std::shared_ptr<const vm::ModuleImage> image_;
  std::mutex mu_;
  std::map<int, std::unique_ptr<vm::Instance>> instances_;
};

// Registers Module, compile, load and the module-level helpers on `m`.
void RegisterModule(pybind11::module_& m);

}  // namespace kiln::python

#endif  // KILN_PYTHON_PY_MODULE_H_
