"""The ops that refuse operands of different dtypes, as torch's, with torch's words.

Input: the tensor operands of a public matrix-product op (``mm``, ``matmul``, ``bmm``, ``mv``,
``dot``, ``addmm``, ``F.linear``, ...), before it runs. Output: nothing, or torch's
``RuntimeError``. The engines' kernels would promote (Note [Ops that refuse mixed dtypes]).

Invariant: each check raises exactly when torch's op raises for the dtypes alone, with the text
torch's kernel that catches it prints; shapes are checked by the ops themselves.

Note [Ops that refuse mixed dtypes]
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Elementwise ops promote (Note [Type promotion] in ``_dtypes.py``), but torch's BLAS-backed ops do
not: ``float32 @ float64`` is a RuntimeError, so that a float64 tensor does not silently turn a
float32 model's activations into float64 (and its step time twofold). The matmul kernels of
both engines promote, which the formulas rely on nowhere, so the check lives in the public
functions, before the op: a formula's own ``ops.matmul`` (in a backward, where the engine has
already cast each gradient to its input's dtype) is not checked twice. Which message torch
prints depends on the kernel that catches the mismatch, which for ``matmul`` depends on the
operands' dims (a 2-D @ 1-D product is torch's ``mv``, whose check prints ``addmv``'s message);
``_matmul_message`` follows torch's ``matmul`` dispatch.
"""

from __future__ import annotations

from typing import Any, Optional

from transgrad._backend import is_tensor

# torch's ScalarType names (``Float``) and C++ type names (``float``), both used in its messages
_SCALAR_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                 "int32": "Int", "int64": "Long", "float16": "Half", "bfloat16": "BFloat16",
                 "float32": "Float", "float64": "Double", "complex128": "ComplexDouble"}
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double",
              "complex128": "c10::complex<double>"}


def scalar_name(dtype: Any) -> str:
    """torch's ScalarType name of ``dtype`` (``Float`` for float32)."""
    return _SCALAR_NAMES[dtype.name]


def cpp_name(dtype: Any) -> str:
    """The C++ type name torch prints for ``dtype`` (``float`` for float32)."""
    return _CPP_NAMES[dtype.name]


def _mm_message(a: Any, b: Any) -> str:
    return (f"expected m1 and m2 to have the same dtype, but got: {cpp_name(a.dtype)} != "
            f"{cpp_name(b.dtype)}")


def _mv_message(mat: Any, vec: Any) -> str:
    return _addmv_message(vec, mat, vec)


def _addmv_message(input: Any, mat: Any, vec: Any) -> str:
    return (f"addmv input tensors must have the same dtype, but got {scalar_name(input.dtype)}, "
            f"{scalar_name(mat.dtype)}, and {scalar_name(vec.dtype)}")


def _dot_message(a: Any, b: Any) -> str:
    return (f"dot : expected both vectors to have same dtype, but found "
            f"{scalar_name(a.dtype)} and {scalar_name(b.dtype)}")


def _scalar_type_message(expected: Any, found: Any) -> str:
    return (f"expected scalar type {scalar_name(expected.dtype)} but found "
            f"{scalar_name(found.dtype)}")


def _matmul_message(a: Any, b: Any) -> str:
    """The message of torch's ``matmul(a, b)`` for these dims (its dispatch: dot, mv, mm,
    folded mm / mv, else bmm)."""
    if a.ndim == 1 and b.ndim == 1:
        return _dot_message(a, b)
    if b.ndim == 1 and a.ndim >= 2:
        return _mv_message(a, b)
    if b.ndim == 2 and a.ndim in (1, 2) or (a.ndim >= 3 and b.ndim == 2):
        return _mm_message(a, b)
    return _scalar_type_message(a, b)


def _require(a: Any, b: Any, message: Any) -> None:
    """Raise torch's ``message(a, b)`` unless ``a`` and ``b`` have one dtype."""
    if a.dtype is not b.dtype:
        raise RuntimeError(message(a, b))


def check_matmul(a: Any, b: Any) -> None:
    """``matmul`` / ``@``: both operands of one dtype."""
    _require(a, b, _matmul_message)


def check_mm(a: Any, b: Any) -> None:
    _require(a, b, _mm_message)


def check_bmm(a: Any, b: Any) -> None:
    _require(a, b, _scalar_type_message)


def check_mv(mat: Any, vec: Any) -> None:
    _require(mat, vec, _mv_message)


def check_dot(a: Any, b: Any) -> None:
    _require(a, b, _dot_message)


