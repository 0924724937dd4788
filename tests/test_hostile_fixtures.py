"""Nothing a fixture file holds takes the harness down.

Hypothesis writes random and mutated fixture files (truncated JSON, wrong-typed fields, huge strings,
odd Unicode, invalid UTF-8, empty files, non-object documents, duplicate keys, markup-looking text)
beside one good text fixture and one good tool-call fixture, then runs `deltacheck lint` and
`deltacheck run --adapter reference` on that corpus. Neither may raise; lint names every bad file (on
its own line, with any markup-looking text verbatim); a mutated file that is still a valid fixture is
scored instead; and the good fixtures always load and pass.
"""

from __future__ import annotations

import copy
import json
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from deltacheck.cli import main
from deltacheck.protocols import render_stream
from tests.corpus_builder import TEXT_FIXTURE, TOOL_FIXTURE, make_corpus

GOOD = {"openai-chat/good-text.json": TEXT_FIXTURE, "openai-chat/good-tools.json": TOOL_FIXTURE}
GOOD_IDS = {TEXT_FIXTURE["id"], TOOL_FIXTURE["id"]}
HOSTILE_IDS = ["DC-H001", "DC-H002", "DC-H003"]  # distinct from the good ones: a duplicate id would drop both

MARKUP = ["[/choices]", "[red]x[/red]", "[bold]", "[/]", "[link=https://x.invalid]x[/link]", "[[double]]", "[b]"]
ODD_UNICODE = ["\ud800", "\udfff", "\udc00\ud800", "\x00", "\u200f", "\u200e", "\u202e", "\u2066", "\ufeff", "\uffff",
               "\U0010ffff", "😀", "👩‍👩‍👧", "e\u0301", "\u0301", "\u0300\u0301\u0302", "\x1b[31m", "\r\n", "\u2028"]
INVALID_UTF8 = [b"\xff", b"\xfe", b"\x80", b"\xc3\x28", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf8\x88\x80\x80\x80",
                b"\xe2\x82", b"\xf4\x90\x80\x80"]


@dataclass
class Hostile:
    content: bytes
    kind: str
    surely_bad: bool  # never a valid fixture: lint must name it
    shown: str | None = None  # text lint must print verbatim on a line naming the file
    strategy: str = ""


def dumps(document: Any, ascii_only: bool = False) -> bytes:
    return json.dumps(document, ensure_ascii=ascii_only).encode("utf-8")


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, (int, float)):
        return "number"
    return type(value).__name__


def paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    """Every key and list position in a document, nested ones too."""
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            out += paths(item, prefix + (key,))
    elif isinstance(value, list):
        for position, item in enumerate(value):
            out += paths(item, prefix + (position,))
    return out


def get_at(document: Any, path: tuple) -> Any:
    for step in path:
        document = document[step]
    return document


def set_at(document: Any, path: tuple, value: Any) -> None:
    get_at(document, path[:-1])[path[-1]] = value


def base(fixture_id: str, original: dict = TEXT_FIXTURE) -> dict:
    out = copy.deepcopy(original)
    out["id"] = fixture_id
    return out


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)
values_of_type = {"null": st.none(), "bool": st.booleans(), "number": st.integers() | st.floats(),
                  "str": st.text(max_size=20), "list": st.lists(json_values, max_size=3),
                  "dict": st.dictionaries(st.text(max_size=8), json_values, max_size=3)}
originals = st.sampled_from([TEXT_FIXTURE, TOOL_FIXTURE])
# Number tokens json.loads turns into surprises: ints over Python's 4300-digit limit, inf, nan, 1.0 for 1.
NUMBER_TOKENS = st.sampled_from(["1e999", "-1e999", "NaN", "Infinity", "-Infinity", "1.0", "0.0", "-0", "1e-400",
                                 "0.1e1", "9" * 4300, "-" + "9" * 4300]) | st.integers(4301, 20000).map(lambda n: "7" * n)


@st.composite
def truncated(draw, fixture_id):
    text = dumps(base(fixture_id, draw(originals)), ascii_only=draw(st.booleans()))
    cut = draw(st.integers(0, len(text) - 1))  # never the whole text: a JSON object cut short is never JSON
    return Hostile(text[:cut], f"truncated at byte {cut}", surely_bad=True)


@st.composite
def empty(draw, fixture_id):
    content = draw(st.sampled_from([b"", b" ", b"\n", b"\xef\xbb\xbf", b"\t\r\n "]))
    return Hostile(content, f"empty file {content!r}", surely_bad=True)


