"""``transgrad.Size`` (the type of ``x.shape`` and ``x.size()`` on both engines) and torch's
legacy constructor on the class itself, ``Tensor(40, 1)``, ``Tensor([1, 2])``, ``Tensor(t)``,
compared with torch where it is installed (issue 13, item 6)."""

import copy
import pickle

import numpy as np
import pytest

# ---- Size ------------------------------------------------------------------------------------


def test_shape_and_size_are_sizes(engine):
    x = engine.ones(2, 3, requires_grad=True)
    for s in (x.shape, x.size(), x.detach().shape, x.t().shape):
        assert type(s) is engine.Size
    assert repr(x.shape) == "torch.Size([2, 3])" and str(x.size()) == "torch.Size([2, 3])"
    assert x.size(1) == 3 and type(x.size(-1)) is int and type(x.shape[0]) is int
    (x * 2).sum().backward()
    assert type(x.grad.shape) is engine.Size and x.grad.size() == (2, 3)
    assert type(engine.tensor(1.0).shape) is engine.Size and engine.tensor(1.0).shape == ()


def test_size_behaves_as_a_tuple(engine):
    s = engine.ones(2, 3).shape
    assert s == (2, 3) and (2, 3) == s and s != [2, 3] and hash(s) == hash((2, 3))
    assert s.numel() == 6 and engine.Size([]).numel() == 1 and engine.Size([0, 3]).numel() == 0
    assert type(s[1:]) is engine.Size and s[::-1] == (3, 2) and s[5:] == ()
    assert type(s + (4,)) is engine.Size and s + (4,) == (2, 3, 4)
    assert type((1,) + s) is engine.Size and (1,) + s == (1, 2, 3)
    assert type(s * 2) is engine.Size and 2 * s == (2, 3, 2, 3)
    with pytest.raises(TypeError, match="can only concatenate tuple \\(not list\\) to "
                                        "torch.Size"):
        s + [4]
    for copied in (pickle.loads(pickle.dumps(s)), copy.copy(s), copy.deepcopy(s)):
        assert type(copied) is engine.Size and copied == s
    assert engine.Size((2, 3)) == s and engine.Size(x for x in (1, 2)) == (1, 2)
    assert engine.Size([True, np.int64(2), engine.tensor(3)]) == (1, 2, 3)
    assert repr(engine.Size([])) == "torch.Size([])" and engine.Size([-1]) == (-1,)
    with pytest.raises(TypeError, match="torch.Size\\(\\) takes an iterable of 'int' \\(item 1 "
                                        "is 'str'\\)"):
        engine.Size([2, "a"])
    with pytest.raises(TypeError, match="'int' object is not iterable"):
        engine.Size(3)


def test_size_as_torch():
    torch = pytest.importorskip("torch")
    import transgrad as tg
    import transgrad.reference as ref

    for e in (tg, ref):
        ours, theirs = e.ones(2, 3, 4).shape, torch.ones(2, 3, 4).shape
        for f in (repr, str, lambda s: s.numel(), lambda s: repr(s[1:]), lambda s: repr(s[0]),
                  lambda s: repr(s + (5,)), lambda s: repr((5,) + s), lambda s: repr(s * 2),
                  lambda s: s == (2, 3, 4), lambda s: s == [2, 3, 4], lambda s: s[-1:] == (4,),
                  lambda s: repr(pickle.loads(pickle.dumps(s)))):
            assert f(ours) == f(theirs)
        assert repr(e.Size([])) == repr(torch.Size([]))
        for bad in ([2.5], ["a"], [None], [np.float64(2)]):
            with pytest.raises(TypeError) as mine:
                e.Size(bad)
            with pytest.raises(TypeError) as torchs:
                torch.Size(bad)
            assert str(mine.value) == str(torchs.value)


# ---- the legacy constructor ----------------------------------------------------------------


def test_legacy_constructor_forms(engine):
    T = engine.Tensor
    a = T(40, 1)
    assert isinstance(a, T) and a.shape == (40, 1) and a.dtype == engine.float32
    assert not a.requires_grad and a.is_leaf
    assert T(engine.ones(2, 3).shape).shape == (2, 3) and T(engine.Size([])).shape == ()
    assert T().shape == (0,) and T().dtype == engine.float32
    b = T([1, 2])
    assert b.dtype == engine.float32 and b.tolist() == [1.0, 2.0]
    assert T((2, 3)).tolist() == [2.0, 3.0]  # a tuple is data, as torch's: only a Size is a size
    assert T(2, True).shape == (2, 1) and T(np.int64(3)).shape == (3,)
    assert T(np.array([1, 2])).dtype == engine.float32
    assert T(np.array(3.0)).shape == () and T(np.ones(2)).dtype == engine.float32
    assert T(3, device="cpu").shape == (3,)


