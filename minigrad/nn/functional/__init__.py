"""Stateless forms of the layers (``import minigrad.nn.functional as F``)."""

from minigrad.nn.functional.activation import *  # noqa: F403
from minigrad.nn.functional.linear import *  # noqa: F403
from minigrad.nn.functional.dropout import *  # noqa: F403
from minigrad.nn.functional.loss import *  # noqa: F403
from minigrad.nn.functional.normalization import *  # noqa: F403
from minigrad.nn.functional.attention import *  # noqa: F403
