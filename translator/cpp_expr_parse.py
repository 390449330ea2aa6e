"""A small C++ expression parser for derivatives.yaml: expression text -> ``Expr`` tree.

Stage: the first step of the yaml importer (``import_yaml``). Input: one backward expression of
PyTorch's derivatives.yaml (``grad * self.cos().conj()``, ``at::where(cond, a, b)``,
``keepdim ? grad : grad.unsqueeze(dim)``). Output: a tree of frozen dataclasses, or
``CppSyntaxError`` naming the column where the text stops being an expression we read.

A tokenizer and a Pratt parser (binding powers below, C++'s precedence), not regexes: what the
rewriter (``import_rewrite``) gets is the structure of the expression, so a call nested in a
ternary inside a call is no harder than a bare name. The subset: names (with ``::`` scopes),
numbers, strings, calls, member access (``.`` and ``->``), subscripts, brace lists, unary
``- ! +``, binary arithmetic/comparison/logic, and ``?:``. Lambdas, casts and templates are
outside it (a ``CppSyntaxError``, which the importer reports as the entry's reason).
"""

from __future__ import annotations

import dataclasses
import re


class CppSyntaxError(ValueError):
    """The text is outside the expression subset; ``col`` is 0-based in the expression."""

    def __init__(self, message: str, col: int):
        super().__init__(f"{message} (column {col + 1})")
        self.col = col


@dataclasses.dataclass(frozen=True)
class Name:
    id: str  # with scopes: "at::sum", "std::sqrt", "M_PI"


@dataclasses.dataclass(frozen=True)
class Num:
    text: str  # as written, without C++ suffixes (``2.0f`` -> ``2.0``)


@dataclasses.dataclass(frozen=True)
class Str:
    value: str


@dataclasses.dataclass(frozen=True)
class Call:
    fn: Expr
    args: tuple[Expr, ...]


@dataclasses.dataclass(frozen=True)
class Member:
    obj: Expr
    name: str


@dataclasses.dataclass(frozen=True)
class Index:
    obj: Expr
    index: Expr


@dataclasses.dataclass(frozen=True)
class Unary:
    op: str
    operand: Expr


@dataclasses.dataclass(frozen=True)
class Binary:
    op: str
    left: Expr
    right: Expr


@dataclasses.dataclass(frozen=True)
class Ternary:
    cond: Expr
    then: Expr
    orelse: Expr


@dataclasses.dataclass(frozen=True)
class Braces:
    items: tuple[Expr, ...]


Expr = Name | Num | Str | Call | Member | Index | Unary | Binary | Ternary | Braces

_TOKEN = re.compile(
    r"""\s*(?:
    (?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?[fFlLuU]*)
  | (?P<name>[A-Za-z_]\w*(?:\s*::\s*[A-Za-z_]\w*)*)
  | (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<op>->|&&|\|\||==|!=|<=|>=|[-+*/%<>!?:.,()\[\]{}&|])
    )""",
    re.VERBOSE,
)

# Binding powers of the infix operators (higher binds tighter), as C++'s precedence.
_INFIX = {
    "||": 3, "&&": 4, "|": 5, "&": 6, "==": 7, "!=": 7, "<": 8, ">": 8, "<=": 8, ">=": 8,
    "+": 10, "-": 10, "*": 11, "/": 11, "%": 11,
}
_TERNARY = 2
_PREFIX = 13
_POSTFIX = 14


@dataclasses.dataclass(frozen=True)
class Token:
    kind: str  # num, name, str, op, end
    text: str
    col: int


_COMMENT = re.compile(r"/\*.*?\*/", re.DOTALL)


def tokenize(text: str) -> list[Token]:
    """Tokens of ``text``; ``/* comments */`` are blanked first, so columns stay those
    of the text."""
    text = _COMMENT.sub(lambda m: " " * len(m.group()), text)
    out: list[Token] = []
    pos = 0
    while text[pos:].strip():
        m = _TOKEN.match(text, pos)
        if m is None:
            col = len(text) - len(text[pos:].lstrip())
            raise CppSyntaxError(f"unexpected character {text[col]!r}", col)
        kind = m.lastgroup or "op"
        value = m.group(kind)
        if kind == "name":
            value = re.sub(r"\s+", "", value)
        elif kind == "num":
            value = value.rstrip("fFlLuU")
        out.append(Token(kind, value, m.start(kind)))
        pos = m.end()
    out.append(Token("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str):
        self.toks = tokenize(text)
        self.i = 0

    def peek(self) -> Token:
        return self.toks[self.i]

    def next(self) -> Token:
        tok = self.toks[self.i]
        self.i += 1
        return tok

    def expect(self, op: str) -> None:
        tok = self.next()
        if tok.kind != "op" or tok.text != op:
            raise CppSyntaxError(f"expected {op!r}, found {tok.text or 'the end'!r}", tok.col)

    def expr(self, min_bp: int = 0) -> Expr:
        left = self.prefix()
        while True:
            tok = self.peek()
            if tok.kind != "op":
                break
            op = tok.text
            if op in ("(", ".", "->", "["):
                left = self.postfix(left)
            elif op == "?" and _TERNARY > min_bp:
                self.next()
                then = self.expr(0)
                self.expect(":")
                left = Ternary(left, then, self.expr(_TERNARY - 1))  # right associative
            elif op in _INFIX and _INFIX[op] > min_bp:
                self.next()
                left = Binary(op, left, self.expr(_INFIX[op]))
            else:
                break
        return left

    def postfix(self, left: Expr) -> Expr:
        tok = self.next()
        if tok.text == "(":
            return Call(left, self.items(")"))
        if tok.text == "[":
            index = self.expr(0)
            self.expect("]")
            return Index(left, index)
        name = self.next()
        if name.kind != "name":
            raise CppSyntaxError(f"expected a member name after {tok.text!r}", name.col)
        return Member(left, name.text)

    def items(self, close: str) -> tuple[Expr, ...]:
        if self.peek().text == close:
            self.next()
            return ()
        out: list[Expr] = []
        while True:
            out.append(self.expr(0))
            tok = self.next()
            if tok.text == close:
                return tuple(out)
            if tok.text != ",":
                raise CppSyntaxError(
                    f"expected ',' or {close!r}, found {tok.text or 'the end'!r}", tok.col)

    def prefix(self) -> Expr:
        tok = self.next()
        if tok.kind == "num":
            return Num(tok.text)
        if tok.kind == "str":
            return Str(tok.text[1:-1])
        if tok.kind == "name":
            return Name(tok.text)
        if tok.text == "(":
            inner = self.expr(0)
            self.expect(")")
            return inner
        if tok.text == "{":
            return Braces(self.items("}"))
        if tok.text in ("-", "+", "!"):
            return Unary(tok.text, self.expr(_PREFIX))
        raise CppSyntaxError(f"unexpected {tok.text or 'end of expression'!r}", tok.col)


def parse_cpp_expr(text: str) -> Expr:
    """Parse one C++ expression; the whole text must be consumed."""
    p = _Parser(text)
    out = p.expr(0)
    tok = p.peek()
    if tok.kind != "end":
        raise CppSyntaxError(f"unexpected {tok.text!r} after the expression", tok.col)
    return out
