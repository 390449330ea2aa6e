"""Parameters as one vector and back, at torch's path (``torch.nn.utils.convert_parameters``);
engine-neutral functions."""

from transgrad._nn.utils import parameters_to_vector, vector_to_parameters

__all__ = ["parameters_to_vector", "vector_to_parameters"]
