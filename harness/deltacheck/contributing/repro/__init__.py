"""A standalone reproduction: one fixture's bytes fed to one library, runnable without deltacheck.

The script is built from a template per language (python.tmpl, node.tmpl beside this file) and the
bundled adapter's own source (the Python adapter module, or the Node driver), so it runs the very
code path and mapping the harness ran and prints the same observed result; only the adapter's
imports of deltacheck are answered by small stand-ins (and, for Node, the inlined replay helpers).
"""

from __future__ import annotations

import ast
import base64
import importlib.util
import inspect
import json
import re
import shlex
from itertools import accumulate
from pathlib import Path

from deltacheck.driver.messages import run_request
from deltacheck.judge.compare import pretty
from deltacheck.model import AssemblyRequest, Fixture
from deltacheck.protocols import protocol

TEMPLATES = Path(__file__).resolve().parent
# Printed on the line before the assembled result, so a reader (or a test) can find it after
# whatever the library itself writes to stdout.
MARKER = "--- what the library assembled (deltacheck canonical form) ---"

REPRO_LANGUAGES = ("python", "node")  # one template each, beside this file


class ReproUnavailable(Exception):
    """No reproduction can be written for this adapter and language; the message says why."""


def reproduction(
    fixture: Fixture,
    citation: str,
    language: str,
    adapter_name: str | None,
    adapter_cmd: list[str] | None = None,
    startup_timeout: float = 30.0,
) -> str:
    """The script's text for `fixture` through `adapter_name` (a bundled adapter, the default one, or a
    `MODULE:CLASS` / `file.py:CLASS` adapter of your own), or through the driver command `adapter_cmd`."""
    from deltacheck.adapter import is_adapter_spec

    if adapter_cmd is not None:
        return _driver_script(fixture, citation, language, adapter_cmd, startup_timeout)
    if adapter_name is not None and is_adapter_spec(adapter_name):
        return _own_adapter_script(fixture, citation, language, adapter_name)
    return _bundled_script(fixture, citation, language, adapter_name)


def _bundled_script(fixture: Fixture, citation: str, language: str, adapter_name: str | None) -> str:
    from deltacheck.adapter import registered_adapters
    from deltacheck.driver.external import ExternalAdapter

    name = adapter_name or _default_adapter(fixture, language)
    registry = registered_adapters()
    factory = registry.get(name)
    if not isinstance(factory, ExternalAdapter):
        bundled = sorted(
            n for n, f in registry.items() if isinstance(f, ExternalAdapter) and f.manifest.language == language
        )
        why = (
            "it is deltacheck's own (no third-party library to reproduce with)"
            if factory is not None
            else "it is not a bundled adapter"
        )
        raise ReproUnavailable(
            f"--adapter {name}: --repro cannot reproduce it, {why}; bundled {language} adapters: "
            f"{', '.join(bundled)}; an adapter of your own: --adapter path/to/file.py:CLASS or --adapter-cmd COMMAND"
        )
    manifest = factory.manifest
    if manifest.language != language:
        if manifest.language not in REPRO_LANGUAGES:
            raise ReproUnavailable(
                f"--adapter {name} is a {manifest.language} driver; reproductions are written for "
                f"{' and '.join(REPRO_LANGUAGES)} adapters only (run it with `deltacheck run`)"
            )
        raise ReproUnavailable(f"--adapter {name} is a {manifest.language} adapter; use --repro {manifest.language}")
    hello = _hello(factory)
    if hello is not None and fixture.protocol not in hello.protocols:
        raise ReproUnavailable(
            f"fixture {fixture.id} is {fixture.protocol}, which adapter {name!r} does not speak "
            f"(it speaks {', '.join(sorted(hello.protocols))})"
        )
    library = f"{hello.library} {hello.version}" if hello else "the library at the versions pinned on the Install line"
    request = _request_on_its_wire(fixture, name, manifest.transport)
    if language == "python":
        module_name, _, class_name = str(manifest.entry).partition(":")
        source_path = _module_file(module_name)
        code_path = hello.code_path if hello else _python_code_path(source_path, class_name)
        label = f"deltacheck/adapters/{source_path.parent.name}/{source_path.name}"
        language_fields = _python(fixture, request, source_path, class_name, label)
    else:
        language_fields = _node(fixture, manifest, request)
        code_path = hello.code_path if hello else _node_code_path(manifest)
    fields = _common_fields(fixture, request, citation, language, library, code_path)
    fields.update(ADAPTER=name, INSTALL=_install_command(manifest), **language_fields)
    return _fill((TEMPLATES / f"{language}.tmpl").read_text(encoding="utf-8"), fields)


