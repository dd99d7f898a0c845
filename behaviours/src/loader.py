"""Cortex's behaviour loader (runs inside the cognition process; see behaviours/src/engine.rs).

Loading is two-phase so that a broken edit never replaces working code:

1. ``compile_tree`` compiles every ``.py`` file of the behaviour folder from source. Any syntax
   error fails the whole load.
2. ``Loader.load`` imports the entry module from those code objects, with every module of the
   folder taken out of ``sys.modules`` first, so that all of them are executed anew. If any
   import or top-level statement raises, the previous modules are put back and the running code
   stays.

Modules are served from the compiled code objects by a meta-path finder: nothing is read from
disk during the import and no ``.pyc`` file is read or written.

``harden`` (once per process) makes faults in the behaviour attributable and bounded: a Python
stack dump on a fatal signal (``faulthandler``), ``os._exit`` logs where it was called, threads,
``fork`` and signal handling are refused (a behaviour runs inside its tick, nowhere else), and
the tick watchdog can wake a blocking call (``time.sleep``) with a signal when the behaviour runs
in the main thread. ``restore`` (before every load) undoes what a broken behaviour may have
changed for good (the ``robot`` module, the builtins, the handlers).
"""

import _thread
import faulthandler
import importlib.abc
import importlib.util
import os
import signal
import sys
import traceback

import robot

# Set by the tick watchdog (with the GIL held) just before it sends INTERRUPT_SIGNAL; cleared
# when the watched section ends. The handler raises only while it is set.
interrupt_pending = [False]
INTERRUPT_SIGNAL = signal.SIGUSR2
# The thread whose blocking calls the signal can wake (the main thread), 0: none.
interrupt_thread = 0


def _on_interrupt(signum, frame):
    if interrupt_pending[0]:
        interrupt_pending[0] = False
        raise robot.TickTimeout("interrupted by the tick watchdog")


# The original, before anyone replaced it (this module may be executed more than once).
_real_signal = getattr(signal, "_cortex_real_signal", signal.signal)
signal._cortex_real_signal = _real_signal


class SignalsRefused(RuntimeError):
    """A behaviour tried to change how cognition handles signals."""


def _refuse_signal(*args, **kwargs):
    raise SignalsRefused(
        "a behaviour may not change signal handling (signal.signal, alarm, setitimer, "
        "pthread_sigmask): cognition's stop, the tick watchdog and the crash reports use signals"
    )


def _refuse_signals():
    for name in ("signal", "alarm", "setitimer", "pthread_sigmask", "siginterrupt"):
        if hasattr(signal, name):
            setattr(signal, name, _refuse_signal)


class ThreadsRefused(RuntimeError):
    """A behaviour tried to start a thread."""


def _refuse_thread(*args, **kwargs):
    raise ThreadsRefused(
        "a behaviour may not start threads (or fork): they would keep running Python after a "
        "reload or an error; do the work inside tick(blackboard)"
    )


# What a behaviour may have changed for good, put back before every load: the `robot` module's
# names and the builtins (a fixed file must not inherit a broken one's monkey-patching).
_pristine = {}
_MISSING = object()
# `os._exit` as `harden` wrapped it (it prints the caller's stack first).
_exit_wrapper = None


def _enable_faulthandler():
    try:
        faulthandler.enable(file=sys.stderr, all_threads=True)
    except (AttributeError, ValueError, OSError, RuntimeError):
        faulthandler.enable(file=2, all_threads=True)


def restore(_vars=vars, _list=list, _setattr=setattr, _delattr=delattr):
    """Undoes what a previous behaviour may have changed in the process (before each load and
    after a failed one): `robot` and the builtins as they were, the fault handler, the watchdog's
    signal handler and the refusal of threads. The builtins it needs are bound at definition:
    a behaviour may have deleted them."""
    import builtins

    for module, names in ((robot, _pristine.get("robot")), (builtins, _pristine.get("builtins"))):
        if names is None:
            continue
        for name in _list(_vars(module)):
            if name not in names:
                _delattr(module, name)
        for name, value in names.items():
            if _vars(module).get(name, _MISSING) is not value:
                _setattr(module, name, value)
    sys.modules["robot"] = robot
    if _exit_wrapper is not None:
        os._exit = _exit_wrapper
    _enable_faulthandler()
    _refuse_threads()
    if interrupt_thread and _thread.get_ident() == interrupt_thread:
        _real_signal(INTERRUPT_SIGNAL, _on_interrupt)
    _refuse_signals()



def _refuse_threads():
    # A forked copy of cognition would run the behaviour's Python on after a reload, too.
    for name in ("fork", "forkpty"):
        if hasattr(os, name):
            setattr(os, name, _refuse_thread)
    for module in (_thread, sys.modules.get("threading")):
        if module is None:
            continue
        for name in (
            "start_new_thread",
            "start_new",
            "start_joinable_thread",
            "_start_new_thread",
            "_start_joinable_thread",
        ):
            if hasattr(module, name):
                setattr(module, name, _refuse_thread)


def harden():
    """Sets `interrupt_thread` when the tick watchdog may interrupt with INTERRUPT_SIGNAL (the
    main thread only)."""
    global interrupt_thread, _exit_wrapper
    import builtins

    _pristine["robot"] = dict(vars(robot))
    _pristine["builtins"] = dict(vars(builtins))
    _enable_faulthandler()

    real_exit = getattr(os, "_cortex_real_exit", os._exit)
    os._cortex_real_exit = real_exit

    def _exit(status=0):
        sys.stderr.write(
            f"cortex: the behaviour called os._exit({status}); cognition ends here:\n"
        )
        traceback.print_stack(sys._getframe(1), file=sys.stderr)
        sys.stderr.flush()
        real_exit(status)

    _exit_wrapper = _exit
    os._exit = _exit
    _refuse_threads()

    try:
        _real_signal(INTERRUPT_SIGNAL, _on_interrupt)
    except ValueError:
        # Not the main thread: the watchdog uses an asynchronous exception only.
        _refuse_signals()
        return
    interrupt_thread = _thread.get_ident()
    _refuse_signals()


