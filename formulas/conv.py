"""Convolution formulas: im2col / col2im (each the adjoint of the other), conv2d as one node over
them and the BLAS-backed matmul (Note [conv2d is one node]), conv2d_grouped and conv1d as
composites.

Note [Convolution as im2col + matmul]
conv2d unfolds the input into columns (N, C*kh*kw, oh*ow) (kernel.im2col), lays them out as
rows (N*oh*ow, C*kh*kw) and multiplies them by the filters (C*kh*kw, O) in ONE 2-D matmul: one
large BLAS gemm forward and backward, where a matmul batched over N would run N small ones.
With ``groups`` the rows and filters split into G blocks: one matmul batched over G. The
result (N*oh*ow, O) is returned as an (N, O, oh, ow) view. Its input-gradient is then a
transposed convolution: the matmul's backward multiplies by the filters' transpose, and
im2col's backward is col2im, whose own backward is im2col again. Both are linear, so every
derivative order is an exact formula (no once_differentiable) and double backward through a
conv works like any other composite. When each image has many output positions
(oh*ow >= WIDE_IMAGE) and groups == 1, the filters multiply the columns batched over N
instead, (O, C*kh*kw) @ (N, C*kh*kw, oh*ow): the N gemms are large enough, and the result
is already (N, O, oh, ow), saving the copies of the transposed rows and of the permuted
output (in bench/cnn_step.py's first layer, forward 0.07 ms against 0.24 ms). Reshapes name
every size (no -1), so that an empty batch (N = 0) reshapes too: -1 is ambiguous for a tensor
of no elements.
"""

from transgrad.lang import Optional, Shape, T, Tensor, case, formula, helper, kernel, ops, samples

WIDE_IMAGE = 32  # output positions per image from which conv2d batches its gemm over N


@helper
def conv_out_size(size: int, k: int, stride: int, padding: int, dilation: int) -> int:
    """Output extent of a window sweep (Note [Window geometry] in reference/kernels_nn.py)."""
    return (size + 2 * padding - dilation * (k - 1) - 1) // stride + 1


@samples(case(T(2, 3, 5, 4), (2, 2), (1, 1), (0, 0), (1, 1)),
         case(T(1, 2, 6, 5), (3, 2), (2, 1), (1, 1), (1, 2)))
@formula
def im2col(x: Tensor, kernel_size: Shape, stride: Shape, padding: Shape, dilation: Shape) -> Tensor:
    """(N, C, H, W) -> (N, C*kh*kw, oh*ow): the input patch under each window, as columns."""
    result = kernel.im2col(x, kernel_size, stride, padding, dilation)

    def backward(grad):
        return ops.col2im(grad, x.shape[2:], kernel_size, stride, padding, dilation)

    return result, backward


@samples(case(T(2, 12, 12), (5, 4), (2, 2), (1, 1), (0, 0), (1, 1)),
         case(T(1, 12, 15), (6, 5), (3, 2), (2, 1), (1, 1), (1, 2)))
@formula
def col2im(cols: Tensor, input_size: Shape, kernel_size: Shape, stride: Shape, padding: Shape,
           dilation: Shape) -> Tensor:
    """The adjoint of im2col: columns summed back into (N, C, *input_size) images."""
    result = kernel.col2im(cols, input_size, kernel_size, stride, padding, dilation)

    def backward(grad):
        return ops.im2col(grad, kernel_size, stride, padding, dilation)

    return result, backward


@helper
def conv_geometry(x_shape: Shape, w_shape: Shape, stride: Shape, padding: Shape,
                  dilation: Shape, groups: int) -> Shape:
    """(oh, ow) of conv2d's output, after torch's checks of the two shapes and ``groups``."""
    if len(x_shape) != 4 or len(w_shape) != 4:
        raise ValueError(f"conv2d: expected 4-D input and weight, got {x_shape}, {w_shape}")
    if groups < 1 or x_shape[1] != w_shape[1] * groups or w_shape[0] % groups != 0:
        raise ValueError(
            f"conv2d: input {x_shape} and weight {w_shape} mismatch: groups {groups}")
    oh = conv_out_size(x_shape[2], w_shape[2], stride[0], padding[0], dilation[0])
    ow = conv_out_size(x_shape[3], w_shape[3], stride[1], padding[1], dilation[1])
    if oh < 1 or ow < 1:
        raise ValueError(f"conv2d: input {x_shape} is too small for weight {w_shape}")
    return (oh, ow)


# Note [conv2d is one node]
# torch records one ConvolutionBackward0 for a convolution (edges: input, weight, bias). So
# conv2d (groups = 1) is a formula whose forward is Note [Convolution as im2col + matmul] in
# kernels and whose backward writes out what the composite's nodes did: the weight's gradient
# from the columns, the input's through col2im. The columns are a hidden output (the weight's
# gradient needs them; recomputing im2col in the backward would cost a pass over the input):
# under double backward their own gradient joins the input's before col2im. Grouped
# convolutions stay the composite conv2d_grouped.


@samples(case(T(2, 3, 5, 4), T(4, 3, 2, 2), T(4)),
         case(T(2, 2, 8, 6), T(3, 2, 3, 3), T(3), (1, 1), (1, 1)),
         case(T(1, 2, 6, 5), T(3, 2, 3, 2), None, (2, 1), (1, 1), (1, 2)))
