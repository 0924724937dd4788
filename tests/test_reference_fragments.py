"""Fragments and JsonFragments: the same text and the same "is it one whole JSON value" as the JSON
specification (RFC 8259, json_spec.is_json), however the text is cut into fragments."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deltacheck.json_spec import is_json as is_complete_json
from deltacheck.reference.fragments import Fragments, JsonFragments

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=12,
)
# Characters that matter to JSON's grammar, so random texts hit every state of the scanner.
JSON_HEAVY = st.text(alphabet='{}[]":,\\ \t\n0123456789-+.eEtrufalsnNIiy\u00e9\x00', max_size=30)


@st.composite
def json_like_texts(draw) -> str:
    kind = draw(st.sampled_from(["value", "cut value", "value and more", "random"]))
    if kind == "random":
        return draw(JSON_HEAVY)
    text = json.dumps(draw(JSON_VALUES), indent=draw(st.sampled_from([None, 1])), ensure_ascii=draw(st.booleans()))
    text = draw(st.sampled_from(["", " ", "\n "])) + text + draw(st.sampled_from(["", " ", "\t\n"]))
    if kind == "cut value":
        return text[:draw(st.integers(0, len(text)))]
    if kind == "value and more":
        return text + draw(JSON_HEAVY)
    return text


@st.composite
def cut_into_fragments(draw) -> list[str]:
    text = draw(json_like_texts())
    cuts = sorted(draw(st.sets(st.integers(0, len(text)), max_size=8)))
    bounds = [0, *cuts, len(text)]
    return [text[a:b] for a, b in zip(bounds, bounds[1:])]


@given(cut_into_fragments())
@settings(max_examples=1500, deadline=None)
def test_json_fragments_agree_with_json_loads_after_every_fragment(pieces):
    fragments, so_far = JsonFragments(), ""
    for piece in pieces:
        fragments.append(piece)
        so_far += piece
        assert fragments.is_complete == (bool(so_far) and is_complete_json(so_far)), repr(so_far)
        assert fragments.length == len(so_far)
    assert fragments.text() == so_far


@pytest.mark.parametrize("text, whole", [
    ("", False), ("  ", False), ("{}", True), (" {} \n", True), ("{} x", False), ("{}{}", False), ("[}", False),
    ('"a\\"b"', True), ('"a\\', False), ('{"a": "}"}', True), ("1", True), ("-", False), ("-0", True), ("01", False),
    ("1.", False), ("1.5e", False), ("1.5e+3", True), ("1 2", False), ("tru", False), ("true", True), ("truex", False),
    ("NaN", False), ("-Infinity", False), ("Infinity", False), ("[NaN]", False), ("-Inf", False), ("\ufeff{}", False), ('{"a":1,}', False), ('["\x01"]', False),
])
def test_json_fragments_one_character_at_a_time(text, whole):
    fragments = JsonFragments()
    for char in text:
        fragments.append(char)
    assert fragments.is_complete is whole
    assert JsonFragments(text).is_complete is whole
    assert is_complete_json(text) is whole  # the cases themselves say what RFC 8259 says


def test_a_whole_integer_longer_than_python_converts_is_json():
    for text in ("9" * 4300, "-" + "9" * 4301, "9" * 100_000, "[" + "9" * 100_000 + "]", "9" * 4301 + ".5"):
        fragments = JsonFragments()
        for start in range(0, len(text), 7):
            fragments.append(text[start:start + 7])
        assert fragments.is_complete is True and is_complete_json(text) is True, text[:12]


def test_fragments_join_what_was_appended():
    fragments = Fragments("ab")
    for piece in ("c", "", "de"):
        fragments.append(piece)
    assert (fragments.text(), fragments.length) == ("abcde", 5)
    fragments.append("f")
    assert fragments.text() == "abcdef"
    assert Fragments().text() == ""
