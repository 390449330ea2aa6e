"""What the hostile battery found (issue 11), one test each, on both engines and without torch:
the expected values are torch's documented behaviour (checked against torch by test_battery)."""

import importlib
import math

import numpy as np
import pytest

OVERLAP = "unsupported operation: some elements of the input tensor and the written-to tensor"


def nnf(tg):
    return importlib.import_module(tg.__name__ + ".nn").functional


# --- in-place ops whose operand overlaps the written tensor (Note [Partial overlap]) ----------

@pytest.mark.parametrize("write", [
    lambda x: x[1:].copy_(x[:-1]),
    lambda x: x[1:].mul_(x[:-1]),
    lambda x: x[:-1].sub_(x[1:]),
    lambda x: x[:4].reshape(2, 2).add_(x[:4].reshape(2, 2).t()),
    lambda x: x[:4].reshape(2, 2).copy_(x[:4].reshape(2, 2).t()),
    lambda x: x.index_copy_(0, x.new_tensor([0, 1]).long(), x[3:]),
], ids=["copy_shift", "mul_shift", "sub_shift", "add_transpose", "copy_transpose", "index_copy"])
def test_partially_overlapping_operand_is_refused(engine, write):
    x = engine.arange(5.0)
    with pytest.raises(RuntimeError, match=OVERLAP):
        write(x)
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]  # refused before any write


def test_same_elements_and_disjoint_parts_are_allowed(engine):
    x = engine.arange(5.0)
    x.add_(x)  # the very same elements, as torch allows
    assert x.tolist() == [0.0, 2.0, 4.0, 6.0, 8.0]
    x[:2].copy_(x[3:])  # same storage, disjoint bytes
    assert x.tolist() == [6.0, 8.0, 4.0, 6.0, 8.0]
    y = engine.arange(6.0).reshape(2, 3)
    y[:, 0].add_(y[:, 1])  # not dense: torch's "too hard" case, computed as if out of place
    assert y.tolist() == [[1.0, 1.0, 2.0], [7.0, 4.0, 5.0]]


# --- NaN in median ----------------------------------------------------------------------------

def test_median_is_nan_where_a_nan_is_present(engine):
    nan = float("nan")
    x = engine.tensor([[1.0, nan, 0.5, nan], [2.0, 1.0, 3.0, 0.0]], requires_grad=True)
    values, indices = x.median(1)
    assert math.isnan(values.tolist()[0]) and values.tolist()[1] == 1.0
    assert indices.tolist() == [1, 1]  # the first NaN's index; the lower median otherwise
    kept = x.median(1, keepdim=True)
    assert kept.indices.tolist() == [[1], [1]] and tuple(kept.values.shape) == (2, 1)
    values.sum().backward()  # the gradient reaches the NaN element that was picked
    assert x.grad.tolist() == [[0.0, 1.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]]
    x.grad = None
    whole = x.median()
    assert math.isnan(whole.item())
    whole.backward()  # torch shares the gradient among the NaN elements
    assert x.grad.tolist() == [[0.0, 0.5, 0.0, 0.5], [0.0, 0.0, 0.0, 0.0]]


def test_median_without_nan_unchanged(engine):
    x = engine.tensor([[3.0, 1.0, 2.0], [float("inf"), -1.0, 0.0]])
    assert x.median().item() == 1.0
    assert x.median(1).values.tolist() == [2.0, 0.0]
    assert x.median(1).indices.tolist() == [2, 2]


# --- bitwise operators (Note [Bitwise is not logical]) -----------------------------------------

def test_bitwise_operators_on_integers(engine):
    t = engine
    assert (~t.tensor([0, 5], dtype=t.uint8)).tolist() == [255, 250]
    assert (~t.tensor([5, -1])).tolist() == [-6, 0]
    assert (t.tensor([5, 6]) & 3).tolist() == [1, 2]
    assert (3 & t.tensor([5, 6])).tolist() == [1, 2]
    r = t.tensor([5], dtype=t.int8) | t.tensor([256])
    assert r.tolist() == [261] and r.dtype == t.int64
    assert (t.tensor([255], dtype=t.uint8) ^ t.tensor([1], dtype=t.uint8)).tolist() == [254]
    assert t.tensor([12]).bitwise_and(t.tensor([10])).tolist() == [8]
    assert t.bitwise_xor(t.tensor([12]), t.tensor([10])).tolist() == [6]


