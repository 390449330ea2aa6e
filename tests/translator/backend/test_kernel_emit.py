"""Every schema written once (issue #10 item 4): the C++ kernel declarations and the
``_C._kernels`` bindings are generated from translator/signatures.py, and nothing in csrc/
declares a kernel by hand any more."""

import os
import re
from pathlib import Path

from backend_util import ROOT

from translator.emit_kernels import declaration, emit_kernel_bindings, emit_kernel_header
from translator.signatures import KERNELS

DECL = re.compile(r"^(?:Tensor|double|int64_t|std::tuple<Tensor(?:, Tensor)+>) (\w+)\(",
                  re.MULTILINE)


def test_header_declares_every_kernel_in_table_order():
    header = emit_kernel_header()
    flat = re.sub(r"\n\s+", " ", re.sub(r"\(\n\s+", "(", header))  # undo line wrapping
    assert DECL.findall(header) == list(KERNELS)
    for sig in KERNELS.values():
        assert declaration(sig) in flat
    assert "std::optional<int64_t> start" in flat and "const std::vector<Tensor>& tensors" in flat


def test_bindings_bind_every_kernel_with_its_parameter_names():
    text = re.sub(r"\n\s+", " ", emit_kernel_bindings())
    body = text.split("namespace k = tg::kernel;")[1].rsplit("}", 1)[0]
    defs = {d.split('"')[1]: d.strip().removesuffix(";") for d in body.split(" m.def(")[1:]}
    assert list(defs) == list(KERNELS)
    for sig in KERNELS.values():
        args = "".join(f', py::arg("{p.name}")' for p in sig.params)
        assert defs[sig.name].endswith(args + ")"), sig.name
    assert "tg::python::dtype_from_py(dtype)" in text  # DType parameters: as every binding


def test_no_kernel_is_declared_by_hand_in_csrc():
    found = []
    for dirpath, _, files in os.walk(os.path.join(ROOT, "csrc")):
        for f in files:
            if f.endswith(".h"):
                text = Path(dirpath, f).read_text(encoding="utf-8")
                if "namespace tg::kernel" in text:
                    found += [(f, n) for n in DECL.findall(text) if n in KERNELS]
    assert found == []
