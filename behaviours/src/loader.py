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
"""

import importlib.abc
import importlib.util
import os
import sys


def compile_tree(root):
    """Returns ({module name: (path, code, is_package)}, [error text, ...])."""
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
            if entry.is_dir():
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
                    f"{error.filename}:{error.lineno}:{error.offset or 0}: "
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
            for name in owned:
                sys.modules.pop(name, None)
            sys.modules.update(old_modules)
            self.finder.table = old_table
            raise
        return tick

    def close(self):
        for name in self.finder.table:
            sys.modules.pop(name, None)
        self.finder.table = {}
        if self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)
