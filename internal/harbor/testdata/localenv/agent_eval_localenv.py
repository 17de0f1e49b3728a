"""A Harbor environment that runs each trial in a local folder: a test
stand-in for the container runtime only (no container engine runs on the
machines the tests run on). Everything else in a trial, the orchestrator,
the task loader, the agent's setup and run, the verifier and the reward, is
Harbor's own code.

Each trial gets a root folder R on the host; every exec runs under
bubblewrap with R as "/", the host's system folders (/usr, /bin, /lib, /etc,
...) bound read-only over it, its own /dev (every process rooted in the trial is
killed when an exec returns), and a cleared environment. /workspace,
/logs, /tests, /root and /tmp are R's own folders, as in a container; the
host's /root, /home and /work are not there at all. The network is the
host's, so the tests' fake model API on 127.0.0.1 answers.

Options (harbor run --ek key=value):
  image_dir  a host folder bound read-only at /image: the "image" the task
             names, holding bin/ (put first on PATH) and whatever the image
             recipe installs (the agent CLI, agent-eval).
  keep       "true" keeps R after the trial (for debugging).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import tempfile
from pathlib import Path
from typing import Any

from pydantic import Field

from harbor.environments.base import BaseEnvironment, ExecResult
from harbor.environments.capabilities import EnvironmentCapabilities
from harbor.environments.options import EnvironmentOptions

# Host folders bound read-only into every trial's root.
SYSTEM_DIRS = ("usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32", "etc", "opt", "var", "sys")
# The container's own folders, made in R.
OWN_DIRS = ("workspace", "logs/agent", "logs/verifier", "logs/artifacts", "tests", "solution", "root", "tmp", "image")
PATH = "/image/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class LocalOptions(EnvironmentOptions):
    image_dir: str | None = Field(default=None, description="Host folder bound at /image.")
    keep: bool = Field(default=False, description="Keep the trial's root folder.")


class LocalEnvironment(BaseEnvironment):
    options_model = LocalOptions
    options: LocalOptions

    @staticmethod
    def type() -> str:
        return "agent-eval-local"

    @property
    def capabilities(self) -> EnvironmentCapabilities:
        return EnvironmentCapabilities()

    def _validate_definition(self):
        if not self.task_env_config.docker_image:
            raise FileNotFoundError("the local environment runs prebuilt-image tasks only ([environment].docker_image)")
        for name in ("Dockerfile", "docker-compose.yaml"):
            if (self.environment_dir / name).exists():
                raise ValueError(f"the local environment cannot build {name}")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._root: Path | None = None

    # -- paths -----------------------------------------------------------

    def _host(self, path: str) -> Path:
        """The host path of a container path, which must be inside R."""
        if self._root is None:
            raise RuntimeError("the environment is not started")
        p = Path(os.path.normpath("/" + str(path).lstrip("/")))
        host = self._root / p.relative_to("/")
        if host != self._root and self._root not in host.parents:
            raise ValueError(f"{path} is outside the trial's root")
        for part in p.parts[1:2]:
            if part in SYSTEM_DIRS:
                raise PermissionError(f"{path} is in the read-only image")
        return host

    # -- lifecycle -------------------------------------------------------

    async def start(self, force_build: bool) -> None:
        self._root = Path(tempfile.mkdtemp(prefix="harbor-trial-"))
        for d in SYSTEM_DIRS:
            if Path("/" + d).is_dir() and not Path("/" + d).is_symlink():
                (self._root / d).mkdir(parents=True, exist_ok=True)
            elif Path("/" + d).is_symlink():
                os.symlink(os.readlink("/" + d), self._root / d)
        for d in OWN_DIRS:
            (self._root / d).mkdir(parents=True, exist_ok=True)
        os.chmod(self._root / "tmp", 0o1777)
        if self.task_env_config.workdir:
            self._host(self.task_env_config.workdir).mkdir(parents=True, exist_ok=True)
        await self._upload_environment_dir_after_start()

    def _kill_leftovers(self):
        """Kills every process whose root is the trial's, however it left
        the exec's process group (Claude Code's Bash tool starts each
        command in a session of its own): nothing the agent starts outlives
        its exec, as nothing outlives a container."""
        try:
            root = os.stat(self._root)
        except (OSError, TypeError):
            return
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                st = os.stat(f"/proc/{pid}/root")
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == (root.st_dev, root.st_ino):
                try:
                    os.kill(int(pid), signal.SIGKILL)
                except OSError:
                    pass

    async def stop(self, delete: bool):
        self._kill_leftovers()
        if self._root is not None and delete and not self.options.keep:
            shutil.rmtree(self._root, ignore_errors=True)

    # -- files -----------------------------------------------------------

    async def upload_file(self, source_path: Path | str, target_path: str):
        dst = self._host(target_path)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source_path, dst)

    async def upload_dir(self, source_dir: Path | str, target_dir: str):
        shutil.copytree(source_dir, self._host(target_dir), dirs_exist_ok=True, symlinks=True)

    async def download_file(self, source_path: str, target_path: Path | str):
        Path(target_path).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(self._host(source_path), target_path)

    async def download_dir(self, source_dir: str, target_dir: Path | str):
        src = self._host(source_dir)
        if src.is_dir():
            shutil.copytree(src, target_dir, dirs_exist_ok=True, symlinks=True)

    # -- exec ------------------------------------------------------------

    async def exec(
        self,
        command: str,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        timeout_sec: int | None = None,
        user: str | int | None = None,
    ) -> ExecResult:
        assert self._root is not None
        args = ["bwrap", "--bind", str(self._root), "/"]
        for d in SYSTEM_DIRS:
            p = "/" + d
            if os.path.isdir(p) and not os.path.islink(p):
                args += ["--ro-bind", p, p]
        if self.options.image_dir:
            args += ["--ro-bind", self.options.image_dir, "/image"]
        # The host's /proc and pid namespace, not new ones: under a proc
        # that bubblewrap mounted, the agent's own sandbox (Claude Code's
        # bubblewrap, in a user namespace) may not mount its /proc, and a
        # new pid namespace under the host's /proc confuses it. What an exec
        # leaves running, in its group or not, is killed when it returns.
        args += ["--dev", "/dev", "--dev-bind", "/proc", "/proc", "--die-with-parent", "--clearenv"]
        merged = {"PATH": PATH, "HOME": "/root", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
        merged.update(self._persistent_env)
        merged.update(env or {})
        for k, v in merged.items():
            args += ["--setenv", k, v]
        args += ["--chdir", cwd or self.task_env_config.workdir or "/", "--", "bash", "-c", command]
        proc = await asyncio.create_subprocess_exec(
            *args,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
        )
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout=timeout_sec)
        except (asyncio.TimeoutError, asyncio.CancelledError):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            await proc.wait()
            self._kill_leftovers()
            raise
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self._kill_leftovers()
        return ExecResult(
            stdout=out.decode(errors="replace"),
            stderr=err.decode(errors="replace"),
            return_code=proc.returncode if proc.returncode is not None else -1,
        )
