// Upgrades nodes of models that import a default-domain opset below 11 to
// their opset-11 forms while they are imported, so that every later pass sees
// one form per op: attributes that later became inputs (Slice starts/ends,
// Pad pads, Reshape shape, Upsample scales) turn into constant inputs,
// renamed ops get their new names (Scatter → ScatterElements, Upsample →
// Resize), legacy broadcast attributes (opset < 7) become explicit
// Unsqueezes, and forms with no opset-11 equivalent (training-mode
// BatchNormalization/Dropout, per-element BatchNormalization, Tile < 6, ...)
// are refused with "opset N form of OP ...: reason".
//
// After import the graph's opset is raised to kLegacyUpgradeTarget, because
// the nodes now follow that version's semantics.
#ifndef KILN_COMPILER_FRONTEND_LEGACY_OPSET_H_
#define KILN_COMPILER_FRONTEND_LEGACY_OPSET_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "compiler/ir/graph.h"

namespace kiln::compiler {

constexpr int64_t kLegacyUpgradeTarget = 11;

// Rewrites `node` (not yet added to `graph`) from its form at `opset` to the
// opset-11 form. May add constants and helper nodes (which then precede the
// node) to `graph`. `where` prefixes error messages. For opset >= 11 only the
// deprecated Scatter and Upsample are renamed.
absl::Status UpgradeLegacyNode(int64_t opset, const std::string& where, ir::Node* node,
                               ir::Graph* graph);

}  // namespace kiln::compiler

#endif  // KILN_COMPILER_FRONTEND_LEGACY_OPSET_H_
