"""A module-level name bound twice: the second silently replaces the first for every use,
so a rule written for one pattern runs another (two ``_CONDITION`` patterns in
``write.rules``, two ``_NOT_TAKEN`` in ``write.retract``)."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "logicmem"


def _bound_twice(tree: ast.Module) -> list[str]:
    names: Counter[str] = Counter()
    for node in tree.body:
        if isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names[node.target.id] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] += 1
    return sorted(name for name, count in names.items() if count > 1)


def test_no_module_binds_a_name_twice() -> None:
    found = {
        str(path.relative_to(SRC)): twice
        for path in sorted(SRC.rglob("*.py"))
        if (twice := _bound_twice(ast.parse(path.read_text("utf-8"))))
    }
    assert found == {}


def test_a_name_bound_twice_is_found() -> None:
    assert _bound_twice(ast.parse("A = 1\ndef f(): pass\nA = 2\nB: int = 3\n")) == ["A"]
