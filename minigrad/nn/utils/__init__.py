"""Utilities for training modules (``nn.utils.clip_grad_norm_``,
``parameters_to_vector``, ...)."""

from minigrad.nn.utils import parametrizations, parametrize, rnn, stateless
from minigrad.nn.utils.clip_grad import *  # noqa: F403
from minigrad.nn.utils.clip_grad import __all__ as _clip_names
from minigrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from minigrad.nn.utils.init import skip_init
from minigrad.nn.utils.spectral_norm import remove_spectral_norm, spectral_norm
from minigrad.nn.utils.weight_norm import remove_weight_norm, weight_norm
from minigrad.unsupported import module_getattr

__all__ = [
    *_clip_names,
    "parameters_to_vector",
    "vector_to_parameters",
    "skip_init",
    "weight_norm",
    "remove_weight_norm",
    "spectral_norm",
    "remove_spectral_norm",
    "parametrizations",
    "parametrize",
    "rnn",
    "stateless",
]

__getattr__ = module_getattr(__name__)  # unsupported PyTorch names say why (unsupported.json)
