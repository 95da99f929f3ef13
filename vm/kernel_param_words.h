// The kernel table's parameter names (runtime/include/kiln/kernel_table.def),
// parsed in one place for the VM (naming and checking a module's parameters:
// kernel_params.cc) and for tools/codegen/kernel_params_gen.cc (the index
// constants and the compiler's parameter structs). Header-only, standard
// C++ only, so the generator needs no library of the VM.
#ifndef KILN_VM_KERNEL_PARAM_WORDS_H_
#define KILN_VM_KERNEL_PARAM_WORDS_H_

#include <string>
#include <string_view>
#include <vector>

namespace kiln::vm {

// One kernel's row: its name and its integer and float parameter names.
struct KernelParamRow {
  const char* kernel;
  const char* iparams;
  const char* fparams;
};

inline constexpr KernelParamRow kKernelParamRows[] = {
#define KILN_KERNEL(name, bindings, writes, source, inames, fnames) {#name, inames, fnames},
#include "kiln/kernel_table.def"
#undef KILN_KERNEL
};

// One word of a row's names: "x", or an array "x[COUNT]" whose COUNT is an
// earlier parameter, a number or "*" (what the names after it leave), and
// "COUNT?" for that many or none.
struct ParamWord {
  std::string name;
  bool array = false;
  std::string count;
  bool or_none = false;
};

inline std::vector<ParamWord> ParseParamWords(std::string_view names) {
  std::vector<ParamWord> out;
  size_t at = 0;
  while (at < names.size()) {
    const size_t begin = names.find_first_not_of(' ', at);
    if (begin == std::string_view::npos) break;
    size_t end = names.find(' ', begin);
    if (end == std::string_view::npos) end = names.size();
    const std::string_view word = names.substr(begin, end - begin);
    at = end;
    ParamWord p;
    const size_t bracket = word.find('[');
    if (bracket == std::string_view::npos) {
      p.name = std::string(word);
    } else {
      p.name = std::string(word.substr(0, bracket));
      p.array = true;
      std::string_view count = word.substr(bracket + 1);
      if (!count.empty() && count.back() == ']') count.remove_suffix(1);
      if (!count.empty() && count.back() == '?') {
        count.remove_suffix(1);
        p.or_none = true;
      }
      p.count = std::string(count);
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace kiln::vm

#endif  // KILN_VM_KERNEL_PARAM_WORDS_H_
