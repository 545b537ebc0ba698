"""A settable namespace of flags, for ``backends.cuda.matmul``."""


class Switches:
    """Attributes that can be set and read back (and change nothing)."""

    def __init__(self, name: str, **flags) -> None:
        self.__dict__["_name"] = name
        self.__dict__.update(flags)

    def __repr__(self) -> str:
        flags = {k: v for k, v in self.__dict__.items() if not k.startswith("_")}
        return f"<minigrad.backends.{self._name} {flags}>"


def false(*args, **kwargs) -> bool:
    return False