def _own_adapter_script(fixture: Fixture, citation: str, language: str, spec: str) -> str:
    """Your in-process Python adapter (`MODULE:CLASS` or `file.py:CLASS`), its module inlined as a bundled one's is."""
    from deltacheck.adapter import get_adapter_factory
    from deltacheck.errors import BadAdapterSpec

    if language != "python":
        raise ReproUnavailable(f"--adapter {spec} is an in-process Python adapter; use --repro python")
    try:
        cls = get_adapter_factory(spec)
    except BadAdapterSpec as exc:
        raise ReproUnavailable(str(exc)) from None
    assert isinstance(cls, type)  # a spec always names an in-process Adapter class
    if fixture.protocol not in cls.protocols:
        raise ReproUnavailable(
            f"fixture {fixture.id} is {fixture.protocol}, which adapter {spec!r} does not speak "
            f"(it speaks {', '.join(sorted(cls.protocols))})"
        )
    source = inspect.getsourcefile(cls)
    if source is None:
        raise ReproUnavailable(f"--adapter {spec}: the source of {cls.__qualname__} is not a file the script can carry")
    source_path = Path(source)
    request = _request_on_its_wire(fixture, spec, cls.transport)
    fields = _common_fields(fixture, request, citation, language, f"{cls.library} {cls.version}", cls.code_path)
    fields.update(
        ADAPTER=spec,
        INSTALL=f"{cls.library} {cls.version} (the library your adapter imports), plus whatever else it imports",
        **_python(fixture, request, source_path, cls.__name__, source_path.name),
    )
    return _fill((TEMPLATES / "python.tmpl").read_text(encoding="utf-8"), fields)


def _driver_script(fixture: Fixture, citation: str, language: str, command: list[str], startup_timeout: float) -> str:
    """A Python script that starts your driver command and speaks the driver protocol for this one fixture."""
    from deltacheck.driver.subprocess_adapter import SubprocessAdapter
    from deltacheck.errors import DriverFailed

    if language != "python":
        raise ReproUnavailable(
            "--adapter-cmd: the script that starts a driver command is written in Python, whatever the "
            "driver's language; use --repro python"
        )
    try:
        with SubprocessAdapter(command, startup_timeout=startup_timeout) as driver:
            hello = driver.start()
    except (DriverFailed, OSError) as exc:
        raise ReproUnavailable(f"--adapter-cmd: {exc}") from None
    if fixture.protocol not in hello.protocols:
        raise ReproUnavailable(
            f"fixture {fixture.id} is {fixture.protocol}, which the driver {hello.name!r} does not speak "
            f"(it speaks {', '.join(sorted(hello.protocols))})"
        )
    fields = _common_fields(
        fixture, fixture.request(), citation, language, f"{hello.library} {hello.version}", hello.code_path
    )
    fields.update(
        COMMAND=repr(command),
        COMMAND_TEXT=shlex.join(command),
        REQUEST=repr(json.dumps(run_request(0, fixture.request()), ensure_ascii=False)),
        TIMEOUT="60",
    )
    return _fill((TEMPLATES / "driver.tmpl").read_text(encoding="utf-8"), fields)


