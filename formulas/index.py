"""Indexing formulas, in pairs whose backwards use each other (so double backward works):

    slice <-> slice_scatter      select <-> select_scatter
    index_select <-> index_add   gather <-> scatter_add

Index tensors are int64 and never differentiable (their gradient is None). Zeros for the
scattered-into tensor come from ``ops.zeros(shape, dtype)``, so only metadata is saved.
``scatter_add``'s gradient for ``source`` has the index's shape: ``source`` larger than ``index``
(allowed by the kernel, as PyTorch) is not differentiable here.
"""

from transgrad.lang import (
    Dims,
    I,
    Optional,
    Sequence,
    T,
    Tensor,
    case,
    formula,
    kernel,
    ops,
    samples,
)

# ---------------------------------------------------------------------------------------------
# Slices (views)


@samples(case(T(5, 4), 0, 1, 4), case(T(3, 6), -1, None, None, 2), case(T(5), 0, -3, None))
@formula
def slice(x: Tensor, dim: int, start: Optional[int], stop: Optional[int], step: int = 1) -> Tensor:
    result = kernel.slice(x, dim, start, stop, step)

    def backward(grad):
        return ops.slice_scatter(ops.zeros(x.shape, grad.dtype), grad, dim, start, stop, step)

    return result, backward


@samples(case(T(5, 4), T(3, 4), 0, 1, 4), case(T(3, 6), T(3, 3), -1, None, None, 2),
         case(T(5), T(2), start=-2))
@formula
def slice_scatter(x: Tensor, source: Tensor, dim: int = 0, start: Optional[int] = None,
                  stop: Optional[int] = None, step: int = 1) -> Tensor:
    result = kernel.slice_scatter(x, source, dim, start, stop, step)

    def backward(grad):
        hole = ops.zeros(source.shape, grad.dtype)
        return (ops.slice_scatter(grad, hole, dim, start, stop, step),
                ops.slice(grad, dim, start, stop, step))

    return result, backward


@samples(case(T(3, 4), 0, 1), case(T(3, 4), -1, -2), case(T(2, 3, 4), 1, 0))
@formula
def select(x: Tensor, dim: int, index: int) -> Tensor:
    result = kernel.select(x, dim, index)

    def backward(grad):
        return ops.select_scatter(ops.zeros(x.shape, grad.dtype), grad, dim, index)

    return result, backward


@samples(case(T(3, 4), T(4), 0, 1), case(T(3, 4), T(3), -1, -1), case(T(2, 3, 4), T(2, 4), 1, 2))
@formula
def select_scatter(x: Tensor, source: Tensor, dim: int, index: int) -> Tensor:
    result = kernel.select_scatter(x, source, dim, index)

    def backward(grad):
        hole = ops.zeros(source.shape, grad.dtype)
        return ops.select_scatter(grad, hole, dim, index), ops.select(grad, dim, index)

    return result, backward


# ---------------------------------------------------------------------------------------------
# Index tensors along one dim (repeated indices accumulate)


@samples(case(T(5, 3), 0, I(4, high=5)), case(T(3, 5), -1, I(7, high=5)))
@formula
def index_select(x: Tensor, dim: int, index: Tensor) -> Tensor:
    result = kernel.index_select(x, dim, index)

    def backward(grad):
        return ops.index_add(ops.zeros(x.shape, grad.dtype), dim, index, grad), None

    return result, backward


@samples(case(T(5, 3), 0, I(4, high=5), T(4, 3)), case(T(3, 5), -1, I(7, high=5), T(3, 7)))
@formula
def index_add(x: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    result = kernel.index_add(x, dim, index, source)

    def backward(grad):
        return grad, None, ops.index_select(grad, dim, index)

    return result, backward


# ---------------------------------------------------------------------------------------------
# Index tensors elementwise: out[i][j] = x[i][index[i][j]] for dim=1


@samples(case(T(3, 4), 1, I(3, 2, high=4)), case(T(3, 4), 0, I(5, 4, high=3)),
         case(T(2, 3, 4), -1, I(2, 2, 6, high=4)))
@formula
def gather(x: Tensor, dim: int, index: Tensor) -> Tensor:
    result = kernel.gather(x, dim, index)

    def backward(grad):
        return ops.scatter_add(ops.zeros(x.shape, grad.dtype), dim, index, grad), None

    return result, backward


@samples(case(T(3, 4), 1, I(3, 2, high=4), T(3, 2)), case(T(3, 4), 0, I(5, 4, high=3), T(5, 4)))
@formula
def scatter_add(x: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    result = kernel.scatter_add(x, dim, index, source)

    def backward(grad):
        return grad, None, ops.gather(grad, dim, index)

    return result, backward


# ---------------------------------------------------------------------------------------------
# Advanced indexing (torch's aten::index / aten::index_put): index tensors on the dims `dims`,
# broadcast together; negative entries wrap (Note [Advanced indexing kernels] in
# csrc/kernels/index.cpp). index's gradient accumulates repeated indices.


@samples(case(T(5, 4), (0,), [I(6, high=5)]),
         case(T(3, 4, 5), (0, 2), [I(2, 3, low=-3, high=3), I(3, high=5)]),
         case(T(3, 4, 5), (1, 2), [I(2, 1, high=4), I(3, low=-5, high=5)]))
@formula
def index_tensor(x: Tensor, dims: Dims, indices: Sequence[Tensor]) -> Tensor:
    result = kernel.index(x, dims, indices)

    def backward(grad):
        return ops.index_put(ops.zeros(x.shape, grad.dtype), dims, indices, grad, True), None

    return result, backward


@samples(case(T(5, 4), (0,), [I(3, high=5, distinct=True)], T(3, 4)),
         case(T(3, 4, 5), (0, 2), [I(2, 1, high=3), I(3, high=5)], T(2, 3, 4), True),
         case(T(3, 4, 5), (1,), [I(2, 2, high=4)], T(3, 2, 2, 5), True))
@formula
def index_put(x: Tensor, dims: Dims, indices: Sequence[Tensor], values: Tensor,
              accumulate: bool = False) -> Tensor:
    result = kernel.index_put(x, dims, indices, values, accumulate)

    def backward(grad):
        hole = ops.zeros(values.shape, grad.dtype)
        gx = grad if accumulate else ops.index_put(grad, dims, indices, hole, False)
        return gx, None, ops.index_tensor(grad, dims, indices)

    return result, backward
