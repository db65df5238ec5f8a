"""The files advisor reads and writes, and the two rules for them.

Reading: only regular files, never more than a cap. A FIFO, `/dev/zero` or a socket given as a
knowledge entry, an answers file or a saved session would otherwise hang advisor or fill its
memory; they are refused with a reason instead.

Writing: atomically. The text goes to a temporary file beside the target, is flushed to disk,
then renamed over it, so a crash, a full disk or a signal leaves the old file whole and no
temporary file behind (SIGTERM and SIGHUP are held off while the temporary file exists: it is
removed, then the signal takes its usual course). An existing file is replaced only when asked
(`force`), and never when it is not a regular file (a device node, a FIFO), whatever `force`
says; a symbolic link is written through, so the link stays a link.
"""

from __future__ import annotations

import os
import stat
import time

from advisor.problems import OutputError, OutputExists, Problem

TYPE_CHECKING = False  # typing's own flag, without importing typing (docs/architecture.md)
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import IO, Any

MAX_FILE_BYTES = 1_000_000
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class LineError(ValueError):
    """A file problem tied to a line (1-based)."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line


def read_bytes(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file at `path`; `ValueError` with the reason otherwise.

    Opened non-blocking so that a FIFO cannot stall the open itself, then refused by type before
    a byte is read; the read stops one byte past the cap, so a file that grows while it is read
    (or lies about its size) cannot exhaust memory either.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as error:
        raise ValueError(f"cannot read file: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ValueError("not a regular file")
        if info.st_size > max_bytes:
            raise ValueError(f"file is larger than {max_bytes:,} bytes")
        chunks: list[bytes] = []
        size = 0
        while size <= max_bytes:
            chunk = os.read(fd, max(max_bytes + 1 - size, 1))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as error:
        raise ValueError(f"cannot read file: {error.strerror or error}") from None
    finally:
        os.close(fd)
    if size > max_bytes:
        raise ValueError(f"file is larger than {max_bytes:,} bytes")
    return b"".join(chunks)


def read_text(path: str | os.PathLike[str], max_bytes: int = MAX_FILE_BYTES) -> str:
    """A UTF-8 text file (a BOM is dropped); `ValueError` or `LineError` saying what is wrong."""
    raw = read_bytes(path, max_bytes)
    if b"\x00" in raw:
        raise ValueError("not a text file (contains NUL bytes)")
    return decode_utf8(raw)


def read_reporting(path: str | os.PathLike[str], display: str, problems: list[Problem]) -> str | None:
    """The text of `path`, or None with its problem (the line of a bad byte, else line 1) added."""
    try:
        return read_text(path)
    except LineError as error:
        problems.append(Problem(display, error.line, str(error)))
    except ValueError as error:
        problems.append(Problem(display, 1, str(error)))
    return None


def read_stream(stream: IO[bytes], max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """At most `max_bytes` from a byte stream (standard input, a pipe); `ValueError` past that."""
    raw = stream.read(max_bytes + 1)
    if len(raw) > max_bytes:
        raise ValueError(f"input is larger than {max_bytes:,} bytes")
    return raw


def move_aside(path: str | os.PathLike[str]) -> str | None:
    """Rename an unusable file to `<name>.broken-<time>`, so that starting afresh loses nothing.

    Returns the new name, or None when the file could not be moved (then it is left as it is).
    """
    aside = f"{os.fspath(path)}.broken-{time.strftime('%Y%m%d-%H%M%S')}"
    try:
        os.replace(path, aside)
    except OSError:
        return None
    return aside


def decode_utf8(raw: bytes) -> str:
    """`raw` as UTF-8 text; `LineError` naming the line of the first invalid byte."""
    try:  # as "utf-8-sig" decodes, without importing that codec (a quarter of a millisecond)
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise LineError(line, f"not valid UTF-8 (byte 0x{raw[error.start]:02x})") from None


def display_path(path: str | os.PathLike[str], root: str | os.PathLike[str]) -> str:
    """`path` relative to the folder holding `root` (`knowledge/en/mig.md`), else as given."""
    path, parent = os.fspath(path), os.path.dirname(os.path.normpath(os.fspath(root)))
    relative = os.path.relpath(path, parent) if parent else path
    return path if relative.startswith(os.pardir) else relative


def atomic_write(path: str | os.PathLike[str], data: str | bytes | Iterable[bytes], *, force: bool = False) -> None:
    """Write `data` (text as UTF-8, bytes, or pieces of bytes) to `path`, atomically.

    Raises `OutputExists` when `path` exists and `force` is false, and `OutputError` (one line,
    naming the path) for anything else that stops the write: a folder or a special file in the
    way, a missing folder, a full disk. The file gets the mode of the file it replaces, else the
    usual 0666 less the umask.
    """
    shown = target = os.fspath(path)
    if target.endswith((os.sep, "/")) or os.path.isdir(target):
        raise OutputError("err_output_is_folder", path=shown)
    if os.path.islink(target):  # write where the link points, as a shell redirection would
        target = os.path.realpath(target)
    folder = os.path.dirname(target) or "."
    if not os.path.isdir(folder):
        raise OutputError("err_output_no_folder", path=shown, folder=folder)
    existing = _existing(target, shown)
    if existing is not None:
        if not force:
            raise OutputExists("err_output_exists", path=shown)
        if not stat.S_ISREG(existing.st_mode):
            raise OutputError("err_output_not_regular", path=shown)
    mode = stat.S_IMODE(existing.st_mode) if existing is not None else 0o666 & ~_umask()
    trap = _SignalTrap()
    try:
        _write_new(target, shown, data, mode, force)
    except _Signalled as caught:
        trap.release()
        os.kill(os.getpid(), caught.signum)  # the signal's usual course, now that nothing is left behind
        raise OutputError("err_cannot_write", path=shown, reason="interrupted") from None
    finally:
        trap.release()


def _write_new(target: str, shown: str, data: str | bytes | Iterable[bytes], mode: int, force: bool) -> None:
    """The temporary file beside `target`, written and flushed, then moved into place (removed on
    any failure); messages name the file as the user did (`shown`)."""
    temporary = os.path.join(os.path.dirname(target) or ".", f".{os.path.basename(target)}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o600)
    except OSError as error:
        raise OutputError("err_cannot_write", path=shown, reason=error.strerror or error) from None
    try:
        with os.fdopen(fd, "wb") as stream:
            pieces = [data.encode("utf-8")] if isinstance(data, str) else [data] if isinstance(data, bytes) else data
            for piece in pieces:
                stream.write(piece)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        if force:
            os.replace(temporary, target)
        else:
            _create_exclusively(temporary, target, shown)
    except BaseException as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(error, OSError):
            raise OutputError("err_cannot_write", path=shown, reason=error.strerror or error) from None
        raise


class _Signalled(BaseException):
    """SIGTERM or SIGHUP arrived while a temporary file existed."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