def _request_on_its_wire(fixture: Fixture, adapter: str, transport: str | None) -> AssemblyRequest:
    """The request the adapter is run with: on the transport it reads, if it declares one."""
    problem = fixture.transport_problem(transport)
    if problem is not None:
        raise ReproUnavailable(f"fixture {fixture.id} is n/a for adapter {adapter!r}: {problem}")
    return fixture.request(transport)


def _common_fields(
    fixture: Fixture, request: AssemblyRequest, citation: str, language: str, library: str, code_path: str
) -> dict[str, str]:
    """What every script carries: the citation, the library and its code path, the expected result and the check."""
    body_keys = ("chunks", "sse", "body_base64")  # the script spells the body out itself (SSE)
    wire = {k: v for k, v in run_request(0, request)["request"].items() if k not in body_keys}
    if request.binary and language == "python" and "sse_cuts" not in wire:
        # One read per message, as the driver's AssemblyRequest cuts a binary body with its framing (which the
        # script's stand-in cannot import).
        wire["sse_cuts"] = list(accumulate(len(piece) for piece in request.sse_pieces()))[:-1]
    return {
        "CITATION": citation,
        "TITLE": fixture.title,
        "LIBRARY": library,
        "CODE_PATH": " ".join(code_path.split()),
        "MARKER": MARKER,
        "EXPECTED": _comment(_expected_text(fixture), "#" if language == "python" else "//"),
        "WIRE": json.dumps(wire, ensure_ascii=False) if language == "node" else repr(wire),
        "CHECK": _check(fixture, language),
    }


def _check(fixture: Fixture, language: str) -> str:
    """The comparison the script runs, with the fixture's outcomes as deltacheck normalises them."""
    from deltacheck.judge.compare import normalised
    from deltacheck.judge.verdict import PROGRAMMING_ERRORS

    outcomes = ([["expected result", fixture.expected]] if fixture.expected is not None else []) + [
        [f"acceptable outcome {i} ({a['description']})", a["result"]] for i, a in enumerate(fixture.acceptable)
    ]
    outcomes = [[label, normalised(result, fixture.protocol)] for label, result in outcomes]
    raises = []
    if fixture.rejection:
        raises.append([fixture.rejection["matches"], f"the recommended rejection: {fixture.rejection['reason']}"])
    if fixture.raise_acceptable and fixture.raise_matches:
        raises.append([fixture.raise_matches, fixture.raise_acceptable])
    values = {
        "OUTCOMES": json.dumps(outcomes, ensure_ascii=False),
        "ACCEPTED_RAISES": json.dumps(raises, ensure_ascii=False),
        "PROGRAMMING_ERRORS": json.dumps(sorted(PROGRAMMING_ERRORS)),
    }
    if language == "python":
        values = {key: repr(value) for key, value in values.items()}  # json.loads of a str literal
        values["EMPTY_PARTS_OMITTED"] = repr(protocol(fixture.protocol).empty_parts_omitted)
        values["PLAIN_TEXT_PARTS_JOIN"] = repr(protocol(fixture.protocol).plain_text_parts_join)
    else:
        values["EMPTY_PARTS_OMITTED"] = json.dumps(protocol(fixture.protocol).empty_parts_omitted)
        values["PLAIN_TEXT_PARTS_JOIN"] = json.dumps(protocol(fixture.protocol).plain_text_parts_join)
    suffix = "py" if language == "python" else "mjs"
    return _fill((TEMPLATES / f"check.{suffix}.tmpl").read_text(encoding="utf-8"), values).rstrip()


def _python_code_path(source_path: Path, class_name: str) -> str:
    """The adapter class's `code_path`, read from its source (its library is not installed here)."""
    classes = {
        n.name: n for n in ast.parse(source_path.read_text(encoding="utf-8")).body if isinstance(n, ast.ClassDef)
    }
    pending = [class_name]
    while pending:
        node = classes.get(pending.pop(0))
        if node is None:
            continue
        for statement in node.body:
            if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
                continue
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(isinstance(t, ast.Name) and t.id == "code_path" for t in targets):
                try:
                    return str(ast.literal_eval(statement.value))
                except ValueError:
                    break
        pending += [base.id for base in node.bases if isinstance(base, ast.Name)]
    return f"printed by the script when it runs (`{class_name}.code_path`)"