def test_bitwise_operators_on_bool_stay_logical(engine):
    t = engine
    a, b = t.tensor([True, False, True]), t.tensor([True, True, False])
    assert (~a).tolist() == [False, True, False]
    assert (a & b).tolist() == [True, False, False] and (a & b).dtype == t.bool
    assert (a | b).tolist() == [True, True, True]
    assert (a ^ b).tolist() == [False, True, True]


def test_bitwise_operators_refuse_floats(engine):
    with pytest.raises(TypeError, match=r"only implemented on integer and Boolean-type"):
        ~engine.tensor([1.0])
    with pytest.raises(NotImplementedError, match="bitwise_and_cpu"):
        engine.tensor([1.5]) & engine.tensor([1.0])


# --- integer dtypes ---------------------------------------------------------------------------

@pytest.mark.parametrize("data, dtype", [
    ([300], "int8"), ([256], "uint8"), ([-256], "uint8"), ([-1.0], "uint8"), ([127.5], "int8"),
    ([float("nan")], "int64"), ([2.0**64], "int64"), ([float("inf")], "int32")])
def test_tensor_of_a_value_the_dtype_cannot_hold(engine, data, dtype):
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {dtype} without "
                       "overflow"):
        engine.tensor(data, dtype=getattr(engine, dtype))


def test_tensor_in_range_values_convert(engine):
    assert engine.tensor([127, -128], dtype=engine.int8).tolist() == [127, -128]
    # a Python int wraps into an unsigned type from -max on, as torch's (c10's overflows())
    assert engine.tensor([-1, -255], dtype=engine.uint8).tolist() == [255, 1]
    assert engine.full((2,), -1, dtype=engine.uint8).tolist() == [255, 255]  # the same rule
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t without "
                       "overflow"):
        engine.full((2,), -256, dtype=engine.uint8)
    assert engine.tensor([1.9, -1.9], dtype=engine.int64).tolist() == [1, -1]  # truncates
    # arrays and tensors convert as numpy/torch's casts, unchecked
    assert engine.tensor(np.array([300]), dtype=engine.int8).tolist() == [44]


def test_integer_power_stays_integer_and_wraps(engine):
    t = engine
    r = t.tensor([3]) ** 50
    assert r.dtype == t.int64 and r.tolist() == [6048575297968530377]  # 3**50 mod 2**64
    r = t.tensor([3], dtype=t.int8) ** 5
    assert r.dtype == t.int8 and r.tolist() == [-13]
    assert (t.tensor([1, -1, 2]) ** (2**63 - 1)).tolist() == [1, -1, 0]
    assert (t.tensor([2, 3]) ** 0).tolist() == [1, 1]
    with pytest.raises(RuntimeError, match="Integers to negative integer powers are not allowed"):
        t.tensor([2]) ** -1
    assert (t.tensor([2.0]) ** -1).tolist() == [0.5]


def test_integer_cumprod_is_exact_int64(engine):
    r = engine.full((5,), 10, dtype=engine.int8).cumprod(0)
    assert r.dtype == engine.int64 and r.tolist() == [10, 100, 1000, 10000, 100000]
    big = engine.tensor([3] * 40).cumprod(0)[-1].item()
    assert big == (3**40 + 2**63) % 2**64 - 2**63  # exact, then wrapping (float64 rounds)


def test_sum_in_a_given_dtype_wraps_in_that_dtype(engine):
    r = engine.full((200,), 100, dtype=engine.int8).sum(dtype=engine.int8)
    assert r.dtype == engine.int8 and r.item() == 32  # 20000 mod 256
    assert engine.full((200,), 100, dtype=engine.int8).sum().item() == 20000  # int64 by default


@pytest.mark.parametrize("call, error, text", [
    (lambda t: t.arange(4).mean(), RuntimeError, "mean\\(\\): could not infer output dtype"),
    (lambda t: t.arange(4).std(), RuntimeError, "std and var only support floating point"),
    (lambda t: t.arange(4).var(), RuntimeError, "std and var only support floating point"),
    (lambda t: t.var_mean(t.arange(4)), RuntimeError, "std and var only support floating"),
    (lambda t: t.arange(4).softmax(0), NotImplementedError, "softmax_lastdim_kernel_impl"),
])
def test_floating_only_reductions_refuse_integers(engine, call, error, text):
    with pytest.raises(error, match=text):
        call(engine)


