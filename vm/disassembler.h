// Human-readable listings of a verified module (kiln inspect).
#ifndef KILN_VM_DISASSEMBLER_H_
#define KILN_VM_DISASSEMBLER_H_

#include <string>

#include "vm/module_image.h"

namespace kiln::vm {

// The whole module: signature, memory plan, executables, constants and the
// bytecode of every function with each DISPATCH's ONNX nodes.
std::string DescribeModule(const ModuleImage& image);

// One instruction, e.g. "DISPATCH     e3 (r0, r4, r5, r2)".
std::string DisassembleInstruction(const uint32_t* code, uint32_t offset);

}  // namespace kiln::vm

#endif  // KILN_VM_DISASSEMBLER_H_