def _node_code_path(manifest) -> str:
    """The driver's `code_path` for its mode, read from its source when it is plain string literals."""
    driver = manifest.folder / manifest.command[1]
    text = driver.read_text(encoding="utf-8")
    sources = [text] + [
        (driver.parent.parent / "common" / name).read_text(encoding="utf-8")
        for name in _COMMON_IMPORT.findall(text)
        if name not in _COMMON_HELPERS
    ]
    mode = manifest.command[2] if len(manifest.command) > 2 else None
    literal = r"'(?:[^'\\\n]|\\.)*'"
    for source in sources:
        # A driver with a table of modes: the mode's entry; a driver of one implementation: its only code_path.
        blocks = [source] if len(re.findall(r"\bcode_path:", source)) == 1 else []
        for entry in re.finditer(rf"^(\s*)'?{re.escape(mode or '')}'?\s*:\s*\{{", source, re.MULTILINE):
            end = source.find("\n" + entry.group(1).lstrip("\n") + "}", entry.end())
            blocks.insert(0, source[entry.end() : end])
        block = next((b for b in blocks if "code_path:" in b), None) if mode or blocks else None
        if block is None:
            continue
        found = re.match(rf"code_path:\s*((?:{literal}\s*\+?\s*)+)(?=[,\n}}])", block[block.find("code_path:") :])
        if found:
            pieces = re.findall(literal, found.group(1))
            return "".join(piece[1:-1] for piece in pieces).replace("\\'", "'")
    return "printed by the script when it runs (the driver's `code_path`)"


def _default_adapter(fixture: Fixture, language: str) -> str:
    """The provider's own SDK in that language, as the fixture's protocol package names it (`reproduction`)."""
    declared = protocol(fixture.protocol).optional_part("reproduction")
    name = declared.DEFAULT_ADAPTERS.get(language) if declared is not None else None
    if name is None:
        raise ReproUnavailable(
            f"fixture {fixture.id} is {fixture.protocol}, for which no bundled {language} adapter is "
            "the default; name one with --adapter"
        )
    return name


def _hello(factory):
    """The driver's hello (library and exact version) when its environment is built and it starts; else None:
    the script is written all the same, naming the pinned versions instead."""
    from deltacheck.errors import DriverFailed, EnvironmentFailed

    try:
        return factory.probe() if factory.env_state() == "ready" else None
    except (DriverFailed, EnvironmentFailed, OSError):
        return None


def _install_command(manifest) -> str:
    """What the script imports, at the versions the adapter pins (its direct pins, not the frozen rest)."""
    if manifest.language == "python":
        from deltacheck.driver.envs import direct_requirements

        pins = direct_requirements((manifest.folder / manifest.requirements).read_text(encoding="utf-8"))
        return "pip install " + " ".join(f"'{pin}'" if any(c in pin for c in "<>[]") else pin for pin in pins)
    package = json.loads((manifest.folder / "package.json").read_text(encoding="utf-8"))
    return "npm install " + " ".join(f"{name}@{version}" for name, version in package.get("dependencies", {}).items())


def _fill(template: str, fields: dict[str, str]) -> str:
    # One pass, so text inside a field (the adapter source, the stream) is never read as a placeholder.
    return re.sub(r"@@([A-Z_]+)@@", lambda m: fields[m.group(1)], template)


def _expected_text(fixture: Fixture) -> str:
    if rejected := fixture.rejection:
        return f"a rejection of the stream: an error matching /{rejected['matches']}/ ({rejected['reason']})"
    return pretty(fixture.expected)


