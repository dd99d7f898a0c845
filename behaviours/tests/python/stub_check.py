"""Compares `robot.pyi` with the real `robot` module (run inside the embedded interpreter by
tests/stubs.rs): every public name of the module, of its classes and of the records a blackboard
holds must be in the stub, and the stub must name nothing that does not exist."""

import ast

import robot

# The scope of the module itself in the dictionaries below.
MODULE = "robot"


def _public(names):
    return {name for name in names if not name.startswith("_")}


def _records(value, found):
    """Every named tuple reachable from `value`, by class name: the set of its fields."""
    fields = getattr(type(value), "_fields", None)
    if isinstance(value, tuple) and fields is not None:
        found.setdefault(type(value).__name__, set()).update(fields)
        for item in value:
            _records(item, found)
    elif isinstance(value, tuple):
        for item in value:
            _records(item, found)


def real_api(blackboard):
    """The public names of the real module: {scope: names}."""
    api = {MODULE: _public(dir(robot))}
    request = robot.BehaviourRequest()
    instances = {
        "BehaviourRequest": request,
        "Body": request.body,
        "Head": request.head,
        "Leds": request.leds,
        "Sound": request.sound,
        "Team": request.team,
        "Log": robot.log,
        "Blackboard": blackboard,
    }
    base = _public(dir(object))
    for name, instance in instances.items():
        assert type(instance).__name__ == name, (name, type(instance))
        api[name] = _public(dir(instance)) - base
    api["TickTimeout"] = _public(dir(robot.TickTimeout)) - _public(dir(BaseException))
    for name in api["Blackboard"]:
        _records(getattr(blackboard, name), api)
    _records(robot.JOINTS, api)
    return api


def stub_api(source, filename):
    """The names `robot.pyi` declares: {scope: names}."""
    tree = ast.parse(source, filename)
    api = {MODULE: set()}

    def names_in(body):
        names = set()
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        return _public(names)

    api[MODULE] = names_in(tree.body)
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            api[node.name] = names_in(node.body)
    return api


def differences(source, filename, blackboard):
    """What the stub lacks and what it names in vain, as readable lines (empty: in step)."""
    real = real_api(blackboard)
    stub = stub_api(source, filename)
    problems = []
    for scope in sorted(real):
        if scope not in stub:
            problems.append(f"{filename}: no class {scope} (fields {sorted(real[scope])})")
            continue
        for name in sorted(real[scope] - stub[scope]):
            problems.append(f"{filename}: {scope}.{name} exists but the stub does not name it")
    for scope in sorted(stub):
        if scope not in real:
            problems.append(f"{filename}: class {scope} is in the stub but not in robot")
            continue
        for name in sorted(stub[scope] - real[scope]):
            if scope == MODULE and name in real:
                continue
            problems.append(f"{filename}: {scope}.{name} is in the stub but does not exist")
    return problems
