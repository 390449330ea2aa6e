"""Realistic PyTorch scripts (issue #13): each written once as ``main(torch)``, run with torch,
transgrad and transgrad.reference; the loss curves (and sampled outputs) must agree."""

import importlib
import importlib.util
import math
import os
from pathlib import Path

import pytest

HERE = Path(__file__).parent

PROGRAMS = [
    "prog_polyfit",
    "prog_custom_function",
    "prog_mlp_checkpoint",
    "prog_char_lm",
    "prog_pinn",
    "prog_reinforce",
    "prog_vae",
    "prog_hessian",
    "prog_cnn",
    "prog_attention",
    "prog_gnn",
    "prog_lstm",
    "prog_conv_autoencoder",
    # seeded end to end (Note [The same numbers as torch]): no weights are copied between runs
    "prog_maml",
    "prog_wgan_gp",
    "prog_diffusion",
    "prog_loader_schedule",
    "prog_lstm_tagger",
    "prog_gru_seq",
    "prog_transformer_classifier",
    "prog_resnet",
    "prog_dcgan",
    "prog_seq2seq",
    "prog_nanogpt",
    "prog_text_classifier",
    "prog_word2vec",
    "prog_autoencoder_split",
    "prog_custom_ops_hvp",
    "prog_contrastive",
    "prog_amp_train_loop",
    "prog_flow",
]

# name -> (reason, exception type the program raises today)
XFAIL: dict = {}


def load_engine(name):
    if name == "reference":
        return importlib.import_module("transgrad.reference")
    import transgrad

    if transgrad._C is None:
        if os.environ.get("TG_REQUIRE_COMPILED") == "1":
            raise ImportError(str(transgrad._C_error))
        pytest.skip(f"compiled engine not built: {transgrad._C_error}")
    return transgrad


def _load(name):
    spec = importlib.util.spec_from_file_location(f"tg_programs_{name}", HERE / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _close(a, b, rtol=1e-7, atol=1e-9):
    assert len(a) == len(b), (len(a), len(b))
    bad = [(i, x, y) for i, (x, y) in enumerate(zip(a, b))
           if not math.isclose(x, y, rel_tol=rtol, abs_tol=atol)]
    assert not bad, f"{len(bad)} of {len(a)} values differ, first: {bad[:3]}"


def _params():
    out = []
    for name in PROGRAMS:
        marks = []
        if name in XFAIL:
            reason, exc = XFAIL[name]
            marks = [pytest.mark.xfail(strict=True, reason=reason, raises=exc)]
        out.append(pytest.param(name, marks=marks, id=name))
    return out


@pytest.mark.parametrize("name", _params())
def test_program(name):
    program = _load(name)
    # a float32 program (default dtype untouched) agrees to float32 rounding: TOLERANCE
    tol = getattr(program, "TOLERANCE", {})
    ref = program.main(load_engine("reference"))
    comp = program.main(load_engine("compiled"))
    assert ref, "empty loss curve"
    assert all(math.isfinite(v) for v in ref)
    _close(comp, ref, **tol)
    torch = pytest.importorskip("torch")
    _close(program.main(torch), ref, **tol)