def check_addmm(input: Any, mat1: Any, mat2: Any) -> None:
    """``addmm`` / ``addbmm`` (and ``F.linear`` with a bias): torch checks self against mat2,
    then mat1 against mat2."""
    if input.dtype is not mat2.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                           f"{scalar_name(input.dtype)} and {scalar_name(mat2.dtype)}")
    if mat1.dtype is not mat2.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                           f"{scalar_name(mat1.dtype)} and {scalar_name(mat2.dtype)}")


def check_baddbmm(input: Any, batch1: Any, batch2: Any) -> None:
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {cpp_name(input.dtype)}, "
                           f"batch1: {cpp_name(batch1.dtype)}, batch2: "
                           f"{cpp_name(batch2.dtype)}")
    check_bmm(batch1, batch2)


def check_addmv(input: Any, mat: Any, vec: Any) -> None:
    if not (input.dtype is mat.dtype is vec.dtype):
        raise RuntimeError(_addmv_message(input, mat, vec))


def check_linear(input: Any, weight: Any, bias: Optional[Any]) -> None:
    """``F.linear``: torch's ``addmm(bias, input, weight.T)`` with a bias, else
    ``matmul(input, weight.T)``."""
    if bias is not None:
        check_addmm(bias, input, weight)
    elif input.dtype is not weight.dtype:
        raise RuntimeError(_mm_message(input, weight))


def check_conv(input: Any, weight: Any, bias: Optional[Any]) -> None:
    """The convolutions (and their transposes): one dtype for input, weight and bias."""
    for other, what in ((weight, "weight"), (bias, "bias")):
        if other is not None and is_tensor(other) and other.dtype is not input.dtype:
            raise RuntimeError(f"Input type ({cpp_name(input.dtype)}) and {what} type "
                               f"({cpp_name(other.dtype)}) should be the same")


def check_same(a: Any, b: Any) -> None:
    """``tensordot`` / ``inner``."""
    _require(a, b, lambda a, b: "both inputs should have same dtype")


def check_operands(operands: Any) -> None:
    """``einsum``: every operand of the first one's dtype."""
    for t in operands[1:]:
        _require(operands[0], t, _scalar_type_message)


# -- writes of one tensor into another: the source in the destination's dtype, as torch's ----


def check_index_add(input: Any, source: Any) -> None:
    _require(input, source, lambda a, b: (
        f"index_add_(): self ({scalar_name(a.dtype)}) and source ({scalar_name(b.dtype)}) must "
        f"have the same scalar type"))


def check_index_copy(input: Any, source: Any) -> None:
    _require(input, source, lambda a, b: (
        f"index_copy_(): self and source expected to have the same dtype, but got (self) "
        f"{scalar_name(a.dtype)} and (source) {scalar_name(b.dtype)}"))


def check_scatter(input: Any, src: Any) -> None:
    """``scatter``, ``scatter_add``, ``scatter_reduce`` with a tensor ``src``."""
    _require(input, src, lambda a, b: "scatter(): Expected self.dtype to be equal to src.dtype")


def check_index_put(input: Any, values: Any) -> None:
    _require(input, values, lambda a, b: (
        f"Index put requires the source and destination dtypes match, got "
        f"{scalar_name(a.dtype)} for the destination and {scalar_name(b.dtype)} for the source."))


def check_masked_scatter(input: Any, source: Any) -> None:
    _require(input, source, lambda a, b: (  # torch's message has no space before the first dtype
        f"masked_scatter: expected self and source to have same dtypes but got"
        f"{scalar_name(a.dtype)} and {scalar_name(b.dtype)}"))


# -- other ops torch computes in one dtype ---------------------------------------------------


def check_scalar_type(a: Any, b: Any) -> None:
    """``linalg.cross`` / ``cross``, ``cdist``: torch's kernels expect ``b`` of ``a``'s dtype."""
    _require(a, b, _scalar_type_message)


def check_solve(A: Any, B: Any) -> None:
    _require(A, B, lambda a, b: (
        f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
        f"{scalar_name(a.dtype)} and B of type {scalar_name(b.dtype)} instead"))


def check_lerp(input: Any, end: Any, weight: Any) -> None:
    """``lerp``: ``end``, then a tensor ``weight``, of ``input``'s dtype (numbers pass)."""
    for name, t in (("end", end), ("weight", weight)):
        if is_tensor(t):
            _require(input, t, lambda a, b, name=name: (
                f"expected dtype {cpp_name(a.dtype)} for `{name}` but got dtype "
                f"{cpp_name(b.dtype)}"))
