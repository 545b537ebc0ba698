"""Atomic writes: a crash at any moment leaves the old file or the complete new one.

``atomic_write(path, write)`` has ``write`` fill a temporary file in the target's folder
(``.NAME.PID-RANDOM.tmp``), flushes it to disk (fsync), then renames it over the target
(``os.replace``) and makes the rename durable (fsync of the folder). A symbolic link is
written through, as ``open(path, "wb")`` would: its target is replaced, the link stays.
A temporary left by a killed save (its process is gone) is removed by the next save to
the same target.
"""

from __future__ import annotations

import os


def atomic_write(path, write) -> None:
    """Call ``write(temporary_path)``, then put the file at ``path`` in one step."""
    import tempfile

    target = os.path.realpath(os.fspath(path))  # through symbolic links, as open() goes
    folder = os.path.dirname(target)
    prefix = "." + os.path.basename(target) + "."
    _remove_stale_temporaries(folder, prefix)
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f"{prefix}{os.getpid()}-", suffix=".tmp")
    try:
        os.close(fd)
        write(tmp)
        _fsync(tmp)
        os.chmod(tmp, _file_mode(target))
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_folder(folder)


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _remove_stale_temporaries(folder: str, prefix: str) -> None:
    """Delete ``prefix + PID-RANDOM.tmp`` files whose writing process no longer exists
    (a save killed mid-write); a save still running in another process keeps its file."""
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".tmp")):
            continue
        pid = name[len(prefix) :].split("-", 1)[0]
        if pid.isdigit() and not _process_exists(int(pid)):
            try:
                os.unlink(os.path.join(folder, name))
            except OSError:
                pass


def _process_exists(pid: int) -> bool:
    if pid == os.getpid():
        return True  # another thread of this process may be saving
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError, OverflowError):
        return True  # it exists (owned by someone else), or we cannot tell: keep the file
    return True


def _file_mode(path: str) -> int:
    """Keep an existing file's permissions; a new file gets the usual 0o666 & ~umask
    (``mkstemp`` would leave it private, 0o600)."""
    try:
        return os.stat(path).st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _fsync_folder(folder: str) -> None:
    """Make the rename itself durable (best effort: not every platform allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
