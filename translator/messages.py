"""Messages: the fence's and the smuggling checks' rejections, as data.

Used by ``fence`` and ``captures``. Note [Messages as data]: key -> (code, message, hint),
formatted with the fields the checker passes to ``format_message``; the capture rule's own
messages (the rest of T2xx) are built by ``capture_messages``.
"""

from __future__ import annotations

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
    # T2xx: ways to smuggle a capture past the analysis (the rest of T2xx: capture_message)
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
