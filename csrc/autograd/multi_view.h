// Functions that return several views of one tensor along a dim (unbind, split,
// split_with_sizes) and record ONE node for all of them, as torch's UnbindBackward0 /
// SplitBackward0 / SplitWithSizesBackward0 (Note [Several views, one node]).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tensor/tensor.h"

namespace tg::autograd {

// Note [Several views, one node]
// torch records one node for the views unbind/split/chunk return: grad_fn is shared
// (`xs[0].grad_fn is xs[1].grad_fn`), output_nr is the view's position, and a backward through
// one view runs the node with the others' grads undefined (a hook on another view sees None).
// The node's backward stacks (unbind) or concatenates (split) the grads, zeros where a grad is
// undefined, with the differentiable ops, so a double backward records StackBackward0 /
// CatBackward0 as torch's. Transgrad's formulas have a fixed number of outputs, so this node is
// hand-written; the reference engine's twin is reference/multi_view.py.

// `x` cut along `dim` (wrapped) into pieces of `sizes` (which add up to x's size there). With
// `kind` "unbind" each piece is a select (the dim removed; sizes are all 1), else a slice.
// `kind` is the node's torch name without "Backward0": "unbind", "split", "split_with_sizes".
std::vector<Tensor> views_along(const Tensor& x, int64_t dim, const std::vector<int64_t>& sizes,
                                const std::string& kind);

}  // namespace tg::autograd
