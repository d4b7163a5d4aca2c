"""Ids numbered `<prefix><k>` map to objects held in a list, as a dict of them would."""

from __future__ import annotations

import pytest

from extractor.relay_facts import Numbered


def test_numbered_ids_behave_as_the_dict_they_replace():
    table: Numbered[str] = Numbered("n")
    table.objects.extend(["zero", "one", "two"])
    as_dict = {"n0": "zero", "n1": "one", "n2": "two"}
    assert dict(table) == as_dict and len(table) == 3 and list(table) == list(as_dict)
    for key in ("n0", "n2", "n01", "n3", "b1", "n", "n-1", "n１", "", 1, None):
        assert (key in table) == (key in as_dict), key
        assert table.get(key) == as_dict.get(key), key  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        table["n3"]
    assert list(table.values()) == ["zero", "one", "two"] and len(table.values()) == 3
    assert list(table.items()) == list(as_dict.items()) and "one" in table.values()
