"""Messages: every front-end rejection's sentence and hint.

Used by ``fence`` and ``captures``. Note [Messages as data]: key -> (code, message, hint),
formatted with the fields the checker passes to ``format_message``; the capture rule's own
messages (the rest of T2xx) are built from their facts by ``capture_message`` (below).
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import Loc

ONLY_MODULE = (
    "unsupported module-level statement: a formula module holds only imports, "
    "@formula/@helper functions and numeric constants"
)
SIGNATURE = "the signature is {signature}"
NO_HISTORY = "kernels record no history, so a double backward through {what} would be wrong"
SMUGGLED = "escapes the capture analysis"

MESSAGES: dict[str, tuple[str, str, str]] = {
    # T1xx: the subset and the structure of a formula
    "import_from": (
        "T101",
        (
            "unsupported import from `{module}`: formula modules import only from transgrad.lang "
            "(and `import math`)"
        ),
        "write `from transgrad.lang import formula, Tensor, kernel, ops, ...`",
    ),
    "import_name": (
        "T101",
        "`{name}` is not importable here (or is renamed): transgrad.lang exports {exports}",
        "import one of those names as is",
    ),
    "import_module": (
        "T101",
        "unsupported import `{name}`: only `import math` is allowed besides transgrad.lang",
        "use kernel.* / ops.* instead of other libraries",
    ),
    "module_block": ("T102", ONLY_MODULE, "move this logic into a formula or a @helper function"),
    "module_small": (
        "T102",
        ONLY_MODULE,
        "remove it or move it into a formula or a @helper function",
    ),
    "module_assign": (
        "T102",
        (
            "unsupported module-level assignment: only numeric or bool constants (literals, "
            "arithmetic, math.*) are allowed"
        ),
        "make it a constant expression, or compute it inside a formula",
    ),
    "module_function": (
        "T102",
        "module-level function `{name}` is neither @formula nor @helper",
        "decorate it with @helper (or @formula)",
    ),
    "async": ("T103", "`async def {name}` is not supported", "write a plain `def`"),
    "statement": (
        "T103",
        "{what} are not supported in formulas",
        "use assignments, `if`/`else` and `for` loops over ranges",
    ),
    "for_else": ("T103", "`for ... else` is not supported", "use a flag variable"),
    "raise": (
        "T103",
        "only `raise ValueError/IndexError/TypeError/RuntimeError(message)` is supported",
        "raise one of those exceptions with a message",
    ),
    "expression_statement": (
        "T103",
        (
            "an expression statement has no effect in a formula (kernels and ops never mutate "
            "their arguments)"
        ),
        "assign the result to a name, or remove the statement",
    ),
    "assign_target": (
        "T103",
        (
            "assignment to an item, slice or attribute is not supported: values in formulas are "
            "immutable"
        ),
        "build a new tuple (e.g. `shape = shape[:d] + (1,) + shape[d + 1:]`)",
    ),
    "expression": (
        "T104",
        "{what} are not supported in formulas",
        "use tuples, ints, floats, bools and tensors (ops.* / kernel.*)",
    ),
    "star_arg": (
        "T104",
        "`*`/`**` arguments are not supported",
        "pass arguments one by one (a Sequence[Tensor] parameter takes a list or tuple)",
    ),
    "kernel_uncalled": (
        "T104",
        "`kernel.{kernel}` must be called directly",
        "write `kernel.{kernel}(...)`",
    ),
    "unknown_name": (
        "T105",
        (
            "unknown name `{name}`: not a parameter, a local, a name from transgrad.lang, "
            "a @helper or a module constant"
        ),
        "define it, import it from transgrad.lang, or pass it as a parameter",
    ),
    "formula_call": (
        "T105",
        "formula `{name}` called directly",
        "call other formulas through ops: `ops.{name}(...)`",
    ),
    "math_missing": ("T105", "`math.{attr}` does not exist", "see the math module"),
    "decorator": (
        "T106",
        "unsupported decorator `@{decorator}`",
        "formulas take @formula(...), @helper and @samples(...) only",
    ),
    "decorator_twice": (
        "T106",
        "`@{decorator}` is applied more than once to `{name}`",
        "keep a single `@{decorator}`",
    ),
    "formula_and_helper": (
        "T106",
        "`{name}` is both @formula and @helper",
        "keep one of the two decorators",
    ),
    "helper_args": ("T106", "@helper takes no arguments", "write `@helper`"),
    "option_unknown": ("T106", "unknown formula option `{key}`", "options are keywords: {options}"),
    "option_value": (
        "T106",
        "option `{key}` must be a literal {what}",
        "write e.g. `{key}={example}`",
    ),
    "no_return": (
        "T107",
        "formula `{name}` returns nothing",
        (
            "a composite returns an expression of ops; a formula with a backward ends with "
            "`return outputs, backward`"
        ),
    ),
    "final_return": (
        "T107",
        "formula `{name}` must end with `return outputs, backward`",
        "write `return result, backward` (or `return (a, b), backward` for several outputs)",
    ),
    "outputs_twice": (
        "T107",
        (
            "formula `{name}` returns the same name twice ({outputs}): each output is a distinct "
            "tensor"
        ),
        "return distinct names (copy with kernel.clone if needed)",
    ),
    "forward_return": (
        "T107",
        "`return` in the forward of `{name}`: a formula with a backward returns once, at the end",
        "compute the outputs, then `return outputs, backward` as the last statement",
    ),
    "backward_twice": (
        "T108",
        "`{name}` defines `backward` more than once",
        "keep a single `def backward`",
    ),
    "backward_nested": (
        "T108",
        (
            "`def backward` of `{name}` must be at the top level of the formula body, not inside a "
            "branch or loop"
        ),
        "define backward once, unconditionally; branch inside it instead",
    ),
    "backward_arity": (
        "T109",
        (
            "backward of `{name}` takes {got} parameter(s) but gets one grad per differentiable "
            "and hidden output: {expected} ({outputs})"
        ),
        "write `def backward({params}):`",
    ),
    "option_not_output": (
        "T110",
        "`{key}` of `{name}` names `{output}`, which is not an output (outputs: {outputs})",
        "name outputs exactly as they appear in the final return",
    ),
    "option_output_twice": (
        "T110",
        "`{output}` is listed twice among the differentiable and hidden outputs of `{name}`",
        "a hidden output is differentiable already: list it once",
    ),
    "param_kind": (
        "T111",
        "keyword-only/positional-only parameter `{param}` in `{name}`",
        "use plain positional-or-keyword parameters",
    ),
    "param_variadic": (
        "T111",
        "variadic parameter `{param}` in `{name}`",
        "use a `Sequence[Tensor]` parameter for a variable number of tensors",
    ),
    "not_callable": (
        "T112",
        "`{name}(...)` cannot be called in a formula",
        "call ops.*, kernel.*, @helper functions or allowed builtins",
    ),
    "builtin": (
        "T112",
        "builtin `{name}` is not supported in formulas",
        "allowed builtins: {builtins}",
    ),
    "shadowed": (
        "T113",
        (
            "`{name}` in `{function}` shadows a module-level name (a transgrad.lang name, `math`, "
            "a helper or a formula): the formula would no longer mean what the translator reads"
        ),
        "choose another name for the local value",
    ),
    "too_deep": (
        "T114",
        (
            "this expression is nested more than {limit} levels deep: the translator analyses "
            "formulas recursively and refuses what it cannot analyse in bounded time and stack"
        ),
        "split it into named steps (e.g. partial sums assigned to locals)",
    ),
    "too_large": (
        "T115",
        (
            "this {what} is outside what the compiled engine can hold (an int64 from "
            "{lo} to {hi}, a repeated string or tuple of at most {items} items)"
        ),
        "use a smaller value, or a float",
    ),
    # T2xx: ways to smuggle a capture past the analysis (the rest of T2xx: capture_message below)
    "default_argument": (
        "T206",
        (
            "backward of `{name}` has a default argument `{param}=...`: defaults are evaluated in "
            "the forward and smuggle a value past the capture rule (a tensor saved this way has no "
            "grad_fn: wrong double backward)"
        ),
        (
            "remove the default and read the value directly (an input, an output or a non-tensor "
            "attribute), or recompute it in backward"
        ),
    ),
    "nonlocal": (
        "T207",
        (
            "`{keyword}` in `{name}`: a value shared through `{keyword}` escapes the capture rule, "
            "so backward could read a tensor intermediate with no grad_fn (wrong double backward) "
            "or a value changed after it ran"
        ),
        (
            "bind each value once in the forward and read it in backward; return tensors backward "
            "needs as (hidden) outputs, or recompute them there"
        ),
    ),
    "lambda": (
        "T208",
        "lambda in `{name}`: what a lambda captures " + SMUGGLED + " (and cannot be translated "
        "to C++)",
        "inline the expression, or write a module-level @helper function",
    ),
    "nested_function": (
        "T208",
        "nested function `{function}` in `{name}`: a closure inside a formula "
        + SMUGGLED
        + " (only `def backward` is analysed)",
        "inline it, or make it a module-level @helper function",
    ),
    "walrus": (
        "T210",
        "assignment expression (`:=`) in `{name}`: a name bound inside an expression " + SMUGGLED,
        "bind the value with its own assignment statement",
    ),
    # T3xx: kernels and types
    "kernel_unknown": (
        "T301",
        "unknown kernel `kernel.{kernel}`{suggestion}",
        "kernels are declared in translator/signatures.py; for a differentiable op use ops.*",
    ),
    "kernel_too_many": (
        "T302",
        "`kernel.{kernel}` takes {expected} argument(s), got {got}",
        SIGNATURE,
    ),
    "kernel_missing": ("T302", "`kernel.{kernel}` is missing argument(s) {missing}", SIGNATURE),
    "kernel_default_all": (
        "T302",
        (
            "`kernel.{kernel}` is missing argument(s) {missing}: the default `dims=all` is "
            "supplied only when the first argument is a variable"
        ),
        "bind the tensor to a name first (`t = ...`, then `kernel.{kernel}(t)`), or pass dims",
    ),
    "kernel_missing_keyword": (
        "T303",
        "`kernel.{kernel}` is missing argument(s) {missing}",
        SIGNATURE,
    ),
    "kernel_keyword": ("T303", "`kernel.{kernel}` has no parameter `{keyword}`", SIGNATURE),
    "kernel_keyword_twice": (
        "T303",
        "argument `{keyword}` of `kernel.{kernel}` given twice",
        SIGNATURE,
    ),
    "kernel_in_backward": (
        "T304",
        "`kernel.{kernel}` in a backward: " + NO_HISTORY.format(what="this formula"),
        (
            "use `ops.{kernel}(...)` (differentiable), or mark the formula "
            "@formula(once_differentiable=True)"
        ),
    ),
    "helper_kernel_backward": (
        "T304",
        "helper `{name}` calls kernel.* and is used in a backward: " + NO_HISTORY.format(what="it"),
        "use ops.* in the helper, or mark the formula @formula(once_differentiable=True)",
    ),
    "kernel_want_tensor": (
        "T305",
        "`kernel.{kernel}` expects a tensor for `{param}`, got a non-tensor value",
        (
            "wrap a number as a tensor with `kernel.scalar_like(x, value)` (or use a kernel taking "
            "a number, e.g. kernel.pow_scalar)"
        ),
    ),
    "kernel_want_value": (
        "T305",
        "`kernel.{kernel}` expects `{param}`, got a tensor",
        (
            "pass a Python value (read metadata with .shape/.ndim/.dtype), or use a kernel that "
            "takes a tensor there"
        ),
    ),
    "kernel_empty_dims": (
        "T309",
        (
            "`kernel.{kernel}` with an empty `dims` reduces nothing, while torch's "
            "`{kernel}(x, dim=[])` reduces every dimension"
        ),
        "name the dims to reduce (all of them: `tuple(range(x.ndim))`), or drop the reduction",
    ),
    "param_untyped": (
        "T306",
        "parameter `{param}` of `{name}` has no type annotation",
        "annotate it: {types}",
    ),
    "param_type": (
        "T306",
        "unsupported parameter type `{type}` for `{param}`",
        "use one of: {types}",
    ),
    "return_untyped": (
        "T306",
        "`{name}` has no return annotation",
        "annotate it, e.g. `-> Tensor` or `-> tuple[Tensor, Tensor]`",
    ),
    "return_type_helper": (
        "T306",
        "unsupported return type `{type}` for `{name}`",
        "a helper returns one of the parameter types or a tuple of them",
    ),
    "return_type_formula": (
        "T306",
        "unsupported return type `{type}` for `{name}`",
        "a formula returns `Tensor` or `tuple[Tensor, ...]`",
    ),
    "tensor_test": (
        "T307",
        (
            "branch on tensor data: the condition is a tensor, whose truth value depends on its "
            "elements"
        ),
        (
            "branch on parameters or metadata (shape, ndim, dtype, `is None`); for elementwise "
            "choice use ops.where / kernel.where"
        ),
    ),
    "attribute": (
        "T308",
        "unsupported attribute `.{attr}`{of}",
        (
            "formulas read only shape, ndim, dtype and numel of a tensor; use ops.* or kernel.* "
            "for anything else"
        ),
    ),
}


def format_message(key: str, /, **fields: object) -> tuple[str, str, str]:
    """(code, message, hint) of ``MESSAGES[key]`` with ``fields`` filled in."""
    code, message, hint = MESSAGES[key]
    return code, message.format(**fields), hint.format(**fields)


# ---------------------------------------------------------------------------------------------
# The capture rule's own messages (T201-T205, T209, T211, T212), built from their facts.
#
# Note [Capture messages]: each names the variable, where it was bound, why double backward
# would be wrong, and the fixes (recompute in backward, or return it as a (hidden) output; for a
# non-tensor value: bind it once, under its own name).


def _where(loc: Loc, at: Loc) -> str:
    return f"line {loc.line}" if loc.path == at.path else str(loc)


def capture_message(
    code: str,
    name: str,
    formula: str,
    bound: Loc,
    at: Loc,
    tensor: bool = True,
    others: Sequence[Loc] = (),
    metadata: Sequence[str] = (),
) -> tuple[str, str]:
    """The sentence and hint of a capture-rule rejection (T201-T205, T209, T211, T212).
    ``metadata``: the attributes backward reads, when it reads only metadata of the tensor."""
    where = f"bound on {_where(bound, at)}"
    again = "".join(f", again on {_where(o, at)}" for o in others)
    recompute = (
        f"recompute `{name}` inside backward from the inputs/outputs with ops.*, or "
        f'return it as an output (`@formula(hidden_outputs=("{name}",))`, '
        f"`return (..., {name}), backward`, and a grad parameter for it)"
    )
    no_graph = (
        "the forward records no history, so this tensor has no grad_fn: a double "
        "backward would treat it as a constant and silently drop the gradient "
        "flowing through it"
    )
    once = "compute the value backward needs once, under its own name, before `def backward`"
    subject = f"backward of `{formula}` captures `{name}`"
    if metadata and code in ("T201", "T211"):
        reads = " and ".join(f"`{name}.{a}`" for a in metadata)
        saved = ", ".join(f"`{name}_{a} = {name}.{a}`" for a in metadata)
        them = "them" if len(metadata) > 1 else "it"
        recompute = (
            f"backward reads only {reads}: compute {them} in the forward ({saved}) and "
            f"capture {'those non-tensor values' if len(metadata) > 1 else 'that value'} instead"
        )
    if code == "T201":
        msg = f"{subject}, a tensor intermediate of the forward ({where}); {no_graph}"
        return msg, recompute
    if code == "T211":
        msg = f"{subject}, a tensor bound by tuple unpacking in the forward ({where}); {no_graph}"
        return msg, recompute
    if code == "T202":
        if tensor:
            why = (
                "backward would differentiate through the re-bound tensor and double "
                "backward would never reach the input"
            )
            fix = f"either recompute it in backward from `{name}`, or return it as a hidden output"
        else:
            why = "the saved attribute would not be the value the caller passed"
            fix = "capture that name instead"
        msg = (
            f"backward of `{formula}` captures parameter `{name}`, which the forward "
            f"re-binds ({where}); the closure sees the re-bound value, not the input: {why}"
        )
        return msg, f"give the forward value a new name (e.g. `{name}_new = ...`) and {fix}"
    if code == "T203":
        msg = (
            f"{subject}, which the forward binds more than once ({where}{again}); a closure "
            "reads only the last binding, so backward would not see the value the forward "
            "computed with"
        )
        msg += f", and {no_graph}" if tensor else ""
        return msg, f"{once}; " + (recompute if tensor else "give each value its own name")
    if code == "T204":
        msg = (
            f"{subject}, which is re-bound after `def backward` ({where}{again}); closures "
            "bind late, so backward would see the later value, not the one the forward "
            "computed with"
        )
        hint = f"do not re-bind `{name}` after `def backward`: {once}"
        return msg, hint + (f"; or {recompute}" if tensor else "")
    if code == "T205":
        msg = (
            f"{subject}, a scalar read out of tensor data with kernel.item ({where}); to "
            "autograd it is a constant, so double backward would miss the gradient flowing "
            "through the data it came from"
        )
        return msg, f"keep it a tensor: {recompute}"
    if code == "T209":
        msg = (
            f"backward of `{formula}` reads `{name}`, a mutable container built in the "
            f"forward ({where}); it may change after `def backward`, and tensors inside it "
            "escape the capture rule (no grad_fn: wrong double backward)"
        )
        return msg, f"build a tuple of non-tensor values instead; for tensors, {recompute}"
    if code == "T212":
        msg = (
            f"{subject}, a loop variable ({where}); closures bind late, so backward would "
            "see only its last value"
        )
        msg += f", and {no_graph}" if tensor else ""
        return msg, once + (f"; or {recompute}" if tensor else " (e.g. a tuple built by the loop)")
    raise ValueError(f"{code} is not a capture-rule code")
