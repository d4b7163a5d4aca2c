"""The Relax miscompilations in tests/support/relax_cases.py really happen on the installed TVM.

For every case: `expected` is the correct behaviour (checked against numpy and a TVM run that
avoids the culprit pass), the case's passes really produce `buggy`, and the `Clean` look-alikes
stay correct with and without those passes.  These tests fail if TVM stops miscompiling, which
is the signal to revisit the case table.
"""

from __future__ import annotations

import pytest

tvm = pytest.importorskip("tvm")

from tvm import relax  # noqa: E402

from tests.support.relax_cases import (  # noqa: E402
    CASES,
    CASES_BY_ID,
    CleanControl,
    RelaxCase,
    apply_passes,
    binding_names,
    build_and_run,
    drop_bindings,
    load_case,
    observe,
    same,
)


def _ids(entry: RelaxCase) -> str:
    """Readable parametrize ids such as `06c-BeforeStridedSlice`."""
    return f"{entry.case_id}-{entry.module}"


def test_case_table_is_consistent() -> None:
    """Every entry names an existing file and module and differs between expected and buggy."""
    assert len(CASES_BY_ID) == len(CASES)
    for entry in CASES:
        mods = load_case(entry)
        assert entry.module in mods, entry.case_id
        assert all(c.module in mods for c in entry.cleans), entry.case_id
        assert not same(entry.expected, entry.buggy), entry.case_id
        if entry.expected_via == "passes":
            assert entry.expected_passes is not None
        if entry.expected_via == "numpy":
            assert entry.reference is not None
        if entry.expected_via == "before":
            assert entry.passes(), f"{entry.case_id}: Before itself must be the correct run"


@pytest.mark.parametrize("entry", CASES, ids=_ids)
def test_expected_is_the_correct_behaviour(entry: RelaxCase) -> None:
    """`expected` matches numpy and a TVM run that avoids the culprit pass."""
    before = load_case(entry)[entry.module]
    assert relax.analysis.check_well_formed(before)
    if entry.reference is not None:
        assert same(entry.reference(*entry.inputs()), entry.expected)
    via = entry.expected_via
    if via == "before":
        assert same(observe(entry, before), entry.expected)
    elif via.startswith("skip:"):
        assert same(observe(entry, before, skip=via.removeprefix("skip:")), entry.expected)
    elif via == "passes":
        assert entry.expected_passes is not None
        fixed = apply_passes(before, entry.expected_passes())
        assert same(observe(entry, fixed), entry.expected)
    elif via == "drop-dead":
        pruned = drop_bindings(before, entry.dead_bindings, entry.func)
        assert relax.analysis.check_well_formed(pruned)
        assert len(binding_names(pruned, entry.func)) < len(binding_names(before, entry.func))
        inputs = entry.inputs()
        assert same(build_and_run(pruned, inputs), build_and_run(before, inputs))
        assert same(observe(entry, pruned), entry.expected)
    else:
        assert via == "numpy", via


@pytest.mark.parametrize("entry", CASES, ids=_ids)
def test_passes_reproduce_the_miscompilation(entry: RelaxCase) -> None:
    """Applying the case's passes (or none) and running on the VM gives `buggy`."""
    before = load_case(entry)[entry.module]
    after = apply_passes(before, entry.passes())
    assert relax.analysis.check_well_formed(after)
    assert same(observe(entry, after), entry.buggy)


@pytest.mark.parametrize(
    "entry",
    [e for e in CASES if e.expected_via.startswith("skip:")],
    ids=_ids,
)
def test_pipeline_mirror_matches_default_build(entry: RelaxCase) -> None:
    """Leaving out a CPU no-op pass still miscompiles: the mirrored pipeline equals the default."""
    before = load_case(entry)[entry.module]
    assert same(observe(entry, before, skip="RewriteCUDAGraph"), entry.buggy)


def _clean_pairs() -> list[tuple[RelaxCase, CleanControl]]:
    """Each clean module once per distinct treatment (cases 05 and 06 share their controls)."""
    seen: set[tuple[str, str, str, object, str]] = set()
    out = []
    for e in CASES:
        for c in e.cleans:
            key = (e.file, c.module, c.func, e.passes, e.expected_via)
            if key not in seen:
                seen.add(key)
                out.append((e, c))
    return out


_CLEAN_PAIRS = _clean_pairs()


@pytest.mark.parametrize(
    ("entry", "clean"), _CLEAN_PAIRS, ids=[f"{e.case_id}-{c.module}" for e, c in _CLEAN_PAIRS]
)
def test_clean_control_is_unaffected(entry: RelaxCase, clean: CleanControl) -> None:
    """The look-alike gives its correct result with and without the case's passes."""
    kind = "outputs" if entry.observe == "kept_by_dce" else entry.observe
    mod = load_case(entry)[clean.module]
    assert relax.analysis.check_well_formed(mod)
    without = observe(entry, mod, func=clean.func, kind=kind)
    with_passes = observe(entry, apply_passes(mod, entry.passes()), func=clean.func, kind=kind)
    assert same(without, clean.expected)
    assert same(with_passes, clean.expected)
    if entry.expected_via.startswith("skip:"):
        skip = entry.expected_via.removeprefix("skip:")
        assert same(observe(entry, mod, func=clean.func, kind=kind, skip=skip), clean.expected)


def test_case03_dce_alone_keeps_the_impure_call() -> None:
    """Only RemoveUnusedOutputs loses the effect; DeadCodeElimination respects the purity."""
    entry = CASES_BY_ID["03"]
    before = load_case(entry)[entry.module]
    kept = relax.transform.DeadCodeElimination()(before)
    assert observe(entry, kept) == entry.expected


def test_case10_dce_removes_nothing_after_lowering() -> None:
    """After lowering, DCE keeps all 12 bindings: kernels, the packed call, allocs and kills."""
    entry = CASES_BY_ID["10"]
    before = load_case(entry)[entry.module]
    lowering = entry.passes()[:-1]  # the same passes without the trailing DCE
    lowered = apply_passes(before, lowering)
    after = relax.transform.DeadCodeElimination()(lowered)
    assert binding_names(after) == binding_names(lowered)
    assert len(binding_names(after)) == 12
    script = after["main"].script(show_meta=False)
    assert script.count("double(x, alloc") == 2
    assert script.count("aliaslog.case10.dps_copy") == 1


def test_case07_overwrites_the_ir_modules_own_constant() -> None:
    """A second build of the same compiled module starts from the constant the first run left."""
    entry = CASES_BY_ID["07"]
    after = apply_passes(load_case(entry)[entry.module], entry.passes())
    assert same(observe(entry, after), entry.buggy)
    assert [float(v[0]) for v in observe(entry, after)] == [6.0, 7.0, 8.0]
