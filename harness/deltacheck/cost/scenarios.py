"""Long-stream scenarios of the cost axis: small declarative specs in corpus/scenarios/*.json.

A spec names a protocol, a shape, a fragment size and the sizes N to time; the stream and its
expected result are generated (deltacheck.cost.long_streams), never stored. Lint checks every spec
against corpus/schema/scenario.schema.json and a few rules the schema cannot state; a bad spec is
one problem line naming its file, and the other specs still load.
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from functools import cache
from itertools import accumulate
from pathlib import Path

from deltacheck.corpus.schema_checks import compiled_schema_check
from deltacheck.cost.long_streams import Scenario, streamed_shapes, unreal_shape
from deltacheck.errors import FixtureProblem
from deltacheck.model import AssemblyRequest, Fixture
from deltacheck.reference import ReferenceOutcome

SCHEMA_FILE = "scenario.schema.json"


@dataclass(frozen=True)
class ScenarioSpec:
    id: str
    title: str
    protocol: str
    shape: str
    fragment_size: int
    sizes: tuple[int, ...]
    path: str
    seed: int = 13

    def generate(self, count: int) -> Scenario:
        """The stream of `count` fragments, the same on every call and every machine."""
        return Scenario(self.protocol, self.shape, count, self.fragment_size, self.seed)

    def fixture(self, scenario: Scenario) -> Fixture:
        """The generated stream as a fixture the normal judge can score, its expected result generated too."""
        fixture_id = f"{self.id}@{scenario.count}"
        return Fixture(
            id=fixture_id,
            title=self.title,
            protocol=self.protocol,
            tags=(),
            provenance={"generated": self.path},
            chunks=tuple(scenario.chunks),
            expected=scenario.expected_result(),
            path=self.path,
        )

    @staticmethod
    def fragment_positions(scenario: Scenario) -> ReferenceOutcome:
        """What the event judge needs (each call's last fragment), known from generation, not from an assembler."""
        return ReferenceOutcome(result=scenario.expected_result(), last_fragment=dict(scenario.last_fragment))


def served_request(fixture: Fixture, transport: str | None = None) -> AssemblyRequest:
    """The request as a server sends it: the body rendered up front (never inside a timed run), on the wire the
    adapter reads (`transport`), and cut after every event (SSE) or message (a binary framing), so every driver
    hands its client one event per network read (a driver's own default may be a few large reads, which would
    blame a library for the replay's chunking)."""
    plain = fixture.request(transport)
    body = plain.sse
    cuts = list(accumulate(len(piece) for piece in plain.sse_pieces()))[:-1]
    request = dataclasses.replace(plain, sse_cuts=tuple(cuts) or None)
    vars(request)["sse"] = body  # fills the cached property: the body is rendered once, here
    return request


@cache
def _validator(schema_path: str):
    """jsonschema's validator, imported only to explain a spec the compiled check did not pass."""
    import jsonschema

    return jsonschema.Draft202012Validator(json.loads(Path(schema_path).read_text(encoding="utf-8")))


def _schema_problem(data, schema_path: str) -> tuple[str, str] | None:
    """(pointer, message) of the first schema violation, or None."""
    if compiled_schema_check(schema_path)(data):
        return None
    import jsonschema

    error = jsonschema.exceptions.best_match(_validator(schema_path).iter_errors(data))
    if error is None:
        return None
    return "/" + "/".join(str(p) for p in error.absolute_path), _shorten(error.message)


def load_scenarios(corpus_root: Path) -> tuple[list[ScenarioSpec], list[FixtureProblem]]:
    """Every spec under corpus_root/scenarios (none when the folder is absent), and what is wrong with the others."""
    folder = corpus_root / "scenarios"
    if not folder.is_dir():
        return [], []
    schema_dir = corpus_root / "schema"
    if not (schema_dir / SCHEMA_FILE).is_file():
        return [], [
            FixtureProblem(str(folder), None, "/", f"scenarios need {schema_dir / SCHEMA_FILE}, which is missing")
        ]
    schema_path = str(schema_dir / SCHEMA_FILE)
    specs: list[ScenarioSpec] = []
    problems: list[FixtureProblem] = []
    for path in sorted(folder.glob("*.json")):
        rel = str(path.relative_to(corpus_root.parent)) if corpus_root.parent in path.parents else str(path)
        spec, found = _check_spec(path, rel, schema_path)
        problems.extend(found)
        if spec is not None and not found:
            specs.append(spec)
    return specs, problems


def _check_spec(path: Path, rel: str, schema_path: str) -> tuple[ScenarioSpec | None, list[FixtureProblem]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return None, [FixtureProblem(rel, None, "/", f"unreadable: {exc.strerror or exc}")]
    except UnicodeDecodeError as exc:
        return None, [FixtureProblem(rel, None, "/", f"not UTF-8: {exc}")]
    except ValueError as exc:
        return None, [FixtureProblem(rel, None, "/", f"not JSON: {exc}")]
    sid = data.get("id") if isinstance(data, dict) and isinstance(data.get("id"), str) else None
    problem = _schema_problem(data, schema_path)
    if problem is not None:
        return None, [FixtureProblem(rel, sid, *problem)]
    found = []
    if path.stem != data["id"]:  # which also keeps ids unique
        found.append(FixtureProblem(rel, sid, "/id", f"the file of scenario {data['id']!r} is named {data['id']}.json"))
    if data["shape"] not in streamed_shapes(data["protocol"]):
        found.append(FixtureProblem(rel, sid, "/shape", unreal_shape(data["protocol"], data["shape"])))
    sizes = data["sizes"]
    if any(b <= a for a, b in zip(sizes, sizes[1:])):
        found.append(FixtureProblem(rel, sid, "/sizes", f"sizes must increase strictly, not {sizes}"))
    spec = ScenarioSpec(
        id=data["id"],
        title=data["title"],
        protocol=data["protocol"],
        shape=data["shape"],
        fragment_size=data["fragment_size"],
        sizes=tuple(sizes),
        path=rel,
        seed=data.get("seed", 13),
    )
    return spec, found


def _shorten(message: str, limit: int = 200) -> str:
    message = " ".join(message.split())
    return message if len(message) <= limit else message[: limit - 1] + "…"