@formula(hidden_outputs=("cols",))
def conv2d(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: Shape = (1, 1),
           padding: Shape = (0, 0), dilation: Shape = (1, 1), groups: int = 1) -> Tensor:
    """2-D cross-correlation of (N, C, H, W) with (O, C, kh, kw) filters, plus bias (O,)
    (Note [conv2d is one node]; ``groups`` other than 1: conv2d_grouped)."""
    if groups != 1:
        raise ValueError(f"conv2d: groups {groups}: call conv2d_grouped")
    geometry = conv_geometry(x.shape, weight.shape, stride, padding, dilation, groups)
    n = x.shape[0]
    out_channels = weight.shape[0]
    positions = geometry[0] * geometry[1]
    depth = weight.shape[1] * weight.shape[2] * weight.shape[3]
    wide = positions >= WIDE_IMAGE
    ksize = (weight.shape[2], weight.shape[3])
    cols = kernel.im2col(x, ksize, stride, padding, dilation)
    filters = kernel.reshape(weight, (out_channels, depth))
    y = (kernel.reshape(kernel.matmul(filters, cols), (n, out_channels) + geometry) if wide
         else kernel.permute(kernel.reshape(kernel.matmul(
             kernel.reshape(kernel.transpose(cols, 1, 2), (n * positions, depth)),
             kernel.transpose(filters, 0, 1)), (n,) + geometry + (out_channels,)), (0, 3, 1, 2)))
    result = y if bias is None else kernel.add(y, kernel.reshape(bias, (out_channels, 1, 1)))

    def backward(grad, grad_cols):
        w2 = ops.reshape(weight, (out_channels, depth))
        # wide: grad as (N, O, P); else as rows (N*P, O)
        g = (None if grad is None else ops.reshape(grad, (n, out_channels, positions)) if wide
             else ops.reshape(ops.permute(grad, (0, 2, 3, 1)), (n * positions, out_channels)))
        d_w2 = (None if g is None else ops.sum(ops.matmul(g, ops.transpose(cols, 1, 2)), (0,))
                if wide else ops.matmul(ops.transpose(g, 0, 1), ops.reshape(
                    ops.transpose(cols, 1, 2), (n * positions, depth))))
        from_out = (None if g is None else ops.matmul(ops.transpose(w2, 0, 1), g) if wide
                    else ops.transpose(ops.reshape(ops.matmul(g, w2), (n, positions, depth)),
                                       1, 2))
        d_cols = (grad_cols if from_out is None else
                  from_out if grad_cols is None else from_out + grad_cols)
        return (None if d_cols is None else
                ops.col2im(d_cols, x.shape[2:], ksize, stride, padding, dilation),
                None if d_w2 is None else ops.reshape(d_w2, weight.shape),
                None if bias is None or grad is None else ops.sum(grad, (0, 2, 3)))

    return (result, cols), backward


@samples(case(T(1, 4, 6, 5), T(6, 2, 3, 2), None, (2, 1), (1, 1), (1, 2), 2),
         case(T(2, 2, 4, 4), T(2, 1, 3, 3), T(2), (1, 1), (1, 1), (1, 1), 2))
@formula
def conv2d_grouped(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None,
                   stride: Shape = (1, 1), padding: Shape = (0, 0), dilation: Shape = (1, 1),
                   groups: int = 1) -> Tensor:
    """conv2d with ``groups`` blocks of channels: one matmul batched over the groups (Note
    [Convolution as im2col + matmul]); a composite."""
    geometry = conv_geometry(x.shape, weight.shape, stride, padding, dilation, groups)
    n = x.shape[0]
    out_channels = weight.shape[0]
    kh = weight.shape[2]
    kw = weight.shape[3]
    oh = geometry[0]
    ow = geometry[1]
    cols = ops.im2col(x, (kh, kw), stride, padding, dilation)
    rows = ops.reshape(ops.transpose(cols, 1, 2), (n * oh * ow, x.shape[1] * kh * kw))
    per_group = ops.transpose(
        ops.reshape(rows, (n * oh * ow, groups, x.shape[1] // groups * kh * kw)), 0, 1)
    filters = ops.transpose(ops.reshape(weight, (groups, out_channels // groups, -1)), 1, 2)
    flat = ops.reshape(ops.transpose(ops.matmul(per_group, filters), 0, 1),
                       (n * oh * ow, out_channels))
    y = ops.permute(ops.reshape(flat, (n, oh, ow, out_channels)), (0, 3, 1, 2))
    return y if bias is None else y + ops.reshape(bias, (out_channels, 1, 1))


@samples(case(T(2, 3, 7), T(4, 3, 3), T(4)),
         case(T(1, 4, 9), T(2, 2, 2), None, 2, 1, 2, 2))
@formula
def conv1d(x: Tensor, weight: Tensor, bias: Optional[Tensor] = None, stride: int = 1,
           padding: int = 0, dilation: int = 1, groups: int = 1) -> Tensor:
    """1-D cross-correlation of (N, C, L) with (O, C/groups, k): conv2d over a height of 1."""
    y = (ops.conv2d(ops.unsqueeze(x, 2), ops.unsqueeze(weight, 2), bias, (1, stride),
                    (0, padding), (1, dilation)) if groups == 1 else
         ops.conv2d_grouped(ops.unsqueeze(x, 2), ops.unsqueeze(weight, 2), bias, (1, stride),
                            (0, padding), (1, dilation), groups))
    return ops.squeeze(y, (2,))
