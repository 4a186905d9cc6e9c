"""Runs of the real command line, each a new process forked from one that has already imported xlmodel.

A server process (one per test process) imports ``xlmodel.cli`` and the modules its commands load,
then forks a child per run. The child starts its own session, changes to the run's folder, takes
stdin from /dev/null and writes stdout and stderr to files of its own, sets the run's limits
(address space, CPU seconds), and ends as the ``xlmodel`` script does, ``sys.exit(main())``: the
interpreter prints an exception let out with its traceback (exit 1) and flushes on the way out.
What a run no longer repeats is the interpreter's start-up and those imports, about 0.4 s of CPU
(tests/test_hostile.py: 162 -> 101 CPU-seconds). ``test_a_forked_run_is_a_process_of_its_own``
proves each of these.

It is stricter than a fresh process, never looser: the child's address space holds every preloaded
module, whether or not its command would have imported it. A run whose entry sets its own limits,
environment, output-size limit or time bound is exec'd as before (tests/test_hostile.py).

The protocol, a JSON line each way over the server's stdin and stdout: ``{"id", "argv", "cwd",
"as", "cpu", "out", "err"}`` in; ``{"id", "pid"}`` when forked, ``{"id", "status"}`` (as
``os.waitpid`` gives it) when reaped. The server is single-threaded: it forks from no thread.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

#: what the commands load after the CLI's own import (the case and its plan, the workbook's writer and reader)
PRELOAD = ("xlmodel.case", "xlmodel.evaluator", "xlmodel.plans.schema", "xlmodel.inputs.untrusted", "xlmodel.workbook.builder",
           "xlmodel.workbook.xmlbook", "openpyxl", "xlsxwriter")

_SERVER = r"""
import importlib, json, os, resource, select, sys
for m in sys.argv[3:]:
    importlib.import_module(m)
module, _, function = sys.argv[2].partition(":")
main = getattr(importlib.import_module(module), function)


def serve():
    buf, running = b"", {}
    while True:
        ready, _, _ = select.select([0], [], [], 0.005 if running else None)
        if ready:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                os._exit(0)
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                req = json.loads(line)
                pid = os.fork()
                if pid == 0:
                    return req
                running[pid] = req["id"]
                os.write(1, (json.dumps({"id": req["id"], "pid": pid}) + "\n").encode())
        while running:
            pid, status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                break
            os.write(1, (json.dumps({"id": running.pop(pid), "status": status}) + "\n").encode())


req = serve()  # the child, from here on
os.setsid()
os.chdir(req["cwd"])
os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
for fd, path in ((1, req["out"]), (2, req["err"])):
    os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), fd)
sys.stdin = open(0, encoding="utf-8", closefd=False)
sys.stdout = open(1, "w", encoding="utf-8", closefd=False)
sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False, buffering=1)
resource.setrlimit(resource.RLIMIT_AS, (req["as"], req["as"]))
resource.setrlimit(resource.RLIMIT_CPU, (req["cpu"], req["cpu"] + 5))
sys.argv = [sys.argv[1], *req["argv"]]
sys.exit(main())
"""


class Run:
    """What a run gave: its exit code as ``subprocess`` gives it (-N for signal N), its two streams."""

    def __init__(self, rc: int | None, out: str, err: str, elapsed: float, timed_out: bool):
        self.rc, self.out, self.err, self.elapsed, self.timed_out = rc, out, err, elapsed, timed_out


class Forks:
    """The server of one test process; ``run`` may be called from several threads."""

    def __init__(self, streams: Path, script: str, env: dict[str, str], main: str = "xlmodel.cli:main"):
        self._streams, self._lock, self._next = streams, threading.Lock(), 0
        self._pids: dict[int, int] = {}
        self._done: dict[int, int] = {}
        self._changed = threading.Condition()
        self._proc = subprocess.Popen([sys.executable, "-c", _SERVER, script, main, *PRELOAD], env=env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self._proc.stdout:
            msg = json.loads(line)
            with self._changed:
                if "pid" in msg:
                    self._pids[msg["id"]] = msg["pid"]
                else:
                    self._done[msg["id"]] = msg["status"]
                self._changed.notify_all()
        with self._changed:  # the server is gone: nothing more will come
            self._done.setdefault(-1, 0)
            self._changed.notify_all()

    def _wait(self, key: dict, rid: int, deadline: float | None) -> int | None:
        with self._changed:
            while rid not in key:
                if -1 in self._done:
                    raise RuntimeError(f"the fork server ended (exit {self._proc.poll()})")
                left = None if deadline is None else deadline - time.monotonic()
                if left is not None and left <= 0:
                    return None
                self._changed.wait(left)
            return key.pop(rid)

    def run(self, argv: list[str], cwd: Path, *, as_limit: int, cpu: int, timeout: float) -> Run:
        with self._lock:
            rid, self._next = self._next, self._next + 1
        out, err = self._streams / f"{rid}.out", self._streams / f"{rid}.err"
        req = {"id": rid, "argv": argv, "cwd": str(cwd), "as": as_limit, "cpu": cpu,
               "out": str(out), "err": str(err)}
        out.touch()
        err.touch()  # empty if the run is killed before it opens them
        t0 = time.monotonic()
        with self._lock:
            self._proc.stdin.write((json.dumps(req) + "\n").encode())
            self._proc.stdin.flush()
        pid = self._wait(self._pids, rid, None)
        status = self._wait(self._done, rid, t0 + timeout)
        timed_out = status is None
        if timed_out:
            for kill in (os.killpg, os.kill):  # its session, or itself if it is not yet in one
                try:
                    kill(pid, signal.SIGKILL)
                    break
                except ProcessLookupError:
                    pass
            status = self._wait(self._done, rid, None)
        elapsed = time.monotonic() - t0
        texts = [p.read_bytes().decode("utf-8", "replace") for p in (out, err)]
        out.unlink()
        err.unlink()
        return Run(os.waitstatus_to_exitcode(status), texts[0], texts[1], elapsed, timed_out)

    def close(self) -> None:
        self._proc.stdin.close()
        self._proc.wait(10)


def probe() -> int:
    """A stand-in for the CLI's main, for the test of the server itself (tests/test_hostile.py)."""
    what, *rest = sys.argv[1:]
    if what == "raise":
        raise ValueError("a probe's exception")
    if what == "where":
        print(os.getcwd(), os.getsid(0) == os.getpid(), os.environ.get("PROBE_VAR"), sys.stdin.read() == "")
        print("to stderr", file=sys.stderr)
        return int(rest[0])
    if what == "spin":
        while True:
            pass
    if what == "sleep":
        time.sleep(60)
    return 0
