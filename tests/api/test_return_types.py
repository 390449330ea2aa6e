"""Named results as torch's ``torch.return_types`` (issue 13): the class name, the fields, the
printed form, indexing and unpacking, pickling; on both engines, against torch."""

import pickle

import numpy as np
import pytest


def _m(e):
    return e.tensor(np.array([[3.0, 1.0, 2.0], [0.5, 4.0, 4.0]]))


def _sq(e):
    return e.tensor(np.array([[2.0, 1.0], [1.0, 3.0]]))


# (name torch prints, the call on either library)
CALLS = [
    ("max", lambda m, x, a: m.max(x, 1)),
    ("max", lambda m, x, a: x.max(dim=0, keepdim=True)),
    ("min", lambda m, x, a: m.min(x, 1)),
    ("sort", lambda m, x, a: m.sort(x, 1)),
    ("sort", lambda m, x, a: x.sort(descending=True)),
    ("topk", lambda m, x, a: m.topk(x, 2)),
    ("kthvalue", lambda m, x, a: m.kthvalue(x, 2, 1)),
    ("mode", lambda m, x, a: m.mode(x, 1)),
    ("median", lambda m, x, a: m.median(x, 1)),
    ("nanmedian", lambda m, x, a: m.nanmedian(x, 1)),
    ("cummax", lambda m, x, a: m.cummax(x, 1)),
    ("cummin", lambda m, x, a: m.cummin(x, 1)),
    ("aminmax", lambda m, x, a: m.aminmax(x)),
    ("aminmax", lambda m, x, a: m.aminmax(x, dim=1)),
    ("frexp", lambda m, x, a: m.frexp(x)),
    ("slogdet", lambda m, x, a: m.slogdet(a)),
    ("linalg_slogdet", lambda m, x, a: m.linalg.slogdet(a)),
    ("linalg_eigh", lambda m, x, a: m.linalg.eigh(a)),
    ("linalg_qr", lambda m, x, a: m.linalg.qr(a)),
    ("linalg_svd", lambda m, x, a: m.linalg.svd(a)),
    ("svd", lambda m, x, a: m.svd(a)),
    ("linalg_cholesky_ex", lambda m, x, a: m.linalg.cholesky_ex(a)),
    ("linalg_lu", lambda m, x, a: m.linalg.lu(a)),
    ("linalg_lu_factor", lambda m, x, a: m.linalg.lu_factor(a)),
    ("linalg_lu_factor_ex", lambda m, x, a: m.linalg.lu_factor_ex(a)),
    ("lu_unpack", lambda m, x, a: m.lu_unpack(*m.linalg.lu_factor(a))),
]


@pytest.mark.parametrize("name,call", CALLS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CALLS)])
def test_return_types_as_torch(engine, name, call):
    torch = pytest.importorskip("torch")
    theirs = call(torch, _m(torch), _sq(torch))
    ours = call(engine, _m(engine), _sq(engine))
    assert type(theirs).__name__ == name  # the table above is torch's
    assert type(ours).__name__ == name and type(ours).__module__ == "transgrad.return_types"
    assert type(ours) is getattr(engine.return_types, name)
    assert isinstance(ours, tuple) and len(ours) == len(theirs) == ours.n_fields
    assert ours.n_sequence_fields == theirs.n_sequence_fields
    fields = [f for f in dir(type(theirs)) if not f.startswith(("_", "n_")) and
              f not in ("count", "index")]
    assert len(fields) == len(theirs)
    for f in fields:  # each field names the same position as torch's
        (j,) = [j for j, t in enumerate(theirs) if t is getattr(theirs, f)]
        assert getattr(ours, f) is ours[j]
    # torch's printed form, field by field (the tensors print as torch's too)
    expected = repr(theirs).replace("torch.return_types.", "@")
    assert repr(ours).replace("torch.return_types.", "@") == expected
    assert str(ours) == repr(ours)


def test_indexing_unpacking_and_pickling(engine):
    r = engine.max(_m(engine), 1)
    values, indices = r
    assert values is r.values is r[0] and indices is r.indices is r[-1]
    assert r == (values, indices) and tuple(r)[1] is indices
    assert not hasattr(r, "_fields") and not hasattr(r, "_asdict")  # a structseq, as torch's
    back = pickle.loads(pickle.dumps(r))
    assert type(back) is type(r) and np.array_equal(np.asarray(back.values), np.asarray(values))


def test_constructed_from_one_sequence(engine):
    torch = pytest.importorskip("torch")
    for m in (torch, engine):
        one = m.ones(1)
        r = m.return_types.max((one, one))
        assert r.values is one and len(r) == 2
        with pytest.raises(TypeError, match=r"torch.return_types.max\(\) takes a 2-sequence "
                                            r"\(3-sequence given\)"):
            m.return_types.max((one, one, one))


def test_both_engines_share_the_classes():
    import transgrad.reference as ref
    import transgrad.return_types as rt

    assert ref.return_types.sort is rt.sort
    assert sorted(ref.return_types.__all__) == sorted(rt.__all__)
