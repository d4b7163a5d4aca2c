"""Tokens stored by column and made a block at a time are the tokens a plain scan gives."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from extractor.relay import lexer
from extractor.relay.lexer import TokenList, tokenize
from extractor.relay.parser import parse
from extractor.relay.printer import astext

DATA = Path(__file__).resolve().parents[1] / "data"
PROGRAMS = sorted(DATA.rglob("*.relay"))


def _position(text: str, offset: int) -> tuple[int, int]:
    before = text[:offset]
    return before.count("\n") + 1, offset - (before.rfind("\n") + 1) + 1


@pytest.mark.parametrize("block", [1, 3, 4096])
def test_tokens_hold_their_text_and_position_in_any_order_of_reading(monkeypatch, block):
    monkeypatch.setattr(TokenList, "BLOCK", block)
    text = "// a comment\n\n#[version = \"0.0.5\"]\r\ndef @f(%x: float32) {\n  /* two\n lines */ " \
           "let %y = add(%x, 1f);\n\t%y.0\n}\n"
    toks = tokenize(text)
    order = list(range(len(toks)))
    for indices in (order, order[::-1], order[::2] + order[1::2]):
        for i in indices:
            t = toks[i]
            assert text[t.start:t.end] == t.text
            assert (t.line, t.col) == _position(text, t.start), t
    assert [t.text for t in toks][:4] == ['#[version = "0.0.5"]', "def", "@f", "("]
    assert toks[-1].kind == lexer.EOF and toks[-2:][1] is toks[-1]


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.name)
def test_a_parse_through_tiny_blocks_reads_the_same_program(monkeypatch, path):
    text = path.read_text()
    try:
        whole = astext(parse(text))
    except Exception as exc:  # noqa: BLE001 - the same error must come back, at the same place
        monkeypatch.setattr(TokenList, "BLOCK", 2)
        with pytest.raises(type(exc), match=re.escape(str(exc))):
            parse(text)
        return
    monkeypatch.setattr(TokenList, "BLOCK", 2)
    assert astext(parse(text)) == whole
