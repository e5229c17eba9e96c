"""The package layout is the architecture: imports flow one way through the pipeline's stages,
with no cycles, and every third-party module the code imports is a declared runtime dependency
(and nothing declared goes unused)."""
from __future__ import annotations

import ast
import importlib.metadata
import re
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("card_db", "scanner")

# Lower layers first. A module may import its own layer's modules and any lower layer's;
# the stages of one layer that are siblings (pdf, ocr) do not import each other. `serve` is a
# CLI command, so cli stands on web.
LAYERS: list[tuple[str, ...]] = [
    ("card_db",),
    ("scanner", "scanner.errors", "scanner.vocab", "scanner.model"),
    ("scanner.inputs",),
    ("scanner.layouts",),  # the forms as data, read by both readers
    ("scanner.pdf", "scanner.ocr"),
    ("scanner.appearance",),  # compares what pdf read with the page, by ocr's rendering check
    ("scanner.agreement",),  # the image reader's reading of every page against pdf's
    ("scanner.read",),
    ("scanner.rules",),
    ("scanner.report",),
    ("scanner.event",),
    ("scanner.web",),
    ("scanner.cli",),
]

# Declared dependencies that no module names in an import statement, and why they are needed.
IMPORTED_INDIRECTLY = {
    "python-multipart": "Starlette's form parser (request.form()) imports it",
}


def _modules() -> dict[str, Path]:
    found = {}
    for pkg in PACKAGES:
        for path in (REPO / pkg).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or \
        (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(module: str, path: Path, modules: set[str] = frozenset()) -> set[str]:
    """Every module named by an import in the file (late imports inside functions included;
    imports under `if TYPE_CHECKING:` excluded: they never run). `from pkg import sub` names
    the submodule `pkg.sub` when there is one, else `pkg`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, ast.Import):
                names.update(alias.name for alias in child.names)
            elif isinstance(child, ast.ImportFrom):
                if child.level:  # relative: resolve against this module's package
                    base = module.split(".")
                    if path.name != "__init__.py":
                        base = base[:-1]
                    base = base[:len(base) - child.level + 1]
                    prefix = ".".join(base + ([child.module] if child.module else []))
                else:
                    prefix = child.module or ""
                subs = {f"{prefix}.{alias.name}" for alias in child.names}
                names.update(subs & modules if subs <= modules else subs | {prefix})
            visit(child)

    visit(tree)
    return names


def _graph() -> dict[str, set[str]]:
    mods = _modules()
    graph: dict[str, set[str]] = {}
    for mod, path in mods.items():
        graph[mod] = {name for name in _imports(mod, path, set(mods)) if name in mods and name != mod}
    return graph


def _layer(module: str) -> tuple[int, str]:
    best = (-1, "")
    for level, stages in enumerate(LAYERS):
        for stage in stages:
            if (module == stage or module.startswith(stage + ".")) and len(stage) > len(best[1]):
                best = (level, stage)
    return best


def test_no_import_cycles():
    graph = _graph()
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def dfs(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                dfs(nxt, stack)
        stack.pop()
        state[node] = 2

    sys.setrecursionlimit(10_000)
    for node in sorted(graph):
        if node not in state:
            dfs(node, [])
    assert not cycles, "import cycles: " + "; ".join(" → ".join(c) for c in cycles)


def test_imports_flow_down_the_pipeline():
    wrong = []
    for mod, targets in _graph().items():
        level, stage = _layer(mod)
        for target in targets:
            t_level, t_stage = _layer(target)
            if t_level > level or (t_level == level and t_stage != stage and level > 1):
                wrong.append(f"{mod} ({stage}) imports {target} ({t_stage})")
    assert not wrong, "\n".join(sorted(wrong))


def test_card_db_imports_nothing_of_scanner():
    graph = _graph()
    bad = sorted(f"{m} → {t}" for m, ts in graph.items() if m.startswith("card_db")
                 for t in ts if t.startswith("scanner"))
    assert not bad


def _declared() -> dict[str, str]:
    """Declared runtime dependencies: normalised distribution name → the requirement."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    out = {}
    for req in project["dependencies"]:
        name = re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0]
        out[_norm(name)] = req
    return out


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_runtime_import_is_a_declared_dependency_and_every_dependency_is_used():
    mods = _modules()
    top_level: dict[str, set[str]] = defaultdict(set)
    for mod, path in mods.items():
        for name in _imports(mod, path):
            top = name.split(".")[0]
            if top and top not in PACKAGES and top not in sys.stdlib_module_names \
                    and top != "__future__":
                top_level[top].add(mod)
    dists = importlib.metadata.packages_distributions()
    declared = _declared()
    used: set[str] = set()
    undeclared = []
    for top, users in sorted(top_level.items()):
        names = {_norm(d) for d in dists.get(top, [])}
        if not names & declared.keys():
            undeclared.append(f"{top} (imported by {', '.join(sorted(users))}; "
                              f"distribution {sorted(names) or 'not installed'})")
        used |= names & declared.keys()
    assert not undeclared, "imported but not in [project].dependencies: " + "; ".join(undeclared)
    unused = sorted(set(declared) - used - {_norm(n) for n in IMPORTED_INDIRECTLY})
    assert not unused, f"declared but never imported: {unused}"


def test_the_architecture_page_is_one_screen_and_names_every_stage():
    page = (REPO / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    assert len(page.splitlines()) <= 45
    stages = sorted(p.parent.name for p in (REPO / "scanner").glob("*/__init__.py"))
    missing = [s for s in stages if f"  {s}/" not in page]
    assert not missing, f"docs/ARCHITECTURE.md does not name {missing}"