def _comment(text: str, prefix: str) -> str:
    return "\n".join(f"{prefix}   {line}".rstrip() for line in text.rstrip().splitlines())


# -- Python --------------------------------------------------------------------------------------


def _python(
    fixture: Fixture, request: AssemblyRequest, source_path: Path, class_name: str, adapter_file: str
) -> dict[str, str]:
    source = source_path.read_text(encoding="utf-8")
    _check_imports(source, source_path)
    source = _absolute_imports(source, _package_of(source_path))
    helper_lines = [
        f"_stand_in({helper!r}, (\n{_py_text_lines(helper_source)}\n))" for helper, helper_source in _helpers(source)
    ]
    return {
        "SSE": _py_bytes_lines(request.sse),
        # A binary body (event-stream messages) travels as the driver protocol carries it: base64.
        "BODY_FIELD": '"body_base64": base64.b64encode(SSE).decode("ascii")'
        if request.binary
        else '"sse": SSE.decode("utf-8")',
        "CHUNKS": "\n".join(
            f"    {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))!r}," for chunk in fixture.chunks
        ),
        "HELPERS": "\n".join(helper_lines),
        "SEED": _seed_source_python(),
        "ADAPTER_FILE": adapter_file,
        "ADAPTER_SOURCE": _only_what_runs(source, class_name),
        "MODEL": _py_text_lines(_model_source()),
        "FIXTURE_ID": repr(fixture.id),
        "CLASS": class_name,
    }


# What the template's stand-ins answer; helper modules under deltacheck.adapters are inlined whole.
STAND_INS = {
    "deltacheck": {"Adapter", "AssemblyRequest"},
    "deltacheck.adapter": {"Adapter", "manifest_name"},
    "deltacheck.model": {"AssemblyRequest"},
}


_SIBLING_IMPORT = re.compile(r"^(\s*)from \.\.(\w+) import", re.MULTILINE)
_PACKAGE_IMPORT = re.compile(r"^(\s*)from \.(\w+) import", re.MULTILINE)
_HELPER_IMPORT = re.compile(r"^\s*from (deltacheck\.adapters\.[\w.]+) import", re.MULTILINE)


def _absolute_imports(source: str, package: str | None) -> str:
    """Bundled adapters import their shared helpers relatively (`from ..replay import`, `from .merging
    import`), so that static tools resolve them in a checkout; the script, which has no package,
    imports their stand-ins by absolute name."""
    source = _SIBLING_IMPORT.sub(r"\1from deltacheck.adapters.\2 import", source)
    if package is not None:
        source = _PACKAGE_IMPORT.sub(rf"\1from {package}.\2 import", source)
    return source


def _package_of(path: Path) -> str | None:
    """`deltacheck.adapters.<folder>` for a module of a bundled adapter's folder; None for a file elsewhere."""
    spec = importlib.util.find_spec("deltacheck.adapters")
    roots = [Path(root).resolve() for root in (spec.submodule_search_locations or [])] if spec else []
    folder = path.resolve().parent
    for root in roots:
        if folder.is_relative_to(root):
            return ".".join(("deltacheck", "adapters", *folder.relative_to(root).parts))
    return None


def _helpers(source: str) -> list[tuple[str, str]]:
    """(module, source) of every bundled helper module the adapter imports, and of the helpers those
    import, each once and after the helpers it needs, so each stand-in is made before it is used."""
    ordered: list[tuple[str, str]] = []
    seen: set[str] = set()

    def visit(module: str) -> None:
        if module in seen:
            return
        seen.add(module)
        path = _module_file(module)
        text = path.read_text(encoding="utf-8")
        _check_imports(text, path)
        text = _absolute_imports(text, _package_of(path))
        for needed in sorted(set(_HELPER_IMPORT.findall(text))):
            visit(needed)
        ordered.append((module, _only_what_runs(text, "") + "\n"))

    for module in sorted(set(_HELPER_IMPORT.findall(source))):
        visit(module)
    return ordered


