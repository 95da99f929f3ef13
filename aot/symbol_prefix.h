// The bundle's kiln/symbol_prefix.h: renames every global symbol of the
// runtime kernels (each kernel and its checker, the only non-static functions
// the runtime defines) to NAME_kiln_..., so bundles of several models link
// into one program without clashing.
#ifndef KILN_AOT_SYMBOL_PREFIX_H_
#define KILN_AOT_SYMBOL_PREFIX_H_

#include <string>

namespace kiln::aot {

std::string EmitSymbolPrefixHeader(const std::string& name);

}  // namespace kiln::aot

#endif  // KILN_AOT_SYMBOL_PREFIX_H_