def test_floating_only_reductions_with_a_dtype(engine):
    assert engine.arange(4).mean(dtype=engine.float64).item() == 1.5
    assert engine.arange(4).softmax(0, dtype=engine.float64).sum().item() == pytest.approx(1.0)


def test_half_mean_accumulates_in_float32(engine):
    x = engine.full((10,), 60000.0, dtype=engine.float16)
    assert x.sum().tolist() == float("inf")  # a float16 sum overflows, as torch's
    m = x.mean()
    assert m.dtype == engine.float16 and m.item() == 60000.0
    y = engine.full((4,), 60000.0, dtype=engine.bfloat16)
    assert y.mean().item() == y[0].item()


# --- sizes from the user ----------------------------------------------------------------------

def test_arange_whose_length_overflows_raises(engine):
    with pytest.raises(RuntimeError, match="Storage size calculation overflowed"):
        engine.arange(0, 2**63 - 1)  # numpy's count wrapped: an empty tensor before
    with pytest.raises(RuntimeError, match="unsupported range"):
        engine.arange(0, float("inf"))
    assert engine.arange(0, 1, 0.25).tolist() == [0.0, 0.25, 0.5, 0.75]


def test_split_with_negative_sizes_raises(engine):
    with pytest.raises(RuntimeError, match="split_sizes have only non-negative entries"):
        engine.arange(4).split([5, -1])
    assert [p.tolist() for p in engine.arange(4).split([4, 0])] == [[0, 1, 2, 3], []]


def test_batch_norm_training_with_one_value_per_channel_raises(engine):
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, "
                       r"got input size torch.Size\(\[1, 3\]\)"):
        nnf(engine).batch_norm(engine.ones(1, 3), None, None, training=True)
    out = nnf(engine).batch_norm(engine.tensor([[1.0], [3.0]]), None, None, training=True)
    assert out.reshape(-1).tolist() == pytest.approx([-1.0, 1.0], abs=1e-4)


@pytest.mark.parametrize("kw, text", [
    (dict(scale_factor=-1.0), r"input \(W: 3\) and output \(W: -3\)"),
    (dict(size=0), r"input \(W: 3\) and output \(W: 0\)"),
])
def test_interpolate_to_a_non_positive_size_raises(engine, kw, text):
    with pytest.raises(RuntimeError, match="Input and output sizes should be greater than 0, "
                       "but got " + text):
        nnf(engine).interpolate(engine.ones(1, 1, 3), **kw)


def test_interpolate_2d_message(engine):
    with pytest.raises(RuntimeError, match=r"input \(H: 3, W: 3\) output \(H: 2, W: -1\)"):
        nnf(engine).interpolate(engine.ones(1, 1, 3, 3), size=(2, -1))


def test_grad_with_no_inputs_raises(engine):
    x = engine.ones(1, requires_grad=True)
    with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty"):
        engine.autograd.grad(x.sum(), [])


def test_ctc_target_lengths_beyond_the_targets_raise(engine):
    lp = engine.ones(3, 1, 4).log_softmax(2)
    with pytest.raises(RuntimeError, match="Expected tensor to have size at least 5 at dimension "
                       "1, but got size 2 for argument #2 'targets'"):
        nnf(engine).ctc_loss(lp, engine.tensor([[1, 2]]), (3,), (5,))


@pytest.mark.parametrize("offsets, text", [
    ([1, 0], "offsets\\[0\\] has to be 0"),
    ([0, 5], "offsets\\[-1\\] can not be greater than input's length 3 but got "
             "offsets\\[-1\\] of 5"),
])
def test_embedding_bag_offsets_checked(engine, offsets, text):
    with pytest.raises(RuntimeError, match=text):
        nnf(engine).embedding_bag(engine.tensor([0, 1, 2]), engine.ones(3, 2),
                                  engine.tensor(offsets))


def test_from_numpy_refuses_negative_strides(engine):
    with pytest.raises(ValueError, match="At least one stride in the given numpy array is "
                       "negative"):
        engine.from_numpy(np.arange(6.0)[::-1])
    assert engine.from_numpy(np.arange(6.0)[::-1].copy()).tolist()[0] == 5.0


