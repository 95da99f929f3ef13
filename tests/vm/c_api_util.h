// Helpers for tests of the C embedding API (kiln/vm.h).
#ifndef KILN_TESTS_VM_C_API_UTIL_H_
#define KILN_TESTS_VM_C_API_UTIL_H_

#include <string>

#include "kiln/vm.h"

namespace kiln::testing {

// The error's message; frees the error.
inline std::string Message(kiln_vm_error* e) {
  std::string m = kiln_vm_error_message(e);
  kiln_vm_error_free(e);
  return m;
}

// A module and an instance of it, released together.
struct Loaded {
  kiln_vm_module* module = nullptr;
  kiln_vm_instance* instance = nullptr;
  ~Loaded() {
    kiln_vm_instance_release(instance);
    kiln_vm_module_release(module);
  }
};

}  // namespace kiln::testing

#endif  // KILN_TESTS_VM_C_API_UTIL_H_
