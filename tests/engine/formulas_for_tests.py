"""Small formulas used only by the engine tests, some deliberately broken.

They are built with ``unchecked`` (a FormulaDef that skips the translator's checker and the
registry): the point is to see the engine's run-time behaviour and errors for them. No @formula
in this module, so the checker never reads it (checked_formulas.py holds checked ones).
"""

from transgrad.lang import FormulaDef, FormulaOptions, Optional, Sequence, Tensor, kernel, ops


def unchecked(fn=None, **options):
    """Like @formula, without the static check and without registering the formula."""

    def make(f):
        return FormulaDef(f.__name__, f, FormulaOptions(**options), f.__module__)

    return make(fn) if fn is not None else make


@unchecked
def wrong_count(x: Tensor, other: Tensor) -> Tensor:
    result = kernel.mul(x, other)

    def backward(grad):
        return grad * other

    return result, backward


@unchecked
def wrong_shape(x: Tensor) -> Tensor:
    result = kernel.sum(x, (0,), False)

    def backward(grad):
        return grad

    return result, backward


@unchecked
def wrong_derivative(x: Tensor) -> Tensor:
    result = kernel.sin(x)

    def backward(grad):
        return grad * ops.sin(x)

    return result, backward


@unchecked
def not_summed(x: Tensor, other: Tensor) -> Tensor:
    """add, whose backward leaves the broadcasting to the engine."""
    result = kernel.add(x, other)

    def backward(grad):
        return grad, grad

    return result, backward


@unchecked
def int_grad(x: Tensor) -> Tensor:
    """Returns a float32 gradient for any input: the engine casts it to the input's dtype."""
    result = kernel.mul(x, kernel.scalar_like(x, 2.0))

    def backward(grad):
        return ops.cast(grad * 2.0, "float32")

    return result, backward


@unchecked
def cube(x: Tensor) -> Tensor:
    """x**3 with a backward that reads the saved output (result) and the input."""
    result = kernel.mul(kernel.mul(x, x), x)

    def backward(grad):
        return grad * 3.0 * result / x

    return result, backward


@unchecked(hidden_outputs=("sq",))
def sum_sq_hidden(x: Tensor) -> Tensor:
    """sum(x*x) with the square kept as a hidden output."""
    sq = kernel.mul(x, x)
    result = kernel.sum(sq, (0,), False)

    def backward(grad, grad_sq):
        g = ops.expand(grad, x.shape) * 2.0 * x
        return g if grad_sq is None else g + grad_sq * 2.0 * x

    return (result, sq), backward


@unchecked(materialize_grads=True)
def split2(x: Tensor) -> Tensor:
    """(2x, 3x): the backward assumes both grads are defined (materialize_grads)."""
    a = kernel.mul(x, kernel.scalar_like(x, 2.0))
    b = kernel.mul(x, kernel.scalar_like(x, 3.0))

    def backward(ga, gb):
        return ga * 2.0 + gb * 3.0

    return (a, b), backward


@unchecked
def split2_none(x: Tensor) -> Tensor:
    """(2x, 3x) with None handling in the backward."""
    a = kernel.mul(x, kernel.scalar_like(x, 2.0))
    b = kernel.mul(x, kernel.scalar_like(x, 3.0))

    def backward(ga, gb):
        out = None
        if ga is not None:
            out = ga * 2.0
        if gb is not None:
            out = gb * 3.0 if out is None else out + gb * 3.0
        return out

    return (a, b), backward


@unchecked(once_differentiable=True)
def sin_once(x: Tensor) -> Tensor:
    result = kernel.sin(x)

    def backward(grad):
        return kernel.mul(grad, kernel.cos(x))

    return result, backward


@unchecked
def weighted_sum(xs: Sequence[Tensor], w: Optional[Tensor] = None) -> Tensor:
    """sum of xs (a Sequence parameter), times w when given."""
    total = xs[0]
    for t in xs[1:]:
        total = kernel.add(total, t)
    result = total if w is None else kernel.mul(total, w)

    def backward(grad):
        gx = grad if w is None else grad * w
        return [gx for _ in xs], None

    return result, backward


@unchecked
def shape_only(x: Tensor) -> Tensor:
    """sum(x): the backward reads x.shape only."""
    result = kernel.sum(x, (0,), False)

    def backward(grad):
        return ops.expand(grad, x.shape)

    return result, backward


@unchecked
def softplus_composite(x: Tensor) -> Tensor:
    return ops.log1p(ops.exp(x))


@unchecked(hidden_outputs=("e",))
def sum_exp_hidden(x: Tensor) -> Tensor:
    """sum(exp(x)), keeping exp(x) as a hidden output that the backward reads: double backward
    reaches the node again through that hidden output (its grad_e slot)."""
    e = kernel.exp(x)
    result = kernel.sum(e, (0,), False)

    def backward(grad, grad_e):
        g = None if grad is None else ops.expand(grad, x.shape) * e
        if grad_e is not None:
            g = grad_e * e if g is None else g + grad_e * e
        return g

    return (result, e), backward