def _check_imports(source: str, path: Path) -> None:
    """An adapter the script cannot stand alone with is named, rather than written as a script that fails."""
    for module, names in re.findall(r"^\s*from (deltacheck[\w.]*) import \(?([\w ,]+)", source, re.MULTILINE):
        names = {n.strip() for n in names.split(",") if n.strip()}
        if module.startswith("deltacheck.adapters."):
            continue
        if module not in STAND_INS or not names <= STAND_INS[module]:
            raise ReproUnavailable(
                f"{path} imports {', '.join(sorted(names))} from {module}, which a standalone "
                f"script cannot provide (it stands in for {', '.join(sorted(STAND_INS))} only)"
            )
    if re.search(r"^\s*import deltacheck", source, re.MULTILINE):
        raise ReproUnavailable(f"{path} imports deltacheck as a package, which a standalone script cannot provide")


def _only_what_runs(source: str, class_name: str) -> str:
    """The adapter module without its docstring (the header says what it does) and without the other
    adapters it defines (Adapter subclasses that are neither `class_name` nor one of its bases)."""
    tree = ast.parse(source)
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    needed, pending = set(), [class_name]
    while pending:
        name = pending.pop()
        if name in classes and name not in needed:
            needed.add(name)
            pending += [base.id for base in classes[name].bases if isinstance(base, ast.Name)]
    dropped: list[tuple[int, int]] = []
    first = tree.body[0] if tree.body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        assert first.end_lineno is not None  # ast.parse gives every node its end position
        dropped.append((first.lineno, first.end_lineno))

    def is_adapter(name: str, seen: frozenset = frozenset()) -> bool:
        bases = [b.id for b in classes[name].bases if isinstance(b, ast.Name)] if name in classes else []
        return "Adapter" in bases or any(is_adapter(b, seen | {name}) for b in bases if b not in seen)

    for name, node in classes.items():
        if is_adapter(name) and name not in needed:
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            assert node.end_lineno is not None  # ast.parse gives every node its end position
            dropped.append((start, node.end_lineno))
    lines = source.splitlines(keepends=True)
    kept = [
        line
        for number, line in enumerate(lines, 1)
        if not any(start <= number <= end for start, end in dropped) and line != "from __future__ import annotations\n"
    ]
    return re.sub(r"\n{3,}", "\n\n\n", "".join(kept)).strip()


def _model_source() -> str:
    """deltacheck's AssemblyRequest and the driver's `request_from_wire`, as they are in this version,
    with their standard-library imports (what they import from deltacheck is never called: the wire
    request always carries the bytes)."""
    from deltacheck import model
    from deltacheck.driver import messages as protocol

    parts = ["from __future__ import annotations\n"]
    for module, names in ((model, ("AssemblyRequest",)), (protocol, ("request_from_wire",))):
        source = inspect.getsource(module)
        tree = ast.parse(source)
        for node in tree.body:
            if isinstance(node, (ast.Import, ast.ImportFrom)) and not (
                isinstance(node, ast.ImportFrom) and (node.module or "").startswith(("deltacheck", "__future__"))
            ):
                segment = ast.get_source_segment(source, node)
                assert segment is not None  # a node ast.parse read from `source` has its place in it
                parts.append(segment + "\n")
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("deltacheck"):
                parts += [
                    f"{alias.asname or alias.name} = None  # from {node.module}: not needed here\n"
                    for alias in node.names
                    if alias.name not in ("AssemblyRequest",)
                ]
        for node in tree.body:
            if isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name in names:
                start = min([node.lineno] + [d.lineno for d in node.decorator_list])
                parts.append("\n\n" + "".join(source.splitlines(keepends=True)[start - 1 : node.end_lineno]))
    return "".join(parts)


def _module_file(module_name: str) -> Path:
    """The file of a bundled adapter module, found without importing it (its library is not installed here)."""
    spec = importlib.util.find_spec(module_name)
    if spec is None or spec.origin is None:
        raise ReproUnavailable(f"cannot find the source of {module_name}")
    return Path(spec.origin)


