// Human-readable listings of a verified module (kiln inspect).
#ifndef KILN_VM_DISASSEMBLER_H_
#define KILN_VM_DISASSEMBLER_H_

#include <string>
#include <vector>

#include "vm/module_image.h"

namespace kiln::vm {

// The whole module: signature, memory plan, executables, constants and the
// bytecode of every function with each DISPATCH's ONNX nodes.
std::string DescribeModule(const ModuleImage& image);

// What each integer register of `fn` holds after its integer instructions,
// written as arithmetic on the symbols ("N*802816 + 1204224"): how kiln
// inspect states the workspace formula.
std::vector<std::string> IntegerExpressions(const fb::Module& m, const fb::Function& fn);

// "[N,3,224,224]": a signature tensor's shape with symbolic dims by name.
std::string SymbolicShape(const fb::TensorDesc& t);

// One instruction, e.g. "DISPATCH     e3 (r0, r4, r5, r2)".
std::string DisassembleInstruction(const uint32_t* code, uint32_t offset);

}  // namespace kiln::vm

#endif  // KILN_VM_DISASSEMBLER_H_