def test_unique_keeps_each_nan(engine):
    nan = float("nan")
    values, inverse, counts = engine.unique(engine.tensor([3.0, nan, 1.0, 3.0, nan]),
                                            return_inverse=True, return_counts=True)
    v = values.tolist()
    assert v[:2] == [1.0, 3.0] and len(v) == 4 and all(math.isnan(e) for e in v[2:])
    assert counts.tolist() == [1, 2, 1, 1]
    assert inverse.tolist()[0] == 1 and inverse.tolist()[3] == 1
    assert sorted(inverse.tolist()[i] for i in (1, 4)) == [2, 3]


def test_half_layer_norm_statistics_in_float32(engine):
    x = engine.tensor([[60000.0, -60000.0]], dtype=engine.float16)
    out = nnf(engine).layer_norm(x, (2,))
    assert out.dtype == engine.float16 and out.tolist() == [[1.0, -1.0]]


@pytest.mark.parametrize("start, end, dtype, name", [
    (0, 300, "int8", "int8_t"), (0, 127.9, "int8", "int8_t"), (0, 70000, "float16", "c10::Half"),
    (0, 1e39, "float32", "float")])
def test_linspace_ends_beyond_the_dtype_raise(engine, start, end, dtype, name):
    with pytest.raises(RuntimeError, match=f"value cannot be converted to type {name} without "
                       "overflow"):
        engine.linspace(start, end, 4, dtype=getattr(engine, dtype))
    assert engine.linspace(-128, 127, 3, dtype=engine.int8).tolist() == [-128, 0, 127]


def test_full_of_a_value_the_dtype_cannot_hold(engine):
    with pytest.raises(RuntimeError, match="value cannot be converted to type float without "
                       "overflow"):
        engine.ones(1).new_full((2,), 1e300)  # was inf
    with pytest.raises(RuntimeError, match="value cannot be converted to type int8_t"):
        engine.full((1,), 300, dtype=engine.int8)
    assert engine.full((1,), float("inf")).tolist() == [float("inf")]
    assert engine.full((1,), -128, dtype=engine.int8).tolist() == [-128]


# --- the battery's KNOWN list of issue 11, fixed: each against torch's values, both engines ---

ODD = [float("nan"), float("inf"), -float("inf"), 1e20, -1e20, 300.0, -300.0, 70000.0,
       2.0**31 + 5, 2.0**32 + 5, 2.5, -2.5, 255.9, -1.5]
I32_MIN, I64_MIN = -2**31, -2**63


@pytest.mark.parametrize("dtype, expected", [
    # through int32 (INT32_MIN where it does not fit), then wrapped
    ("int8", [0, 0, 0, 0, 0, 44, -44, 112, 0, 0, 2, -2, -1, -1]),
    ("int16", [0, 0, 0, 0, 0, 300, -300, 4464, 0, 0, 2, -2, 255, -1]),
    ("int32", [I32_MIN] * 5 + [300, -300, 70000, I32_MIN, I32_MIN, 2, -2, 255, -1]),
    # through int64 (INT64_MIN where it does not fit), then wrapped
    ("uint8", [0, 0, 0, 0, 0, 44, 212, 112, 5, 5, 2, 254, 255, 255]),
    ("int64", [I64_MIN] * 5 + [300, -300, 70000, 2**31 + 5, 2**32 + 5, 2, -2, 255, -1]),
])
def test_float_to_integer_casts_are_torchs(engine, dtype, expected):
    # Note [Float to integer casts]: defined for NaN, inf and out of range, as torch on x86
    x = engine.tensor(ODD, dtype=engine.float64)
    assert x.to(getattr(engine, dtype)).tolist() == expected
    assert (x.repeat(9)[::3].to(getattr(engine, dtype)).tolist()
            == (expected * 9)[::3])  # strided, and long enough for a vectorised loop


def test_float32_to_int32_out_of_range_is_int32_min(engine):
    assert engine.tensor([1e20, float("nan"), -3e9, 7.9]).int().tolist() == [I32_MIN] * 3 + [7]


def test_clamp_with_a_nan_bound_is_nan(engine):
    x = engine.tensor([0.5, 5.0])
    for out in (x.clamp(min=float("nan")), x.clamp(max=float("nan")), x.clamp(0.0, float("nan")),
                engine.arange(100.0).clamp(min=float("nan"))):
        assert all(math.isnan(v) for v in out.tolist())


