"""The errors users' code matches on carry torch's type and words, on both engines.

Each case is an expression over ``T`` (the engine module), the exception torch raises and its
message as torch 2.13 words it; the second test checks the table itself against torch where
torch is installed, so a case cannot drift from the spec.
"""

import re

import pytest
import transgrad
import transgrad.reference

ENGINES = [transgrad, transgrad.reference]

CASES = [
    # dims out of range (c10::maybe_wrap_dim), through every path that takes a dim
    ("T.ones(2, 3).sum(3)", IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("T.ones(2, 3).mean(-3)", IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got -3)"),
    ("T.ones(2, 3).std(3)", IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("T.ones(2, 3).argmax(3)", IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("T.ones(2, 3).all(3)", IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("T.ones(2, 3).cumsum(3)", IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("T.ones(2, 3).sort(3)", IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("T.ones(2, 3).diff(dim=3)", IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("T.ones(2, 3).log_softmax(3)", IndexError,
     "Dimension out of range (expected to be in range of [-2, 1], but got 3)"),
    ("T.cat([T.ones(2)], dim=3)", IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 3)"),
    ("T.ones(()).sum(1)", IndexError,
     "Dimension out of range (expected to be in range of [-1, 0], but got 1)"),
    ("T.ones(2, 3).sum((0, -2))", RuntimeError,
     "dim 0 appears multiple times in the list of dims"),
    ("T.ones(2, 3).flip(0, 0)", RuntimeError, "dim 0 appears multiple times in the list of dims"),
    # reductions over nothing
    ("T.zeros(0).argmax()", IndexError,
     "argmax(): Expected reduction dim to be specified for input.numel() == 0."),
    ("T.zeros(0, 3).argmin(0)", IndexError,
     "argmin(): Expected reduction dim 0 to have non-zero size."),
    # broadcasting (at::infer_size: checked from the last dim)
    ("T.ones(2, 3) + T.ones(3, 2)", RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (2) at non-singleton dimension 1"),
    ("T.ones(2, 3) * T.ones(4, 2, 4)", RuntimeError,
     "The size of tensor a (3) must match the size of tensor b (4) at non-singleton dimension 2"),
    ("T.nn.functional.mse_loss(T.ones(2), T.ones(3))", RuntimeError,
     "The size of tensor a (2) must match the size of tensor b (3) at non-singleton dimension 0"),
    # shapes
    ("T.ones(2, 3).view(4)", RuntimeError, "shape '[4]' is invalid for input of size 6"),
    ("T.ones(2, 3).reshape(0, -1)", RuntimeError, "shape '[0, -1]' is invalid for input of size 6"),
    ("T.ones(2, 3).view(-1, -1)", RuntimeError, "only one dimension can be inferred"),
    ("T.ones(2, 3).view(-2)", RuntimeError, "invalid shape dimension -2 at index 0 of shape [-2]"),
    ("T.ones(0).reshape(0, -1)", RuntimeError,
     "cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension "
     "size -1 can be any value and is ambiguous"),
    ("T.ones(2, 3).expand(3, 3)", RuntimeError,
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton "
     "dimension 0.  Target sizes: [3, 3].  Tensor sizes: [2, 3]"),
    ("T.ones(2, 3).expand(2)", RuntimeError,
     "expand(torch.FloatTensor{[2, 3]}, size=[2]): the number of sizes provided (1) must be "
     "greater or equal to the number of dimensions in the tensor (2)"),
    ("T.ones(2, 3).expand(-1, 2, 3)", RuntimeError,
     "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    ("T.cat([T.ones(2, 3), T.ones(3, 3)], dim=1)", RuntimeError,
     "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 for "
     "tensor number 1 in the list."),
    ("T.cat([T.ones(2, 3), T.ones(3)])", RuntimeError,
     "Tensors must have same number of dimensions: got 2 and 1"),
    ("T.cat([T.ones(3), T.ones(())])", RuntimeError,
     "zero-dimensional tensor (at position 1) cannot be concatenated"),
    ("T.stack([T.ones(2), T.ones(3)])", RuntimeError,
     "stack expects each tensor to be equal size, but got [2] at entry 0 and [3] at entry 1"),
    # norms
    ("T.norm(T.tensor([3, 4]))", RuntimeError,
     "linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    ("T.norm(T.ones(3), p='nuc')", RuntimeError,
     "linalg.matrix_norm: The input tensor A must have at least 2 dimensions."),
    ("T.norm(T.ones(2, 2), p='abc')", RuntimeError, "linalg.matrix_norm: Order abc not supported."),
    # products
    ("T.ones(2, 3) @ T.ones(2, 3)", RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x3)"),
    ("T.ones(2, 2, 3) @ T.ones(2, 3)", RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (4x3 and 2x3)"),
    ("T.ones(2, 2, 3) @ T.ones(2, 2, 3)", RuntimeError,
     "Expected size for first two dimensions of batch2 tensor to be: [2, 3] but got: [2, 2]."),
    ("T.ones(3) @ T.ones(2, 3)", RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (1x3 and 2x3)"),
    ("T.ones(2, 3) @ T.ones(2)", RuntimeError, "size mismatch, got input (2), mat (2x3), vec (2)"),
    ("T.ones(3) @ T.ones(2)", RuntimeError,
     "inconsistent tensor size, expected tensor [3] and src [2] to have the same number of "
     "elements, but got 3 and 2 elements respectively"),
    ("T.matmul(T.ones(()), T.ones(3))", RuntimeError,
     "both arguments to matmul need to be at least 1D, but they are 0D and 1D"),
    ("T.mm(T.ones(3), T.ones(3, 2))", RuntimeError, "self must be a matrix"),
    ("T.bmm(T.ones(2, 3, 3), T.ones(3, 3))", RuntimeError, "batch2 must be a 3D tensor"),
    ("T.mv(T.ones(3), T.ones(3))", RuntimeError,
     "vector + matrix @ vector expected, got 1, 1, 1"),
    ("T.nn.functional.linear(T.ones(2, 3), T.ones(4, 2))", RuntimeError,
     "mat1 and mat2 shapes cannot be multiplied (2x3 and 2x4)"),
    ("T.ones(2, 3).topk(5)", RuntimeError, "selected index k out of range"),
    # indices: index_select's words for index_select, index_add and embedding; the loss's own
    ("T.ones(3).index_select(0, T.tensor([3]))", IndexError, "index out of range in self"),
    ("T.ones(3).index_select(0, T.tensor([-1]))", IndexError, "index out of range in self"),
    ("T.ones(3).index_add(0, T.tensor([5]), T.ones(1))", IndexError, "index out of range in self"),
    ("T.nn.functional.embedding(T.tensor([3]), T.ones(3, 2))", IndexError,
     "index out of range in self"),
    ("T.nn.Embedding(3, 2)(T.tensor([-1]))", IndexError, "index out of range in self"),
    ("T.ones(3)[T.tensor([3])]", IndexError,
     "index 3 is out of bounds for dimension 0 with size 3"),
    ("T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0, 3]))", IndexError,
     "Target 3 is out of bounds."),
    ("T.nn.functional.cross_entropy(T.ones(2, 3), T.tensor([0, -5]))", IndexError,
     "Target -5 is out of bounds."),
    ("T.nn.functional.nll_loss(T.ones(2, 3), T.tensor([0, 3]))", IndexError,
     "Target 3 is out of bounds."),
    # layers
    ("T.nn.functional.conv2d(T.ones(1, 1, 3, 3), T.ones(1, 2, 2, 2))", RuntimeError,
     "Given groups=1, weight of size [1, 2, 2, 2], expected input[1, 1, 3, 3] to have 2 "
     "channels, but got 1 channels instead"),
    ("T.nn.Conv1d(2, 4, 3)(T.ones(1, 3, 8))", RuntimeError,
     "Given groups=1, weight of size [4, 2, 3], expected input[1, 3, 8] to have 2 channels, but "
     "got 3 channels instead"),
    ("T.nn.LayerNorm((2, 3))(T.ones(2, 4))", RuntimeError,
     "Given normalized_shape=[2, 3], expected input with shape [*, 2, 3], but got input of "
     "size[2, 4]"),
    ("T.nn.BatchNorm1d(3)(T.ones(2, 4))", RuntimeError,
     "running_mean should contain 4 elements not 3"),
    ("T.nn.BatchNorm1d(3, track_running_stats=False)(T.ones(2, 4))", RuntimeError,
     "weight should contain 4 elements not 3"),
    # linear algebra failures: torch.linalg.LinAlgError, a RuntimeError
    ("T.linalg.inv(T.ones(2, 2))", "LinAlgError",
     "linalg.inv: The diagonal element 2 is zero, the inversion could not be completed because "
     "the input matrix is singular."),
    ("T.linalg.inv(T.stack([T.eye(2), T.zeros(2, 2)]))", "LinAlgError",
     "linalg.inv: (Batch element 1): The diagonal element 1 is zero, the inversion could not be "
     "completed because the input matrix is singular."),
    ("T.linalg.solve(T.zeros(2, 2), T.ones(2, 1))", "LinAlgError",
     "torch.linalg.solve: The solver failed because the input matrix is singular."),
    ("T.linalg.cholesky(T.zeros(2, 2, 2))", "LinAlgError",
     "linalg.cholesky: (Batch element 0): The factorization could not be completed because the "
     "input is not positive-definite (the leading minor of order 1 is not positive-definite)."),
    # argument checks that raised ValueError (now ArgumentError, also a RuntimeError: Note
    # [Error classes]); kernels of both engines, the API, torch.nn.functional
    ("T.ones(2, 3).diagonal(0, 1, 1)", RuntimeError,
     "diagonal dimensions cannot be identical 1, 1"),
    ("T.ones(4).tril()", RuntimeError, "tril: input tensor must have at least 2 dimensions"),
    ("-T.ones(2, dtype=T.bool)", RuntimeError,
     "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
     "a mask, use the `~` or `logical_not()` operator instead."),
    ("T.ones(1, 1).gather(1, T.zeros(2, 2, dtype=T.int64))", RuntimeError,
     "Size does not match at dimension 0 expected index [2, 2] to be no larger than self [1, 1] "
     "apart from dimension 1"),
    ("T.ones(3, 5, 3).scatter_add(0, T.zeros(2, 2, dtype=T.int64), T.ones(2, 5))", RuntimeError,
     "Index tensor must have the same number of dimensions as self tensor"),
    ("T.ones(3, 2).index_add(0, T.tensor([0, 1]), T.ones(2))", RuntimeError,
     "source tensor shape must match self tensor shape, excluding the specified dimension. Got "
     "self.shape = [3, 2] source.shape = [2]"),
    ("T.ones(10, 5, 10).sum_to_size(10, 10)", RuntimeError,
     "size {[10, 10]} is not expandable to size {[10, 5, 10]}."),
    ("T.ones(5).roll(())", RuntimeError, "`shifts` required"),
    ("T.eye(-1)", RuntimeError, "n must be greater or equal to 0, got -1"),
    ("T.nn.functional.gelu(T.ones(2), approximate='asdf')", RuntimeError,
     "approximate argument must be either none or tanh."),
    ("T.nn.functional.avg_pool2d(T.ones(1, 1, 4, 4), 2, padding=-1)", RuntimeError,
     "pad must be non-negative, but got pad: -1"),
    ("T.nn.functional.max_pool1d(T.ones(1, 1, 9), 2, padding=4)", RuntimeError,
     "max_pool1d() padding should be at most half of kernel size, but got padding=4 and "
     "kernel_size=2"),
    ("T.nn.functional.max_pool1d(T.ones(1, 1, 9), 2, padding=4, return_indices=True)",
     RuntimeError,
     "pad should be at most half of effective kernel size, but got pad=4, kernel_size=2 and "
     "dilation=1"),
    ("T.nn.functional.adaptive_avg_pool2d(T.ones(2, 2), (2, 2))", ValueError,
     "Input dimension should be at least 3"),
    ("T.nn.functional.adaptive_max_pool1d(T.ones(1, 2, 3), ())", RuntimeError,
     "adaptive_max_pool1d() argument 'output_size' should contain one int (got 0)"),
    ("T.nn.functional.conv1d(T.ones(1, 1, 4, dtype=T.int64), T.ones(1, 1, 2, dtype=T.int64), "
     "T.ones(1, dtype=T.float64))", RuntimeError,
     "Input type (long int) and bias type (double) should be the same"),
    ("T.nn.functional.embedding(T.tensor([0]), T.ones(2))", RuntimeError, "'weight' must be 2-D"),
    ("T.ones(()).narrow(0, 0, 1)", RuntimeError, "narrow() cannot be applied to a 0-dim tensor."),
    ("T.cat([])", ValueError, "torch.cat(): expected a non-empty list of Tensors"),
    ("T.linalg.cross(T.ones(5, 3), T.ones(5, 1))", RuntimeError,
     "linalg.cross: inputs dimension -1 must have length 3. Got 3 and 1"),
    ("T.ones(3, 4).mean(dtype=T.int64)", RuntimeError,
     "mean(): could not infer output dtype. Optional dtype must be either a floating point or "
     "complex dtype. Got: Long"),
    ("T.renorm(T.ones(3), 2, 0, 1.0)", RuntimeError,
     "renorm: input needs at least 2 dimensions, got 1 dimensions"),
    ("T.nn.functional.rrelu(T.ones(3), 0.3, 0.1)", RuntimeError,
     "Lower bound should be less than or equal to the upper bound"),
    ("T.nn.functional.group_norm(T.ones(1), 1)", RuntimeError,
     "Expected at least 2 dimensions for input tensor but received 1"),
    ("T.nn.functional.prelu(T.ones(()), T.ones(2))", RuntimeError,
     "Not allow zero-dim input tensor."),
    ("T.nn.functional.multi_margin_loss(T.ones(5, 0), T.zeros(5, dtype=T.int64))", RuntimeError,
     "Expected non-empty vector or matrix with optional 0-dim batch size, but got: [5, 0]"),
    # a Python number where torch's binding takes a Tensor (Note [Tensor-only operands])
    ("T.maximum(T.ones(3), 2)", TypeError,
     "maximum(): argument 'other' (position 2) must be Tensor, not int"),
    ("T.atan2(2, T.ones(3))", TypeError,
     "atan2(): argument 'input' (position 1) must be Tensor, not int"),
    ("T.heaviside(T.ones(3), 2)", TypeError,
     "heaviside(): argument 'values' (position 2) must be Tensor, not int"),
    ("T.gcd(T.ones(3, dtype=T.int64), 2)", TypeError,
     "gcd(): argument 'other' (position 2) must be Tensor, not int"),
    ("T.logical_and(T.ones(3), True)", TypeError,
     "logical_and(): argument 'other' (position 2) must be Tensor, not bool"),
    ("T.eq(2, T.ones(3))", TypeError,
     "eq() received an invalid combination of arguments - got (int, Tensor), but expected one "
     "of:"),
    ("T.bitwise_and(2, 3)", TypeError,
     "bitwise_and() received an invalid combination of arguments - got (int, int), but "
     "expected one of:"),
    ("T.linspace(0, 10, 5.0)", TypeError,
     "linspace() received an invalid combination of arguments - got (int, int, float), but "
     "expected"),
]


def _raised(T, expr):
    with pytest.raises(Exception) as info:
        eval(expr, {"T": T})
    return info.value


def _expected_type(T, kind):
    return T.linalg.LinAlgError if kind == "LinAlgError" else kind


@pytest.mark.parametrize("T", ENGINES, ids=["compiled", "reference"])
@pytest.mark.parametrize("expr, kind, message", CASES, ids=[c[0] for c in CASES])
def test_error_type_and_words_are_torchs(T, expr, kind, message):
    err = _raised(T, expr)
    assert isinstance(err, _expected_type(T, kind)), f"{type(err).__name__}: {err}"
    # torch's words first; transgrad may add its own context after them
    assert re.match(re.escape(message), str(err)), str(err)


@pytest.mark.parametrize("expr, kind, message", CASES, ids=[c[0] for c in CASES])
def test_the_table_is_torchs(expr, kind, message):
    torch = pytest.importorskip("torch")
    err = _raised(torch, expr)
    assert isinstance(err, _expected_type(torch, kind))
    assert str(err).startswith(message), str(err)


def test_linalg_error_is_a_runtime_error_shared_by_both_engines():
    assert issubclass(transgrad.linalg.LinAlgError, RuntimeError)
    assert transgrad.reference.linalg.LinAlgError is transgrad.linalg.LinAlgError
    with pytest.raises(RuntimeError):
        transgrad.linalg.inv(transgrad.zeros(3, 3))


@pytest.mark.parametrize("T", ENGINES, ids=["compiled", "reference"])
@pytest.mark.parametrize("p", [0, -1, -float("inf"), float("inf"), 3, "nuc", "fro"])
def test_norm_orders_as_torch(T, p):
    """norm's orders past 1/2/inf: 0 counts nonzeros, -inf is the least magnitude, 'nuc' sums the
    singular values (they raised or divided by zero)."""
    data = [[1.0, -2.0, 0.0], [3.0, 0.5, -4.0]]
    x = T.tensor(data, dtype=T.float64)
    want = {0: 5.0, -float("inf"): 0.0, float("inf"): 4.0,
            3: sum(abs(v) ** 3 for r in data for v in r) ** (1 / 3),
            "fro": sum(v * v for r in data for v in r) ** 0.5}
    got = float(T.norm(x, p=p))
    if p == "nuc":
        import numpy as np

        assert got == pytest.approx(float(np.linalg.norm(np.array(data), "nuc")))
    elif p == -1:
        assert got == 0.0  # a zero entry makes the harmonic-type sum infinite, as torch
    else:
        assert got == pytest.approx(want[p])
    torch = pytest.importorskip("torch")
    assert got == pytest.approx(float(torch.norm(torch.tensor(data, dtype=torch.float64), p=p)))


@pytest.mark.parametrize("T", ENGINES, ids=["compiled", "reference"])
def test_nuclear_norm_gradient_and_keepdim(T):
    x = T.tensor([[[2.0, 1.0], [0.5, 3.0]], [[1.0, 0.0], [0.0, 2.0]]], dtype=T.float64,
                 requires_grad=True)
    out = T.norm(x, p="nuc", dim=(1, 2), keepdim=True)
    assert tuple(out.shape) == (2, 1, 1)
    assert T.autograd.gradcheck(lambda a: T.norm(a, p="nuc", dim=(-2, -1)), (x,))


@pytest.mark.parametrize("T", ENGINES, ids=["compiled", "reference"])
@pytest.mark.parametrize("expr", [
    "T.ones(2, 3).diagonal(0, 1, 1)",  # a kernel's check (C++ tg::ValueError; reference kernel)
    "T.ones(3, 2).index_add(0, T.tensor([0, 1]), T.ones(2))",
    "T.ones(10, 5, 10).sum_to_size(10, 10)",  # the API's own check
    "T.nn.functional.avg_pool2d(T.ones(1, 1, 1, 1), 3)",  # a formula's raise ValueError
])
def test_argument_checks_raise_both_runtime_and_value_error(T, expr):
    """Note [Error classes]: torch code catches RuntimeError, transgrad's earlier users
    ValueError; one class, the same on both engines, serves both."""
    from transgrad._errors import ArgumentError

    err = _raised(T, expr)
    assert type(err) is ArgumentError, f"{type(err).__name__}: {err}"
    assert isinstance(err, RuntimeError) and isinstance(err, ValueError)


def test_an_unbound_reflected_operator_refuses_a_number_self_as_torch():
    """torch.Tensor.__radd__(2, t) is a descriptor's TypeError; the reference Tensor's Python
    methods check it themselves (the compiled ones are pybind11's: its cast error)."""
    T = transgrad.reference
    for name in ("__radd__", "__rmul__", "__rmatmul__"):
        with pytest.raises(TypeError):
            getattr(T.Tensor, name)(2, T.ones(3))