def test_legacy_constructor_shares_what_torch_shares(engine):
    a = np.array([1.0, 2.0], dtype=np.float32)
    t = engine.Tensor(a)
    a[0] = 9.0
    assert t.tolist() == [9.0, 2.0]  # a float32 array is shared ...
    d = np.array([1.0, 2.0])
    u = engine.Tensor(d)
    d[0] = 9.0
    assert u.tolist() == [1.0, 2.0]  # ... another dtype is converted
    x = engine.ones(2, dtype=engine.float64)
    y = engine.Tensor(x)
    assert y is not x and y.dtype == engine.float64 and y._shares_storage(x)
    assert not y.requires_grad
    w = engine.ones(2, requires_grad=True)
    z = engine.Tensor(w)
    assert z.requires_grad and z.grad_fn is not None  # an alias in the graph, as torch's
    (z * 3).sum().backward()
    assert w.grad.tolist() == [3.0, 3.0]


def test_legacy_constructor_errors(engine):
    T = engine.Tensor
    cases = [((2, "a"), TypeError, "new\\(\\): argument 'size' failed to unpack the object at "
                                    "pos 2 with error \"type must be tuple of ints,but got str\""),
             (("a",), TypeError, "new\\(\\): invalid data type 'str'"),
             ((2.5,), TypeError, "new\\(\\): data must be a sequence \\(got float\\)"),
             ((None,), TypeError, "new\\(\\): data must be a sequence \\(got NoneType\\)"),
             (([1, 2], 3), TypeError, "new\\(\\) received an invalid combination of arguments "
                                      "- got \\(list, int\\), but expected one of:"),
             ((-1,), RuntimeError, "Trying to create tensor with negative dimension -1: "
                                   "\\[-1\\]")]
    for args, exc, message in cases:
        with pytest.raises(exc, match=message):
            T(*args)
    with pytest.raises(TypeError, match="got \\(list, requires_grad=bool\\)"):
        T([1, 2], requires_grad=True)
    with pytest.raises(TypeError, match="got \\(int, int, dtype="):
        T(2, 3, dtype=engine.float64)
    with pytest.raises(RuntimeError, match="CPU only"):
        T(2, device="cuda")


def test_legacy_constructor_errors_as_torch(engine):
    torch = pytest.importorskip("torch")
    for args, kwargs in [((2, "a"), {}), (("a",), {}), ((2.5,), {}), ((True,), {}),
                         (([1, 2], 3), {}), ((-1, 2), {}), (([1],), {"requires_grad": True}),
                         ((1.5, 2), {})]:
        with pytest.raises(Exception) as theirs:
            torch.Tensor(*args, **kwargs)
        with pytest.raises(type(theirs.value)) as ours:
            engine.Tensor(*args, **kwargs)
        first_line = str(theirs.value).splitlines()[0]
        assert str(ours.value).splitlines()[0] == first_line
    for args in [(40, 1), (torch.Size([2, 3]),), ([1, 2],), ((2, 3),), (), (2, True)]:
        ours_args = tuple(engine.Size(a) if isinstance(a, torch.Size) else a for a in args)
        ours, theirs = engine.Tensor(*ours_args), torch.Tensor(*args)
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert str(ours.dtype) == str(theirs.dtype) == "torch.float32"
        assert theirs.dtype == torch.float32
        if args and type(args[0]) in (list, tuple):  # data, not sizes (uninitialised)
            assert ours.tolist() == theirs.tolist()


def test_typed_classes_share_the_parser(engine):
    assert engine.FloatTensor(engine.Size([2])).shape == (2,)
    assert engine.LongTensor((2, 3)).tolist() == [2, 3]
    with pytest.raises(TypeError, match="expected FloatTensor \\(got DoubleTensor\\)"):
        engine.FloatTensor(engine.ones(2, dtype=engine.float64))
    x = engine.ones(2)
    assert engine.FloatTensor(x)._shares_storage(x)


def test_parameter_of_a_legacy_tensor(engine):
    p = engine.nn.Parameter(engine.Tensor(3, 4))
    engine.nn.init.kaiming_uniform_(p, a=5 ** 0.5)
    assert isinstance(p, engine.nn.Parameter) and isinstance(p, engine.Tensor)
    assert p.requires_grad and p.is_leaf and p.shape == (3, 4)
    bound = 1 / 4 ** 0.5
    assert (np.abs(np.asarray(p.detach())) <= bound + 1e-6).all()
    b = engine.nn.Parameter(engine.Tensor(4))
    engine.nn.init.zeros_(b)
    (engine.ones(2, 3) @ p + b).sum().backward()
    assert p.grad.shape == (3, 4) and b.grad.tolist() == [2.0] * 4

    class Old(engine.nn.Module):  # as old model code writes a layer
        def __init__(self):
            super().__init__()
            self.weight = engine.nn.Parameter(engine.Tensor(5, 2))
            self.reset_parameters()

        def reset_parameters(self):
            self.weight.data.uniform_(-0.1, 0.1)

    m = Old()
    assert [n for n, _ in m.named_parameters()] == ["weight"]
    assert float(np.abs(np.asarray(m.weight.detach())).max()) <= 0.1


def test_tensor_new_tells_size_from_data_as_torch(engine):
    x = engine.ones(2, 3, dtype=engine.float64)
    assert x.new(x.size()).shape == (2, 3) and x.new(4, 5).shape == (4, 5)
    assert x.new((2, 3)).tolist() == [2.0, 3.0] and x.new([1]).dtype == engine.float64
