"""The command line's one error class, shared by every subcommand."""


class CLIError(Exception):
    """An error worth a clear message and a non-zero exit, not a traceback."""
