"""The layout is the architecture: every module's imports point down the layer table, never back up,
and no modules import each other in a circle. Checked with ``ast`` over every module of the package
(function-level imports included: a lazy import is still an arrow)."""
import ast
import importlib
import pathlib
import subprocess
import sys

import pytest

import infersim

PKG = pathlib.Path(infersim.__file__).parent

#: Layers from the bottom up; a module may import its own layer and the ones below it.
LAYERS = [
    ("foundation", ["infersim.errors", "infersim.version"]),
    ("specs", ["infersim.specs"]),
    ("loaders", ["infersim.loaders"]),
    ("presets", ["infersim.presets"]),
    ("cost", ["infersim.cost"]),
    ("report", ["infersim.report"]),
    ("simulate", ["infersim.simulate"]),
    ("search", ["infersim.search"]),
    ("serving", ["infersim.serving"]),
    ("codesign", ["infersim.codesign"]),
    ("validation", ["infersim.validation"]),
    ("answers", ["infersim.verdict", "infersim.exports"]),
    ("api", ["infersim", "infersim.auto_explore", "infersim.autosuggest", "infersim.auto_hardware",
             "infersim.model_presets", "infersim.hardware_presets", "infersim.runtime"]),
    ("cli", ["infersim.cli", "infersim.__main__"]),
    ("ui", ["infersim.ui"]),
]
#: Layers that must not import each other although one sits above the other (siblings).
FORBIDDEN = {("ui", "cli")}
#: The public re-export modules (the design reference's names) and what they must hand on.
PUBLIC = {
    "infersim.auto_explore": ["auto_explore", "ExploreResult", "OBJECTIVES"],
    "infersim.autosuggest": ["autosuggest", "Suggestion"],
    "infersim.auto_hardware": ["HardwareCandidate", "JointScore", "_HW_KNOB_DEFAULTS", "enumerate_hardware",
                               "joint_explore"],
    "infersim.model_presets": ["PRESETS", "get_model", "DEFAULT_MODEL"],
    "infersim.hardware_presets": ["HW_PRESETS", "GENERIC_SIP", "DEFAULT_HW", "get_hardware", "read_hardware_file"],
    "infersim.serving": ["Request", "serve", "sla_search", "ServeResult", "SLAResult"],
    "infersim.runtime": ["RUNTIMES", "Runtime", "DEFAULT_RUNTIME", "get_runtime"],
}


def module_name(path: pathlib.Path) -> str:
    parts = ("infersim",) + path.relative_to(PKG).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules() -> dict[str, pathlib.Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def imports_of(name: str, path: pathlib.Path, known: set[str]) -> set[str]:
    """The infersim modules ``name`` imports (``from a import b`` counts ``a.b`` when it is a module)."""
    is_pkg = path.name == "__init__.py"
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "infersim"}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parent = name.split(".") if is_pkg else name.split(".")[:-1]
                parent = parent[:len(parent) - node.level + 1]
                base = ".".join(parent + ([node.module] if node.module else []))
            if base.split(".")[0] != "infersim":
                continue
            subs = {f"{base}.{a.name}" for a in node.names} & known
            out |= subs or {base}
    return out - {name}


def layer_of(name: str) -> int:
    best, rank = -1, None
    for i, (_, prefixes) in enumerate(LAYERS):
        for p in prefixes:
            # "infersim" itself names the root package only, not everything under it
            if (name == p or (p != "infersim" and name.startswith(p + "."))) and len(p) > best:
                best, rank = len(p), i
    assert rank is not None, f"{name} is in no layer of the table: add it"
    return rank


def graph() -> dict[str, set[str]]:
    mods = modules()
    return {n: imports_of(n, p, set(mods)) for n, p in mods.items()}


def back_arrows(g: dict[str, set[str]]) -> list[str]:
    bad = []
    for a, deps in g.items():
        for b in deps:
            la, lb = layer_of(a), layer_of(b)
            if lb > la or (LAYERS[la][0], LAYERS[lb][0]) in FORBIDDEN:
                bad.append(f"{a} ({LAYERS[la][0]}) imports {b} ({LAYERS[lb][0]})")
    return sorted(bad)


def circles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in list(g):
        if v not in index:
            visit(v)
    return out


def test_every_module_is_in_a_layer():
    for name in modules():
        layer_of(name)


def test_imports_point_down_the_layers():
    assert back_arrows(graph()) == []


def test_no_import_circles():
    assert circles(graph()) == []


def test_the_check_would_catch_a_back_arrow_and_a_circle():
    g = graph()
    g["infersim.specs.model"] = g["infersim.specs.model"] | {"infersim.loaders.hf_config"}
    assert back_arrows(g) == ["infersim.specs.model (specs) imports infersim.loaders.hf_config (loaders)"]
    g["infersim.ui.app"] = g["infersim.ui.app"] | {"infersim.cli.common"}
    assert "infersim.ui.app (ui) imports infersim.cli.common (cli)" in back_arrows(g)
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_package_says_what_it_may_import():
    for init in PKG.rglob("__init__.py"):
        doc = ast.get_docstring(ast.parse(init.read_text())) or ""
        name = module_name(init)
        if name in ("infersim", "infersim.validation.data"):
            continue
        assert "may import" in doc.lower(), f"{name}'s docstring does not say what the layer may import"


@pytest.mark.parametrize("module, names", sorted(PUBLIC.items()))
def test_public_modules_hand_on_their_names(module, names):
    mod = importlib.import_module(module)
    for n in names:
        assert hasattr(mod, n), f"{module}.{n}"


def test_public_names_are_the_real_objects():
    from infersim.auto_hardware import joint_explore
    from infersim.codesign import auto_hardware
    from infersim.hardware_presets import HW_PRESETS
    from infersim.presets import hardware_presets

    assert joint_explore is auto_hardware.joint_explore and HW_PRESETS is hardware_presets.HW_PRESETS


def test_root_exports_the_guides_functions():
    """``from infersim import autosuggest`` is the function, not the module, whatever was imported first."""
    code = ("import infersim.autosuggest, infersim.auto_explore, inspect\n"
            "from infersim import (auto_explore, autosuggest, joint_explore, serve, sla_search, simulate,\n"
            "    Request, Runtime, RUNTIMES, model_from_hf_config)\n"
            "assert all(inspect.isfunction(f) for f in (auto_explore, autosuggest, joint_explore, serve,\n"
            "    sla_search, simulate, model_from_hf_config)), 'a module where a function belongs'\n"
            "from infersim.autosuggest import autosuggest as a\n"
            "assert a is autosuggest\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