class _SignalTrap:
    """Turns SIGTERM and SIGHUP into `_Signalled` until released, so the cleanup can run.

    Signals already ignored (`nohup`) stay ignored; outside the main thread Python cannot set
    handlers, and the trap does nothing.
    """

    def __init__(self) -> None:
        import signal

        self._signal = signal
        self._saved: dict[int, Any] = {}
        for name in ("SIGTERM", "SIGHUP"):
            number = getattr(signal, name, None)
            if number is None or signal.getsignal(number) == signal.SIG_IGN:
                continue
            try:
                self._saved[number] = signal.signal(number, self._caught)
            except ValueError:  # not the main thread
                return

    def _caught(self, signum: int, frame: object) -> None:
        for number in self._saved:  # one is enough: the cleanup must not be interrupted again
            self._signal.signal(number, self._signal.SIG_IGN)
        raise _Signalled(signum)

    def release(self) -> None:
        saved, self._saved = self._saved, {}
        for number, handler in saved.items():
            self._signal.signal(number, handler if handler is not None else self._signal.SIG_DFL)


def _existing(path: str, shown: str) -> os.stat_result | None:
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise OutputError("err_cannot_write", path=shown, reason=error.strerror or error) from None


def _umask() -> int:
    """The process umask (it can only be read by setting it, so it is set straight back)."""
    current = os.umask(0o022)
    os.umask(current)
    return current


def _create_exclusively(temporary: str, path: str, shown: str) -> None:
    """Move the finished file into place without ever replacing a file created meanwhile."""
    try:
        os.link(temporary, path)  # fails if `path` appeared since the check above
    except FileExistsError:
        raise OutputExists(f"{shown} already exists; use --force to overwrite it") from None
    except OSError:
        # Some file systems have no hard links; the existence check above has to do.
        if os.path.lexists(path):
            raise OutputExists(f"{shown} already exists; use --force to overwrite it") from None
        os.replace(temporary, path)
        return
    os.unlink(temporary)