def _py_bytes_lines(data: bytes) -> str:
    """`data` as bytes literals, one SSE line each, so the stream reads as it is sent."""
    lines = data.splitlines(keepends=True) or [b""]
    return "\n".join(f"    {line!r}" for line in lines)


def _py_text_lines(text: str) -> str:
    return "\n".join(f"    {line!r}" for line in text.splitlines(keepends=True))


def _seed_source_python() -> str:
    from deltacheck.driver import python as driver

    return inspect.getsource(driver.seed_randomness).strip()


# -- Node ----------------------------------------------------------------------------------------

# An import from adapters/node/common: `../common/<file>` in a driver's folder, `./<file>` in common itself.
_COMMON_IMPORT = re.compile(
    r"^import\s[^;]*?from\s*['\"](?:\.\./common|\.)/([^'\"]+)['\"];?\n", re.MULTILINE | re.DOTALL
)
# The common files the script stands in for (driver.mjs) or inlines as the replay helpers (replay.mjs); any other
# file a driver imports from common is the shared code of a library pinned in several folders, inlined whole.
_COMMON_HELPERS = ("driver.mjs", "replay.mjs")


def _code(path: Path) -> str:
    """A Node source without its imports from common and without its header comment (the script's header says it)."""
    source = _COMMON_IMPORT.sub("", path.read_text(encoding="utf-8"))
    return re.sub(r"\A(?://[^\n]*\n|\s*\n)+", "", source).strip()


def _node(fixture: Fixture, manifest, request: AssemblyRequest) -> dict[str, str]:
    driver = manifest.folder / manifest.command[1]
    common = driver.parent.parent / "common"
    adapter_file = f"deltacheck/adapters/node/{driver.parent.name}/{driver.name}"
    source = _code(driver)
    shared = [
        name for name in _COMMON_IMPORT.findall(driver.read_text(encoding="utf-8")) if name not in _COMMON_HELPERS
    ]
    if shared:
        # The driver runs shared code with a loader written in it, so its import() resolves beside the script.
        source = "\n\n".join([*(_code(common / name) for name in shared), f"// -- run by {adapter_file}:", source])
        adapter_file = ", ".join(f"deltacheck/adapters/node/common/{name}" for name in shared)
    replay = re.sub(r"^export ", "", (common / "replay.mjs").read_text(encoding="utf-8"), flags=re.MULTILINE).strip()
    seed = re.search(
        r"^function seedRandomness\(.*?^}\n",
        (common / "driver.mjs").read_text(encoding="utf-8"),
        re.MULTILINE | re.DOTALL,
    )
    if seed is None:
        raise ReproUnavailable(f"{common / 'driver.mjs'} has no seedRandomness function to inline")
    if request.binary:  # a binary body (event-stream messages) travels as the driver protocol carries it: base64
        text, body_field = base64.b64encode(request.sse).decode("ascii"), "body_base64: SSE"
        lines = [text[start : start + 76] for start in range(0, len(text), 76)]
    else:
        text, body_field = request.sse.decode("utf-8"), "sse: SSE"
        lines = text.splitlines(keepends=True)
    return {
        "SSE": " +\n".join(f"  {json.dumps(line, ensure_ascii=False)}" for line in (lines or [""])),
        "BODY_FIELD": body_field,
        "CHUNKS": "\n".join(
            f"  {json.dumps(chunk, ensure_ascii=False, separators=(',', ':'))}," for chunk in fixture.chunks
        ),
        "REPLAY_SOURCE": replay,
        "SEED": seed.group(0).strip(),
        "ADAPTER_FILE": adapter_file,
        "ADAPTER_SOURCE": source,
        "FIXTURE_ID": json.dumps(fixture.id),
        "MODE": json.dumps(manifest.command[2] if len(manifest.command) > 2 else ""),
    }