@st.composite
def not_an_object(draw, fixture_id):
    document = draw(st.sampled_from([[], [base(fixture_id)], "DC-H001", 0, -1.5, None, True, False])
                    | st.lists(json_values, max_size=3))
    return Hostile(dumps(document), f"top level {json_type(document)}", surely_bad=True)


@st.composite
def invalid_utf8(draw, fixture_id):
    text = dumps(base(fixture_id, draw(originals)))
    at = draw(st.integers(0, len(text)))
    bad = draw(st.sampled_from(INVALID_UTF8))
    return Hostile(text[:at] + bad + text[at:], f"{bad!r} at byte {at}", surely_bad=True)


@st.composite
def wrong_type(draw, fixture_id):
    document = base(fixture_id, draw(originals))
    path = draw(st.sampled_from(paths(document)))
    old = get_at(document, path)
    new = draw(values_of_type[draw(st.sampled_from(sorted(set(values_of_type) - {json_type(old)})))])
    set_at(document, path, new)
    # Every top-level field of the base is required and typed; deeper down another type may still be valid.
    return Hostile(dumps(document), f"{'/'.join(map(str, path))} = {new!r}", surely_bad=len(path) == 1)


@st.composite
def huge(draw, fixture_id):
    document = base(fixture_id)
    size = draw(st.integers(1_000_000, 5_000_000))
    unit = draw(st.sampled_from(["x", "é", "😀", "\u202e", "e\u0301", "[/choices]"]))
    text = unit * (size // len(unit.encode("utf-8")))
    where = draw(st.sampled_from(["title", "content", "content and expected"]))
    if where == "title":
        document["title"] = text
    else:
        document["chunks"][1]["choices"][0]["delta"]["content"] = text
        if where == "content and expected":  # still a valid fixture: it must load and be scored
            document["expected"]["choices"][0]["parts"][0]["text"] = "Hel" + text
    return Hostile(dumps(document, ascii_only=draw(st.booleans())), f"{len(text)} characters in {where}",
                   surely_bad=where != "content and expected")


@st.composite
def odd_unicode(draw, fixture_id):
    document = base(fixture_id, draw(originals))
    strings = [p for p in paths(document) if isinstance(get_at(document, p), str)]
    path = draw(st.sampled_from(strings))
    old = get_at(document, path)
    odd = "".join(draw(st.lists(st.sampled_from(ODD_UNICODE), min_size=1, max_size=4)))
    at = draw(st.integers(0, len(old)))
    set_at(document, path, old[:at] + odd + old[at:])
    if path == ("chunks", 0, "choices", 0, "delta", "content") and draw(st.booleans()):
        # the same text in `expected` too, so that the fixture stays valid and is run
        document["expected"]["choices"][0]["parts"][0]["text"] = get_at(document, path) + "lo"
    surrogate = any("\ud800" <= ch <= "\udfff" for ch in odd)  # such text can only be written as an escape
    # "\ud800" then "\udfff" read back as one character; a surrogate left alone is never a valid fixture
    alone = any("\ud800" <= ch <= "\udfff" for ch in json.loads(json.dumps(odd)))
    return Hostile(dumps(document, ascii_only=surrogate or draw(st.booleans())),
                   f"{odd!r} in {'/'.join(map(str, path))}", surely_bad=alone)


@st.composite
def duplicate_keys(draw, fixture_id):
    document = base(fixture_id, draw(originals))
    key = draw(st.sampled_from(list(document)))
    value = draw(st.just(document[key]) | json_values)
    text = dumps(document)
    pair = dumps(key) + b": " + dumps(value)
    if draw(st.booleans()):  # the first of two keys is overridden by the second
        content = b"{" + pair + b", " + text[1:]
    else:
        content = text[:-1] + b", " + pair + b"}"
    return Hostile(content, f"duplicate key {key!r} = {value!r}", surely_bad=False)


@st.composite
def markup(draw, fixture_id):
    document = base(fixture_id, draw(originals))
    text = draw(st.sampled_from(MARKUP))
    where = draw(st.sampled_from(["unknown tag", "long title", "id", "short title", "provenance source"]))
    if where == "unknown tag":
        document["tags"].append(text)
    elif where == "long title":
        document["title"] = f"{text} is shown as text {'.' * 90}"
    elif where == "id":
        document["id"] = text
    elif where == "short title":
        document["title"] = f"markup {text} stays text"
    else:
        document["provenance"]["source"] = text
    shown = text if where in ("unknown tag", "long title", "id") else None
    return Hostile(dumps(document), f"{text!r} as {where}", surely_bad=shown is not None, shown=shown)


@st.composite
def raw_number(draw, fixture_id):
    document = base(fixture_id, draw(originals))
    path = draw(st.sampled_from(paths(document)))
    token = draw(NUMBER_TOKENS)
    set_at(document, path, "@@NUMBER@@")
    content = dumps(document).replace(b'"@@NUMBER@@"', token.encode("ascii"))
    too_long = len(token.lstrip("-")) > 4300  # valid JSON, but more digits than Python reads as an int
    not_json = token in ("NaN", "Infinity", "-Infinity")  # json.loads reads them; RFC 8259 has no such words
    out_of_range = token in ("1e999", "-1e999")  # JSON, but a double would hold it as infinity
    return Hostile(content, f"{token[:12]}... ({len(token)} characters) at {'/'.join(map(str, path))}",
                   surely_bad=too_long or not_json or out_of_range or len(path) == 1)


@st.composite
def optional_fields(draw, fixture_id):
    """The optional fields (sse, stream_end, comment, implementation_defined), right, damaged or wrong-typed."""
    document = base(fixture_id, draw(originals))
    name = draw(st.sampled_from(["sse", "stream_end", "comment", "implementation_defined"]))
    if name == "sse":
        sse = render_stream(document["protocol"], document["chunks"], document.get("stream_end", "terminator")).decode()
        value = draw(st.just(sse) | st.integers(0, len(sse)).map(lambda cut: sse[:cut])
                     | st.integers(0, len(sse)).flatmap(lambda at: st.text(max_size=30).map(lambda t: sse[:at] + t + sse[at:]))
                     | st.text())
    elif name == "stream_end":
        value = draw(st.sampled_from(["terminator", "eof", "EOF", ""]) | json_values)
    elif name == "comment":
        value = draw(st.text() | json_values)
    else:
        value = draw(st.fixed_dictionaries({"reason": st.text(min_size=10)}, optional={
            "acceptable": st.lists(st.fixed_dictionaries({"description": st.text(), "result": json_values}), max_size=2),
            "raise_acceptable": st.text(min_size=10),
            "forbidden": st.lists(st.fixed_dictionaries({"description": st.text(), "match": st.dictionaries(
                st.sampled_from(["/choices/0/finish_reason", "/usage", "", "/", "~", "/choices/-"]), json_values,
                min_size=1)}), max_size=2)}) | json_values)
    document[name] = value
    return Hostile(dumps(document), f"{name} = {value!r:.80}", surely_bad=False)


KINDS = [truncated, empty, not_an_object, invalid_utf8, wrong_type, huge, odd_unicode, duplicate_keys, markup,
         raw_number, optional_fields]


def hostile_files(fixture_id: str):
    return st.one_of([kind(fixture_id).map(lambda h, name=kind.__name__: replace(h, strategy=name)) for kind in KINDS])


def invoke(args: list):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert "Traceback" not in result.output
    return result


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_no_fixture_file_takes_lint_or_run_down(data):
    hostiles = [data.draw(hostile_files(fid), label=f"hostile-{n}.json")
                for n, fid in enumerate(HOSTILE_IDS[:data.draw(st.integers(1, 3), label="files")])]
    with tempfile.TemporaryDirectory() as tmp:
        root = make_corpus(Path(tmp), GOOD)
        hostile_paths = {}
        for n, hostile in enumerate(hostiles):
            path = root / "fixtures" / "openai-chat" / f"hostile-{n}.json"
            path.write_bytes(hostile.content)
            hostile_paths[str(path.relative_to(root.parent))] = hostile

        lint = invoke(["lint", "--corpus", root])
        lines = lint.output.split("\n")  # not splitlines(): a fixture id may hold U+2028
        named = {rel: [line for line in lines if line.startswith(rel + ": ")]
                 for rel in [*hostile_paths, *(f"corpus/fixtures/{name}" for name in GOOD)]}
        assert lint.exit_code == (1 if any(named.values()) else 0), lint.output
        if lint.exit_code:  # every file is counted: a good one, a loaded one or one with problems
            assert f"of {len(GOOD) + len(hostiles)} file(s)" in lint.output, lint.output

        results = Path(tmp) / "results" / "out.jsonl"
        run = invoke(["run", "--adapter", "reference", "--corpus", root, "--results", results])
        assert run.exit_code == 0, run.output
        records = [json.loads(line) for line in results.read_text(encoding="utf-8").split("\n") if line]
        by_path = {r["path"]: r for r in records if r.get("kind") == "result"}
        assert len(by_path) == len([r for r in records if r.get("kind") == "result"]), "a file recorded twice"

        for name, good in GOOD.items():
            rel = f"corpus/fixtures/{name}"
            assert not named[rel], f"good fixture {name} reported: {named[rel]}"
            assert by_path[rel]["fixture"] == good["id"] and by_path[rel]["verdict"] == "pass", by_path[rel]
        for rel, hostile in hostile_paths.items():
            event(f"{hostile.strategy}: {'named by lint' if named[rel] else 'loaded and scored'}")
            assert rel in by_path, f"{rel} ({hostile.kind}) neither skipped nor scored by run"
            if hostile.surely_bad:
                assert named[rel], f"{rel} ({hostile.kind}) not named by lint:\n{lint.output}"
            if named[rel]:
                assert by_path[rel]["verdict"] == "skip", (hostile.kind, by_path[rel])
            else:  # still a valid fixture: loaded, so it must be scored (and the reference agrees with it)
                assert by_path[rel]["verdict"] == "pass", (hostile.kind, by_path[rel])
            if hostile.shown is not None:
                assert any(hostile.shown in line for line in named[rel]), (hostile.kind, named[rel])
        assert {r["fixture"] for r in by_path.values() if r["verdict"] != "skip"} <= GOOD_IDS | set(HOSTILE_IDS)


# -- what one fixture file can print or record ----------------------------------------------------


def test_a_fixture_with_thousands_of_bad_chunks_prints_and_records_a_bounded_count(tmp_path):
    from deltacheck.errors import MAX_PROBLEMS_PER_FILE

    bad = copy.deepcopy(TEXT_FIXTURE) | {"id": "DC-H001"}
    bad["chunks"] = bad["chunks"][:1] + [{"bogus": n} for n in range(3000)] + bad["chunks"][1:]
    root = make_corpus(tmp_path, {**GOOD, "openai-chat/many.json": bad})
    linted = CliRunner().invoke(main, ["lint", "--corpus", str(root)])
    assert linted.exit_code == 1
    lines = [line for line in linted.output.splitlines() if "many.json" in line]
    assert len(lines) == MAX_PROBLEMS_PER_FILE + 1
    left_out = 3000 - MAX_PROBLEMS_PER_FILE
    assert lines[-1].endswith(f"/: and {left_out:,} more problem(s) in this file, not listed (the first 20 are)")
    assert "3000 problem(s) in 1 of 3 file(s)" in linted.output  # the total still counts every problem

    results = tmp_path / "out.jsonl"
    ran = CliRunner().invoke(main, ["run", "--adapter", "reference", "--corpus", str(root), "--results", str(results)])
    assert ran.exit_code == 0, ran.output
    skip = next(json.loads(x) for x in results.read_text().splitlines() if '"DC-H001"' in x and '"result"' in x)
    assert skip["verdict"] == "skip" and f"and {left_out:,} more problem(s)" in skip["message"]
    assert len(skip["message"]) < 5_000 and len(ran.output) < 10_000


@given(st.lists(st.text(max_size=2_000), max_size=60))
@settings(max_examples=50, deadline=None)
def test_capped_problems_keep_the_first_count_the_rest_and_cut_long_messages(messages):
    from deltacheck.errors import MAX_MESSAGE_CHARS, MAX_PROBLEMS_PER_FILE, FixtureProblem, capped_problems

    problems = [FixtureProblem("f.json", "DC-H001", f"/chunks/{n}", m) for n, m in enumerate(messages)]
    capped = capped_problems(problems)
    assert sum(p.stands_for for p in capped) == len(problems)  # nothing uncounted
    assert len(capped) <= MAX_PROBLEMS_PER_FILE + 1
    for original, kept in zip(problems, capped[:MAX_PROBLEMS_PER_FILE]):
        assert kept.field == original.field
        assert kept.message == original.message or (
            kept.message.startswith(original.message[:MAX_MESSAGE_CHARS])
            and f"{len(original.message) - MAX_MESSAGE_CHARS:,} more characters not shown" in kept.message
        )
        assert len(kept.message) <= MAX_MESSAGE_CHARS + 60