def test_clamp_bounds_of_integer_tensors_convert_as_torchs(engine):
    u8 = engine.tensor([5, 250], dtype=engine.uint8)
    assert u8.clamp(min=-1).tolist() == [255, 255]  # -1 wraps to 255
    assert u8.clamp(max=-1).tolist() == [5, 250]
    for bad in (lambda: u8.clamp(min=300), lambda: u8.clamp(min=-300),
                lambda: engine.tensor([5], dtype=engine.int8).clamp(min=-200)):
        with pytest.raises(RuntimeError, match="value cannot be converted to type u?int8_t "
                                               "without overflow"):
            bad()


@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64"])
def test_integer_floordiv_and_remainder_keep_the_dtype_and_wrap(engine, dtype):
    lo = -2 ** (8 * {"int8": 1, "int16": 2, "int32": 4, "int64": 8}[dtype] - 1)
    d = getattr(engine, dtype)
    a, b = engine.tensor([lo, -7, 7], dtype=d), engine.tensor([-1, 2, -2], dtype=d)
    q, r = a // b, a % b
    assert q.dtype == d and r.dtype == d
    assert q.tolist() == [lo, -4, -4]  # the most negative // -1 wraps, as torch
    assert r.tolist() == [0, 1, -1]


@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32"])
def test_integer_division_by_zero_raises(engine, dtype):
    d = getattr(engine, dtype)
    for op in (lambda a, b: a % b, lambda a, b: a // b, engine.fmod):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            op(engine.tensor([1], dtype=d), engine.tensor([0], dtype=d))


@pytest.mark.parametrize("row, value, index", [
    ([float("nan"), float("nan"), 1.0], float("nan"), 0),
    ([1.0, float("nan"), float("nan")], 1.0, 0),
    ([1.0, float("nan"), 1.0, float("nan"), float("nan")], 1.0, 0),  # NaN splits the runs
    ([float("nan"), 2.0, float("nan"), 1.0, 1.0, 1.0], 1.0, 5),
    ([2.0, 1.0, 2.0, 1.0], 1.0, 3),
])
def test_mode_with_nan_is_torchs(engine, row, value, index):
    # Note [mode's index]: torch's sort-and-count, NaN included
    v, i = engine.mode(engine.tensor(row))
    assert (math.isnan(v.item()) if math.isnan(value) else v.item() == value)
    assert i.item() == index


def test_mode_index_matches_torch_on_long_rows(engine):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    for n in (17, 40, 97, 300):
        for nan in (False, True):
            row = rng.integers(0, 4, n).astype(np.float32)
            if nan:
                row[rng.random(n) < 0.3] = np.nan
            tv, ti = torch.mode(torch.from_numpy(row))
            v, i = engine.mode(engine.tensor(row.tolist()))
            assert i.item() == ti.item(), (n, nan)
            assert np.isnan(v.item()) == np.isnan(tv.item())


def test_searchsorted_places_nan_as_torch(engine):
    seq = engine.tensor([1.0, 2.0, float("nan")])
    vals = engine.tensor([float("nan"), 1.5, 2.0])
    assert engine.searchsorted(seq, vals).tolist() == [3, 1, 1]
    assert engine.searchsorted(seq, vals, right=True).tolist() == [3, 1, 3]
    middle = engine.tensor([1.0, float("nan"), 3.0, 4.0])
    # a NaN met in the search sends it right: 0.0 lands after it, as torch
    assert engine.searchsorted(middle, engine.tensor([0.0, 2.0, 3.5, 5.0])).tolist() == [2, 2, 3, 4]


def test_softmax_of_an_infinite_max_is_nan(engine):
    inf = float("inf")
    for out in (engine.tensor([inf, 1.0]).softmax(0), engine.tensor([inf, 1.0]).log_softmax(0),
                engine.tensor([-inf, -inf]).softmax(0),
                engine.tensor([[inf, 1.0], [1.0, 2.0]]).softmax(0)[:, 0]):
        assert all(math.isnan(v) for v in out.tolist())
    assert engine.tensor([-inf, 0.0]).softmax(0).tolist() == [0.0, 1.0]
    assert engine.tensor([inf, -inf]).logsumexp(0).item() == inf  # logsumexp keeps its mask
    assert engine.tensor([-inf, -inf]).logsumexp(0).item() == -inf
