"""A pool of gloo ranks for the distributed tests: spawned once per test session, reused by every test.

    results = pool.run(fn, *args)    # fn(*args) on every rank at once; a list, one result per rank

``fn`` is a module-level function (pickled by name; the ranks import its module, as they import the installed
primkit), called in each rank's default process group (gloo, CPU, ``world_size`` ranks), after
``torch.manual_seed(0)``. What it returns comes back to the parent, one value per rank. Where a rank raises,
``run`` raises that rank's exception (its type, with the rank's traceback as its cause), so ``pytest.raises``
and strict xfails see the program's own error. The failing rank's error wins: when rank 1 raises and rank 0,
left alone in a collective, then fails with a timeout or a closed connection, rank 1's error is the one
reported; the parent does not wait for rank 0's timeout, it gives the ranks a short grace and restarts the
pool.

A rank that hangs fails its test within ``timeout`` seconds (55 by default): the process group's own
timeout (30 s) ends a collective whose peer never comes, and the parent's deadline ends anything
else. After a hang, a killed rank, a torch.distributed error or ranks that disagree (one returned,
one raised), the pool starts afresh for the next test, since its group may hold a half-done
collective; where every rank raised an ordinary exception, the group is intact and is kept.

The ranks never outlive the session: ``close`` (a session finalizer) stops them, they are daemons
(multiprocessing ends them when the parent exits), and each rank ends itself when its parent is gone
(``PR_SET_PDEATHSIG``, and a pipe that closes).
"""
from __future__ import annotations

import ctypes
import datetime
import multiprocessing
import multiprocessing.connection
import os
import shutil
import signal
import tempfile
import time
import traceback

WORLD_SIZE = 2
GROUP_TIMEOUT_S = 30     # a collective whose peer never comes raises after this
RUN_TIMEOUT_S = 55       # the parent's deadline for one run, start to last rank's answer
GRACE_S = 2              # after one rank raised, how long the others get to answer
START_TIMEOUT_S = 120    # spawning a rank imports torch and primkit: seconds on a busy 2-core machine


class RemoteTraceback(Exception):
    """A rank's traceback, as text: the cause of the exception ``run`` raises."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def __str__(self):
        return self.text


class RankHung(TimeoutError):
    """A rank gave no answer before the run's deadline."""


class RankDied(RuntimeError):
    """A rank's process ended during a run."""


