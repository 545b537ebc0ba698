"""``nn.factory_kwargs``: the ``device`` / ``dtype`` / ``memory_format`` keyword arguments
of a layer, gathered into one dict to pass on to tensor factories."""

from __future__ import annotations

__all__ = ["factory_kwargs"]

_SIMPLE = ("device", "dtype", "memory_format")


def factory_kwargs(kwargs: dict | None) -> dict:
    """The factory keyword arguments among ``kwargs`` (and in its ``factory_kwargs`` entry),
    merged; a ``TypeError`` for any other key or for one given twice.

    Example::

        >>> nn.factory_kwargs({"device": "cpu", "factory_kwargs": {"dtype": mg.float64}})
        {'dtype': dtype('float64'), 'device': 'cpu'}
    """
    if kwargs is None:
        return {}
    unexpected = set(kwargs) - set(_SIMPLE) - {"factory_kwargs"}
    if unexpected:
        raise TypeError(
            f"unexpected kwargs {unexpected} (only {_SIMPLE} and factory_kwargs are allowed)"
        )
    result = dict(kwargs.get("factory_kwargs", {}))
    for key in _SIMPLE:
        if key in kwargs:
            if key in result:
                raise TypeError(f"{key} specified twice, in **kwargs and in factory_kwargs")
            result[key] = kwargs[key]
    return result
