"""Pooling formulas over (N, C, H, W) images: max_pool2d (a kernel giving values and flat
indices; the backward scatters through the indices), avg_pool2d (a composite: the mean of
im2col's columns, padding counted as zeros like torch's count_include_pad=True) and
adaptive_avg_pool2d (a composite: two matmuls with constant pooling matrices, since adaptive
average pooling is separable).
"""

from transgrad.lang import Shape, T, Tensor, case, formula, helper, kernel, ops, samples


@helper
def pool_out_size(size: int, k: int, stride: int, padding: int, dilation: int) -> int:
    """Output extent of a window sweep (Note [Window geometry] in reference/kernels_nn.py)."""
    return (size + 2 * padding - dilation * (k - 1) - 1) // stride + 1


@samples(case(T(2, 3, 5, 4), (2, 2), (2, 2), (0, 0), (1, 1)),
         case(T(1, 2, 7, 6), (3, 2), (2, 1), (1, 1), (1, 2)))
@formula(differentiable_outputs=("values",))
def max_pool2d(x: Tensor, kernel_size: Shape, stride: Shape, padding: Shape = (0, 0),
               dilation: Shape = (1, 1)) -> (Tensor, Tensor):
    """Window maxima and their flat indices into H*W (as torch's return_indices=True)."""
    values, indices = kernel.max_pool2d(x, kernel_size, stride, padding, dilation)
    flat_shape = (x.shape[0], x.shape[1], x.shape[2] * x.shape[3])
    # every size named (no -1): an empty batch must reshape too
    out_shape = (x.shape[0], x.shape[1],
                 pool_out_size(x.shape[2], kernel_size[0], stride[0], padding[0], dilation[0])
                 * pool_out_size(x.shape[3], kernel_size[1], stride[1], padding[1], dilation[1]))

    def backward(grad):
        routed = ops.scatter_add(ops.zeros(flat_shape, grad.dtype), 2,
                                 ops.reshape(indices, out_shape), ops.reshape(grad, out_shape))
        return ops.reshape(routed, x.shape)

    return (values, indices), backward


@samples(case(T(2, 3, 6, 4), (2, 2), (2, 2)), case(T(1, 2, 7, 6), (3, 2), (2, 1), (1, 1)))
@formula
def avg_pool2d(x: Tensor, kernel_size: Shape, stride: Shape, padding: Shape = (0, 0)) -> Tensor:
    """Window means; zero padding counts in the mean (torch's count_include_pad=True)."""
    if x.ndim != 4:
        raise ValueError(f"avg_pool2d: expected a 4-D (N, C, H, W) input, got shape {x.shape}")
    oh = pool_out_size(x.shape[2], kernel_size[0], stride[0], padding[0], 1)
    ow = pool_out_size(x.shape[3], kernel_size[1], stride[1], padding[1], 1)
    if oh < 1 or ow < 1:
        raise ValueError(f"avg_pool2d: input {x.shape} is too small for kernel {kernel_size}")
    cols = ops.im2col(x, kernel_size, stride, padding, (1, 1))
    windows = ops.reshape(cols, (x.shape[0], x.shape[1], kernel_size[0] * kernel_size[1],
                                 oh * ow))
    return ops.reshape(ops.mean(windows, (2,)), (x.shape[0], x.shape[1], oh, ow))


@samples(case(T(2, 3, 6, 4), (3, 2)), case(T(1, 2, 7, 5), (3, 4)), case(T(2, 5, 4), (1, 1)))
@formula
def adaptive_avg_pool2d(x: Tensor, output_size: Shape) -> Tensor:
    """Means over the windows [floor(i H / oh), ceil((i + 1) H / oh)) of the last two dims, as
    ``Ph @ x @ Pw^T`` with constant pooling matrices Ph (oh, H) and Pw (ow, W)."""
    if x.ndim < 2:
        raise ValueError(f"adaptive_avg_pool2d: expected at least 2 dims, got shape {x.shape}")
    rows = kernel.adaptive_pool_weights(x, x.shape[-2], output_size[0])
    cols = kernel.adaptive_pool_weights(x, x.shape[-1], output_size[1])
    return ops.matmul(ops.matmul(rows, x), ops.transpose(cols, 0, 1))
