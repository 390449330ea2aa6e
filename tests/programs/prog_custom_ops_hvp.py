"""Custom autograd Functions as in the "Extending PyTorch" docs, plus a Hessian-vector product:
a LinearFunction with ``ctx.save_for_backward`` and ``ctx.needs_input_grad`` (bias optional),
a ``@once_differentiable`` backward, ``ctx.mark_non_differentiable`` for an argmax output,
``ctx.set_materialize_grads``, a Function checked with ``torch.autograd.gradcheck``; then a
training loop whose step size comes from a Hessian-vector product computed with
``torch.autograd.grad(..., create_graph=True)`` (no torch.func), and the curvature along the
gradient printed each step."""



def main(torch, steps=6):
    nn = torch.nn
    Function = torch.autograd.Function
    once_differentiable = torch.autograd.function.once_differentiable

    class LinearFunction(Function):
        @staticmethod
        def forward(ctx, input, weight, bias=None):
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx, grad_output):
            input, weight, bias = ctx.saved_tensors
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    class SoftClamp(Function):
        """tanh-like squashing whose backward is computed outside autograd."""

        @staticmethod
        def forward(ctx, x, scale):
            y = scale * torch.tanh(x / scale)
            ctx.save_for_backward(y)
            ctx.scale = scale
            return y

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            (y,) = ctx.saved_tensors
            return grad * (1 - (y / ctx.scale) ** 2), None

    class MaxWithIndex(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            values, idx = x.max(dim=1)
            ctx.mark_non_differentiable(idx)
            ctx.save_for_backward(x, idx)
            return values, idx

        @staticmethod
        def backward(ctx, grad_values, grad_idx):
            x, idx = ctx.saved_tensors
            grad = torch.zeros_like(x)
            if grad_values is not None:
                grad.scatter_(1, idx.unsqueeze(1), grad_values.unsqueeze(1))
            return grad

    class MyLinear(nn.Module):
        def __init__(self, input_features, output_features, bias=True):
            super().__init__()
            self.weight = nn.Parameter(torch.empty(output_features, input_features))
            if bias:
                self.bias = nn.Parameter(torch.empty(output_features))
            else:
                self.register_parameter("bias", None)
            nn.init.uniform_(self.weight, -0.5, 0.5)
            if self.bias is not None:
                nn.init.uniform_(self.bias, -0.1, 0.1)

        def forward(self, input):
            return LinearFunction.apply(input, self.weight, self.bias)

        def extra_repr(self):
            return f"input_features={self.weight.shape[1]}, " \
                   f"output_features={self.weight.shape[0]}, bias={self.bias is not None}"

    prev = torch.get_default_dtype()
    torch.set_default_dtype(torch.float64)
    try:
        torch.manual_seed(7)
        out = []
        inputs = (torch.randn(5, 3, requires_grad=True), torch.randn(4, 3, requires_grad=True))
        out.append(float(torch.autograd.gradcheck(LinearFunction.apply, inputs, eps=1e-6,
                                                  atol=1e-4)))
        layer1, layer2 = MyLinear(3, 8), MyLinear(8, 2, bias=False)
        params = list(layer1.parameters()) + list(layer2.parameters())
        x = torch.randn(16, 3)
        y = (x[:, 0] > x[:, 1]).long()

        def loss_fn():
            h = SoftClamp.apply(layer1(x), 2.0)
            logits = layer2(h)
            best, idx = MaxWithIndex.apply(logits)
            assert not idx.requires_grad
            return nn.functional.cross_entropy(logits, y) + 0.01 * best.mean()

        for _ in range(steps):
            # SoftClamp's backward is once_differentiable: the Hessian is taken without it
            h = torch.tanh(layer1(x))
            loss = nn.functional.cross_entropy(layer2(h), y)
            grads = torch.autograd.grad(loss, params, create_graph=True)
            v = [g.detach() for g in grads]
            gv = sum((g * vi).sum() for g, vi in zip(grads, v))
            hv = torch.autograd.grad(gv, params)
            curvature = sum((h_ * vi).sum() for h_, vi in zip(hv, v)).item()
            gnorm2 = sum((vi * vi).sum() for vi in v).item()
            lr = gnorm2 / curvature if curvature > 0 else 0.1
            lr = min(lr, 1.0)
            for p in params:
                p.grad = None
            full = loss_fn()
            full.backward()
            with torch.no_grad():
                for p in params:
                    p -= lr * p.grad
            out += [loss.item(), full.item(), curvature, lr]
        try:
            torch.autograd.grad(torch.autograd.grad(
                SoftClamp.apply(layer1(x), 2.0).sum(), params[0], create_graph=True)[0].sum(),
                params[0])
            out.append(0.0)
        except RuntimeError:
            out.append(1.0)  # double backward through a once_differentiable backward raises
        out.append(float(len(str(layer1)) > 0))
        return out
    finally:
        torch.set_default_dtype(prev)
