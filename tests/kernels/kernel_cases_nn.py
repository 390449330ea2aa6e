"""Cases for the neural-network kernels (the last section of signatures.py), registered into
test_compiled_kernels.py's table by ``add_cases(case, rand, variants)``: every case runs the
compiled kernel against the reference one (same values, dtype and shape, or the same error).
"""

import numpy as np

# (input shape, kernel_size, stride, padding, dilation)
WINDOWS = [
    ((2, 3, 5, 4), (2, 2), (1, 1), (0, 0), (1, 1)),
    ((1, 2, 7, 6), (3, 2), (2, 1), (1, 1), (1, 2)),
    ((2, 1, 8, 9), (3, 3), (2, 3), (1, 0), (2, 1)),
    ((1, 2, 4, 4), (4, 4), (1, 1), (2, 2), (1, 1)),
    ((1, 1, 1, 1), (1, 1), (1, 1), (0, 0), (1, 1)),
    ((3, 4, 12, 10), (5, 3), (1, 2), (2, 1), (1, 1)),
]
BAD_WINDOWS = [
    ((1, 1, 2, 2), (3, 3), (1, 1), (0, 0), (1, 1)),  # too small
    ((1, 1, 5, 5), (2,), (1, 1), (0, 0), (1, 1)),  # not a pair
    ((1, 1, 5, 5), (2, 2), (0, 1), (0, 0), (1, 1)),  # zero stride
    ((1, 1, 5, 5), (2, 2), (1, 1), (-1, 0), (1, 1)),  # negative padding
]