def _relative(path, root):
    try:
        relative = os.path.relpath(path, root)
    except ValueError:
        return path
    return path if relative.startswith("..") else relative


def summarize(error, root):
    """One line for `cortex status`: `behaviour.py:12: ZeroDivisionError: division by zero`,
    naming the innermost frame inside the behaviour folder."""
    root = os.path.abspath(root)
    where = ""
    if isinstance(error, SyntaxError) and error.filename:
        where = f"{_relative(error.filename, root)}:{error.lineno}: "
    else:
        frames = traceback.extract_tb(error.__traceback__)
        inside = [
            frame
            for frame in frames
            if os.path.abspath(frame.filename).startswith(root + os.sep)
        ]
        if inside or frames:
            frame = (inside or frames)[-1]
            where = f"{_relative(frame.filename, root)}:{frame.lineno}: "
    text = str(error).strip().splitlines()
    name = type(error).__name__
    return f"{where}{name}: {text[0]}" if text else f"{where}{name}"


def compile_tree(root):
    """Returns ({module name: (path, code, is_package)}, [error text, ...])."""
    restore()
    table = {}
    errors = []

    def visit(folder, prefix):
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError as error:
            errors.append(f"{folder}: {error}")
            return
        for entry in entries:
            name = entry.name
            if name.startswith(".") or name == "__pycache__":
                continue
            # A linked folder is not followed: a link to a parent would never end.
            if entry.is_dir(follow_symlinks=False):
                if name.isidentifier():
                    visit(entry.path, prefix + name + ".")
                continue
            if not name.endswith(".py"):
                continue
            stem = name[:-3]
            if not stem.isidentifier():
                continue
            try:
                with open(entry.path, "rb") as file:
                    source = file.read()
                code = compile(source, entry.path, "exec", dont_inherit=True)
            except SyntaxError as error:
                errors.append(
                    f"{_relative(error.filename or entry.path, root)}:{error.lineno}:"
                    f"{error.offset or 0}: "
                    f"{type(error).__name__}: {error.msg}"
                )
                continue
            except (OSError, ValueError) as error:
                errors.append(f"{entry.path}: {error}")
                continue
            if stem == "__init__":
                table[prefix[:-1]] = (entry.path, code, True)
            else:
                table[prefix + stem] = (entry.path, code, False)

    visit(root, "")
    # A folder of modules without __init__.py is still a package (as in Python 3).
    for module in list(table):
        parts = module.split(".")
        for depth in range(1, len(parts)):
            package = ".".join(parts[:depth])
            if package not in table:
                path = os.path.join(root, *parts[:depth], "__init__.py")
                table[package] = (path, compile("", path, "exec"), True)
    return table, errors


class _CodeLoader(importlib.abc.Loader):
    def __init__(self, code):
        self.code = code

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.code, module.__dict__)


class _Finder(importlib.abc.MetaPathFinder):
    def __init__(self):
        self.table = {}

    def find_spec(self, fullname, path=None, target=None):
        entry = self.table.get(fullname)
        if entry is None:
            return None
        file, code, is_package = entry
        spec = importlib.util.spec_from_loader(
            fullname, _CodeLoader(code), origin=file, is_package=is_package
        )
        spec.has_location = True
        if is_package:
            spec.submodule_search_locations = [os.path.dirname(file)]
        return spec


class Loader:
    """The modules of one behaviour folder."""

    def __init__(self):
        self.finder = _Finder()
        sys.meta_path.insert(0, self.finder)

    def load(self, table, entry):
        """Imports `entry` from `table`; returns its `tick`. On failure, restores the old modules."""
        if entry not in table:
            raise ImportError(f"the behaviour folder has no {entry}.py")
        # A behaviour file named like a module cognition already uses (`os.py`, `robot.py`)
        # would replace that module for the whole process.
        shadowing = sorted(
            name
            for name in table
            if "." not in name and name in sys.modules and name not in self.finder.table
        )
        if shadowing:
            raise ImportError(
                "the behaviour's "
                + ", ".join(f"`{table[name][0]}`" for name in shadowing)
                + " would replace the module(s) "
                + ", ".join(f"`{name}`" for name in shadowing)
                + " that cognition already uses; rename the file(s)"
            )
        old_table = self.finder.table
        owned = set(old_table) | set(table)
        old_modules = {name: sys.modules.pop(name) for name in owned if name in sys.modules}
        self.finder.table = table
        try:
            module = importlib.import_module(entry)
            tick = getattr(module, "tick", None)
            if not callable(tick):
                raise AttributeError(f"{module.__file__} defines no function tick(blackboard)")
        except BaseException:
            restore()
            for name in owned:
                sys.modules.pop(name, None)
            sys.modules.update(old_modules)
            self.finder.table = old_table
            raise
        return tick

    def unload(self):
        """Drops the behaviour's modules and collects them (after a MemoryError)."""
        import gc

        for name in self.finder.table:
            sys.modules.pop(name, None)
        gc.collect()

    def close(self):
        for name in self.finder.table:
            sys.modules.pop(name, None)
        self.finder.table = {}
        if self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)