def _die_with_parent() -> None:
    """Linux: this process gets SIGKILL when its parent ends (so a rank never outlives the test session)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG
    except OSError:
        pass


class _Portable:
    """An exception that does not survive pickling as it is (a constructor whose arguments are not its
    ``args``, as DecompositionError's): its type, message, notes and attributes, rebuilt without calling
    its constructor."""

    def __init__(self, exc: BaseException):
        self.cls, self.message = type(exc), str(exc)
        self.state = {k: v for k, v in vars(exc).items() if _pickles(v)}

    def rebuild(self) -> BaseException:
        exc = self.cls.__new__(self.cls)
        exc.args = (self.message,)
        exc.__dict__.update(self.state)
        return exc


def _pickles(value) -> bool:
    import pickle
    try:
        pickle.dumps(value)
        return True
    except Exception:
        return False


def _portable(exc: BaseException):
    """exc, or a _Portable of it where pickling would not give back its type and message."""
    import pickle
    try:
        back = pickle.loads(pickle.dumps(exc))
        if type(back) is type(exc) and str(back) == str(exc):
            return exc
    except Exception:
        pass
    try:
        return pickle.loads(pickle.dumps(_Portable(exc)))   # its type must import in the parent
    except Exception:
        return RuntimeError(f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}")


def _rank_main(rank: int, world_size: int, store_path: str, conn, parent_pid: int) -> None:
    _die_with_parent()
    if os.getppid() != parent_pid:   # the parent ended before prctl took effect
        os._exit(1)
    import torch
    import torch.distributed as dist
    torch.set_num_threads(1)
    try:
        dist.init_process_group("gloo", init_method=f"file://{store_path}", rank=rank, world_size=world_size,
                                timeout=datetime.timedelta(seconds=GROUP_TIMEOUT_S))
    except BaseException as exc:
        conn.send(("error", _portable(exc), traceback.format_exc()))
        return
    conn.send(("ready", None, None))
    while True:
        try:
            message = conn.recv()
        except (EOFError, OSError):   # the parent is gone
            break
        if message is None:
            break
        fn, args, kwargs = message
        try:
            torch.manual_seed(0)
            result = fn(*args, **kwargs)
            conn.send(("ok", result, None))
        except BaseException as exc:
            conn.send(("error", _portable(exc), traceback.format_exc()))
    dist.destroy_process_group()


def _is_collateral(exc: BaseException) -> bool:
    """An error a rank gets because another rank failed: torch.distributed's errors (a collective's
    timeout, a peer's closed connection), or our own hang / death reports."""
    import torch.distributed as dist
    return isinstance(exc, (dist.DistError, RankHung, RankDied))


class Pool:
    """``world_size`` spawned ranks in one gloo process group; see the module's doc."""

    def __init__(self, world_size: int = WORLD_SIZE):
        self.world_size = world_size
        self.starts = 0          # how many times the ranks were spawned (the tests of the pool read it)
        self._procs: list = []
        self._conns: list = []
        self._store_dir = None

    # -- life cycle
    def _start(self) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._store_dir = tempfile.mkdtemp(prefix="primkit_gloo_")
        store = os.path.join(self._store_dir, "store")
        for rank in range(self.world_size):
            parent_end, child_end = ctx.Pipe()
            proc = ctx.Process(target=_rank_main, name=f"primkit-gloo-rank{rank}", daemon=True,
                               args=(rank, self.world_size, store, child_end, os.getpid()))
            proc.start()
            child_end.close()
            self._procs.append(proc)
            self._conns.append(parent_end)
        self.starts += 1
        answers = self._collect(START_TIMEOUT_S)
        errors = [(rank, a) for rank, a in enumerate(answers) if a[0] != "ready"]
        if errors:
            self.close()
            self._raise(errors)

    def close(self, graceful: bool = True) -> None:
        """Stop the ranks: ask (``graceful``: ranks that are not stuck end their group and exit), then
        terminate, then kill."""
        if graceful:
            for conn in self._conns:
                try:
                    conn.send(None)
                except (OSError, ValueError):
                    pass
            deadline = time.monotonic() + 2
            for proc in self._procs:
                proc.join(max(0.0, deadline - time.monotonic()))
        for proc in self._procs:
            if proc.is_alive():
                proc.terminate()
                proc.join(2)
            if proc.is_alive():
                proc.kill()
                proc.join()
        for conn in self._conns:
            conn.close()
        self._procs, self._conns = [], []
        if self._store_dir:
            shutil.rmtree(self._store_dir, ignore_errors=True)
            self._store_dir = None

    @property
    def pids(self) -> list[int]:
        return [p.pid for p in self._procs]

    # -- one run
    def run(self, fn, *args, timeout: float = RUN_TIMEOUT_S, **kwargs) -> list:
        """``fn(*args, **kwargs)`` on every rank; its results, one per rank. See the module's doc."""
        if not self._procs:
            self._start()
        for conn in self._conns:
            conn.send((fn, args, kwargs))
        answers = self._collect(timeout)
        errors = [(rank, a) for rank, a in enumerate(answers) if a[0] != "ok"]
        if not errors:
            return [a[1] for a in answers]
        # a hang, a death, a distributed error, or ranks that disagree leave the group unusable
        if len(errors) < self.world_size or any(_is_collateral(a[1]) for _, a in errors):
            self.close(graceful=False)
        self._raise(errors)

    def _collect(self, timeout: float) -> list:
        """Each rank's answer (kind, value, traceback): waits until all answered, the deadline passed, or
        GRACE_S after the first error; a rank without an answer by then is reported hung (or dead)."""
        answers: list = [None] * self.world_size
        deadline = time.monotonic() + timeout
        waiting = {conn: rank for rank, conn in enumerate(self._conns)}
        sentinels = {self._procs[rank].sentinel: rank for rank in range(self.world_size)}
        while waiting:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready = multiprocessing.connection.wait(list(waiting) + [s for s, r in sentinels.items()
                                                                      if answers[r] is None], left)
            for obj in ready:
                if obj in waiting:
                    rank = waiting.pop(obj)
                    try:
                        answers[rank] = obj.recv()
                        kind, value, text = answers[rank]
                        if isinstance(value, _Portable):
                            answers[rank] = (kind, value.rebuild(), text)
                    except (EOFError, OSError):
                        answers[rank] = ("error", RankDied(f"rank {rank} died (exit code "
                                                           f"{self._procs[rank].exitcode})"), "")
                    if answers[rank][0] == "error":
                        deadline = min(deadline, time.monotonic() + GRACE_S)
                else:
                    rank = sentinels[obj]
                    if answers[rank] is not None or self._conns[rank].poll():   # it answered, then ended:
                        continue                                                  # read the answer next round
                    waiting.pop(self._conns[rank], None)
                    answers[rank] = ("error", RankDied(f"rank {rank} died (exit code "
                                                       f"{self._procs[rank].exitcode})"), "")
                    deadline = min(deadline, time.monotonic() + GRACE_S)
        for rank in waiting.values():
            answers[rank] = ("error", RankHung(f"rank {rank} gave no answer within {timeout:.0f} s "
                                               f"(or {GRACE_S} s after another rank failed)"), "")
        return answers

    @staticmethod
    def _raise(errors):
        """Raise the failing rank's exception: the first rank whose error is its own, not one it got
        because a peer failed (a collective's timeout, a closed connection, a hang)."""
        own = [(rank, a) for rank, a in errors if not _is_collateral(a[1])]
        rank, (_, exc, text) = (own or errors)[0]
        others = [f"rank {r}: {type(a[1]).__name__}: {a[1]}".splitlines()[0] for r, a in errors if r != rank]
        exc.add_note(f"(raised on rank {rank})")
        if others:
            exc.add_note("other ranks: " + "; ".join(others))
        if text:
            raise exc from RemoteTraceback(f"\n\nrank {rank}'s traceback:\n{text}")
        raise exc


_POOL: Pool | None = None


def pool() -> Pool:
    """The session's pool (spawned on its first run)."""
    global _POOL
    if _POOL is None:
        _POOL = Pool()
    return _POOL


def close() -> None:
    if _POOL is not None:
        _POOL.close()