def _out(hw, k, s, p, d):
    return tuple((hw[a] + 2 * p[a] - d[a] * (k[a] - 1) - 1) // s[a] + 1 for a in range(2))


def add_cases(case, rand, variants):
    for shape, k, s, p, d in WINDOWS + BAD_WINDOWS:
        for dt in (np.float32, np.float64):
            x = rand(shape, dt)
            for v in variants(x)[:2]:
                case("im2col", v, k, s, p, d)
                case("max_pool2d", v, k, s, p, d)
            if len(k) == 2 and min(s) > 0 and min(_out(shape[2:], k, s, p, d)) >= 1:
                rows, length = shape[1] * k[0] * k[1], int(np.prod(_out(shape[2:], k, s, p, d)))
                case("col2im", rand((shape[0], rows, length), dt), shape[2:], k, s, p, d)
    case("im2col", rand((2, 3, 5), np.float64), (2, 2), (1, 1), (0, 0), (1, 1))
    case("im2col", rand((1, 1, 5, 5), np.int64), (2, 2), (1, 1), (0, 0), (1, 1))
    case("max_pool2d", rand((1, 1, 5, 5), np.int64), (2, 2), (1, 1), (0, 0), (1, 1))
    case("max_pool2d", rand((1, 1, 5, 5), np.float64), (2, 2), (1, 1), (2, 2), (1, 1))
    nan = rand((1, 1, 4, 4), np.float64)
    nan[0, 0, 1, 2] = np.nan
    case("max_pool2d", nan, (2, 2), (1, 1), (0, 0), (1, 1))
    case("max_pool2d", np.full((1, 1, 3, 3), -np.inf), (2, 2), (1, 1), (1, 1), (1, 1))
    case("col2im", rand((1, 8, 6), np.float64), (4, 4), (2, 2), (1, 1), (0, 0), (1, 1))  # bad L
    case("col2im", rand((1, 7, 9), np.float64), (4, 4), (2, 2), (1, 1), (0, 0), (1, 1))  # bad rows
    for dt in (np.float32, np.float64):
        for n_in, n_out in [(5, 3), (7, 7), (4, 1), (3, 5), (10, 4)]:
            case("adaptive_pool_weights", rand((2,), dt), n_in, n_out)
    case("adaptive_pool_weights", rand((2,), np.int64), 4, 2)
    case("adaptive_pool_weights", rand((2,), np.float64), 0, 2)

    for dt in (np.float32, np.float64, np.int64, np.bool_):
        for shape, dim in [((3, 4), 1), ((2, 3, 4), -3), ((5,), 0), ((), 0), ((0, 3), 1),
                           ((3, 4), 2)]:
            for v in variants(rand(shape, dt))[:3]:
                case("cumsum", v, dim)
                case("sort", v, dim, False)
                case("sort", v, dim, True)
        for shape, dims in [((3, 4), (1,)), ((2, 3, 4), (0, -1)), ((5,), ()), ((), ()),
                            ((2, 3), (0, 0)), ((2, 3), (2,))]:
            for v in variants(rand(shape, dt))[:3]:
                case("flip", v, dims)
        for shape, diag in [((4, 4), 0), ((2, 3, 5), 1), ((4, 3), -1), ((3, 3), 5), ((5,), 0)]:
            for v in variants(rand(shape, dt))[:2]:
                case("tril", v, diag)
                case("triu", v, diag)
        for shape, pads, value in [((3, 4), (1, 2), 0.0), ((2, 3, 4), (1, 0, 2, 1), 0.5),
                                   ((3, 5), (-1, 2, 1, -1), 2.0), ((3,), (0, 0), 1.0),
                                   ((3, 4), (1,), 0.0), ((3, 4), (-3, -3), 0.0),
                                   ((2, 2), (1, 1, 1, 1, 1, 1), 0.0), ((3, 4), (-4, 0), 0.0)]:
            case("pad", rand(shape, dt), pads, value)
        for shape, k, dim, largest in [((3, 5), 2, -1, True), ((2, 6, 3), 3, 1, False),
                                       ((5,), 5, 0, True), ((5,), 0, 0, True), ((5,), 6, 0, True),
                                       ((4, 3), 2, 0, False)]:
            case("topk", rand(shape, dt), k, dim, largest)
    ties = np.array([[1.0, 3.0, 1.0, np.nan, 3.0, -1.0, np.nan, 1.0]])
    for desc in (False, True):
        case("sort", ties, 1, desc)
        case("topk", ties, 3, 1, desc)
    case("sort", np.array([[2, 1, 2, 1, 2]]), -1, True)
    big = rand((300, 700), np.float32)
    case("cumsum", big, 0)
    case("sort", big, 1, True)
    case("flip", big, (0, 1))
    case("pad", big, (3, 3, 2, 2), 1.0)
    case("im2col", rand((4, 16, 30, 30), np.float32), (3, 3), (1, 1), (1, 1), (1, 1))
    case("max_pool2d", rand((4, 16, 30, 30), np.float32), (3, 3), (2, 2), (1, 1), (1, 1))

    # batch normalisation (Note [Fused batch_norm]): contiguous and strided inputs, 2-D to 4-D,
    # no weight, an empty batch (nan statistics, as torch), and the shape/dtype errors
    for dt in (np.float32, np.float64):
        for shape in [(4, 3), (3, 2, 5), (8, 8, 28, 28), (2, 3, 4, 5), (0, 3, 4)]:
            c = shape[1]
            for v in variants(rand(shape, dt))[:2]:
                case("batch_norm_stats", v)
                case("channel_affine", v, rand((c,), dt), rand((c,), dt))
                mean, rstd = rand((c,), dt), np.abs(rand((c,), dt)) + 0.5
                case("batch_norm_backward", rand(shape, dt), v, mean, rstd, rand((c,), dt))
                case("batch_norm_backward", rand(shape, dt), v, mean, rstd, None)
        case("channel_affine", rand((2, 3), dt), rand((2,), dt), rand((3,), dt))  # bad scale
        case("batch_norm_stats", rand((3,), dt))  # 1-D
        case("batch_norm_backward", rand((2, 3), dt), rand((3, 3), dt), rand((3,), dt),
             rand((3,), dt), None)  # grad of another shape
    case("batch_norm_stats", rand((3, 2), np.int64))
    case("channel_affine", rand((2, 3), np.float32), rand((3,), np.float64), rand((3,), np.float32))
    offset = rand((64, 4, 6), np.float32) + 1000.0  # a large mean: the variance stays accurate
    case("batch_norm_stats", offset)
    _add_lstm_layer_cases(case, rand, variants)


def _add_lstm_layer_cases(case, rand, variants):
    """lstm_layer and lstm_layer_bptt: both directions, with and without a bias and each
    optional grad, strided operands, empty sequences and batches, and bad shapes."""
    for dt in (np.float32, np.float64):
        for steps, n, inp, hid in [(3, 2, 4, 3), (5, 1, 2, 4), (0, 2, 3, 2), (2, 0, 3, 2),
                                   (1, 3, 1, 1), (3, 11, 5, 40), (2, 17, 3, 9)]:
            x = rand((steps, n, inp), dt)
            h0, c0 = rand((n, hid), dt), rand((n, hid), dt)
            w_ih, w_hh = rand((4 * hid, inp), dt), rand((4 * hid, hid), dt)
            bias = rand((4 * hid,), dt)
            seq = rand((steps, n, hid), dt)
            gates = rand((steps, n, 4 * hid), dt)
            for reverse in (False, True):
                for xv in variants(x)[:2]:
                    case("lstm_layer", xv, h0, c0, w_ih, w_hh, bias, reverse)
                case("lstm_layer", x, h0, c0, variants(w_ih)[-1], w_hh, None, reverse)
                for grads in [(seq, seq, None), (None, seq, gates), (seq, None, None),
                              (None, None, None)]:
                    case("lstm_layer_bptt", gates, seq, c0, w_hh, *grads, reverse)
                case("lstm_layer_bptt", variants(gates)[-1], variants(seq)[-1], c0,
                     variants(w_hh)[1], seq, seq, gates, reverse)
                for xv in variants(x)[:2]:
                    case("lstm_layer_weight_grads", gates, xv, seq, h0, reverse)
                case("lstm_layer_weight_grads", variants(gates)[-1], x, variants(seq)[-1], h0,
                     reverse)
    # more rows than the layer GEMM's depth block (256) and widths off its 8 x 32 tile
    steps, n, inp, hid = 9, 33, 70, 37
    x, h0 = rand((steps, n, inp), np.float32), rand((n, hid), np.float32)
    seq, gates = rand((steps, n, hid), np.float32), rand((steps, n, 4 * hid), np.float32)
    for reverse in (False, True):
        case("lstm_layer", x, h0, h0, rand((4 * hid, inp), np.float32),
             rand((4 * hid, hid), np.float32), rand((4 * hid,), np.float32), reverse)
        case("lstm_layer_weight_grads", gates, x, seq, h0, reverse)
    x, s = rand((3, 2, 4), np.float64), rand((2, 3), np.float64)
    w_ih, w_hh = rand((12, 4), np.float64), rand((12, 3), np.float64)
    case("lstm_layer", x, s, s, w_ih, rand((12, 4), np.float64), None, False)  # w_hh not (4H, H)
    case("lstm_layer", x, s, s, rand((12, 5), np.float64), w_hh, None, False)  # w_ih width
    case("lstm_layer", x, rand((3, 3), np.float64), s, w_ih, w_hh, None, False)  # h0 batch
    case("lstm_layer", x, s, s, w_ih, w_hh, rand((8,), np.float64), False)  # bias size
    case("lstm_layer", x.astype(np.float32), s, s, w_ih, w_hh, None, False)  # dtypes differ
    case("lstm_layer", rand((3, 4), np.float64), s, s, w_ih, w_hh, None, False)  # not 3-D
    case("lstm_layer", rand((3, 2, 4), np.int64), s, s, w_ih, w_hh, None, False)  # int64
    g, seq = rand((3, 2, 12), np.float64), rand((3, 2, 3), np.float64)
    case("lstm_layer_weight_grads", g, x, seq, s, False)
    case("lstm_layer_weight_grads", rand((3, 2, 10), np.float64), x, seq, s, False)  # not 4H
    case("lstm_layer_weight_grads", g, x[:2], seq, s, False)  # x's steps
    case("lstm_layer_weight_grads", g, x, seq[:, :1], s, False)  # hs's batch
    case("lstm_layer_weight_grads", g, x, seq, rand((2, 2), np.float64), False)  # h0's width
    case("lstm_layer_weight_grads", g, x.astype(np.float32), seq, s, False)  # dtypes differ
    case("lstm_layer_weight_grads", g.astype(np.int64), x, seq, s, False)  # int64
    case("lstm_layer_bptt", rand((3, 2, 8), np.float64), seq, s, w_hh, None, None, None, False)
    case("lstm_layer_bptt", g, rand((3, 2, 2), np.float64), s, w_hh, None, None, None, False)
    case("lstm_layer_bptt", g, seq, s, w_hh, rand((2, 2, 3), np.float64), None, None, False)
    case("lstm_layer_bptt", g, seq, s, w_hh, None, None, rand((3, 2, 3), np.float64), True)
    for dt in (np.float32, np.float64):
        for n, hid in [(3, 2), (5, 7), (0, 3), (17, 40)]:
            gi, gh, h = rand((n, 3 * hid), dt), rand((n, 3 * hid), dt), rand((n, hid), dt)
            for v in variants(gi)[:2]:
                case("gru_cell", v, gh, h)
                case("gru_cell_backward", v, gh, h, rand((n, hid), dt))
            case("gru_cell_backward", gi, variants(gh)[-1], h, variants(h)[1])
    case("gru_cell", rand((2, 7), np.float64), rand((2, 7), np.float64), rand((2, 2), np.float64))
    case("gru_cell", rand((2, 6), np.float64), rand((2, 6), np.float64), rand((3, 2), np.float64))
    case("gru_cell", rand((2, 6), np.float32), rand((2, 6), np.float64), rand((2, 2), np.float64))
    g6, s2 = rand((2, 6), np.float64), rand((2, 2), np.float64)
    case("gru_cell_backward", g6, g6, s2, rand((2, 3), np.float64))  # grad's width
    case("gru_cell_backward", g6, rand((2, 9), np.float64), s2, s2)  # gh's width
    case("gru_cell_backward", g6, g6, s2, s2.astype(np.float32))  # dtypes differ
    case("gru_cell_backward", rand((2, 7), np.float64), rand((2, 7), np.float64), s2, s2)  # not 3H
