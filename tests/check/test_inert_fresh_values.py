"""A helper that returns (or writes on the instance it was given) a list or dict it built
itself, of plain values, finds nothing lrdoctor follows: its trace is kept and stands for
the next call made alike, which gets its own copy of that list or dict. Without it, code
whose records build fresh metadata dicts at every call site (transform pipelines) is traced
again at every site, and a whole repository's check runs out of time."""

from __future__ import annotations

import textwrap

from lrdoctor.check import trace
from tests.check.helpers import codes

RECORD = """
    import torch


    class Record:
        def __init__(self, data):
            self.meta = Record.default_meta()
            self.ops = Record.default_ops()
            self.data = data

        @staticmethod
        def default_meta():
            return {}

        @staticmethod
        def default_ops():
            return []

        def copy_from(self, other):
            self.ops = list(other.ops)
            return self


    def convert(record, items):
        fresh = Record(record.data)
        return [fresh.copy_from(record), len(items)]


    def prepare(batch):
        out = []
"""

SITE = """
        r{i} = Record(batch)
        out.append(convert(r{i}, [r{i}.data]))
"""

TRAIN = """
        return out


    def train(model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
        for batch in loader:
            prepare(batch)
            {first}.step()
            {second}.step()
"""


def _script(sites: int, first: str = "scheduler", second: str = "optimizer") -> str:
    body = "".join(SITE.format(i=i) for i in range(sites))
    return textwrap.dedent(RECORD) + textwrap.indent(textwrap.dedent(body), "    ") \
        + textwrap.dedent(TRAIN).format(first=first, second=second)


def _traced_calls(source: str, monkeypatch) -> tuple[int, list[str]]:  # type: ignore[no-untyped-def]
    count = [0]
    original = trace.Tracer.trace_call

    def counting(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        count[0] += 1
        return original(self, *args, **kwargs)

    monkeypatch.setattr(trace.Tracer, "trace_call", counting)
    found = codes(source)
    return count[0], found


def test_fresh_lists_and_dicts_do_not_make_each_call_site_traced_anew(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls, found = _traced_calls(_script(40), monkeypatch)
    assert "LRD001" in found  # the scheduler is still stepped before the optimizer
    # 8 traced calls a site before kept traces could return fresh lists and dicts, 4 after
    assert calls <= 4 * 40 + 10


def test_the_correct_order_after_the_same_helpers_is_not_reported() -> None:
    assert "LRD001" not in codes(_script(5, first="optimizer", second="scheduler"))


def test_each_call_gets_its_own_copy_of_a_kept_list() -> None:
    # the second record's ops are a list of its own: appending to the first one's (a write of
    # a tracked object into it) does not reach the second, whose helper call was skipped
    source = textwrap.dedent("""
        import torch


        class Record:
            def __init__(self):
                self.ops = Record.default_ops()

            @staticmethod
            def default_ops():
                return []


        def train(model, loader):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
            first = Record()
            second = Record()
            first.ops.append(scheduler)
            for batch in loader:
                optimizer.step()
                for s in second.ops:
                    s.step()
                scheduler.step()
    """)
    assert "LRD002" not in codes(source) and "LRD001" not in codes(source)


def _transform_chain(depth: int) -> str:
    """Callable transform classes, each calling two fresh instances of the one below."""
    parts = [textwrap.dedent("""
        import torch


        class Base:
            def __init__(self, keys):
                self.keys = keys
                self.meta = {}

            def info(self):
                return {"keys": self.keys, "ops": []}


        class T0(Base):
            def __call__(self, data):
                out = dict(self.info())
                return [data, out]
    """)]
    for i in range(1, depth):
        parts.append(textwrap.dedent(f"""

            class T{i}(Base):
                def __call__(self, data):
                    first = T{i - 1}(self.keys)
                    second = T{i - 1}(self.keys)
                    return [first(data), second(data), self.info()]
        """))
    parts.append(textwrap.dedent(f"""

        def train(model, loader):
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10)
            pipeline = T{depth - 1}("image")
            for batch in loader:
                pipeline(batch)
                scheduler.step()
                optimizer.step()
    """))
    return "".join(parts)


def test_a_chain_of_callable_transforms_is_not_traced_once_per_path(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    calls, found = _traced_calls(_transform_chain(8), monkeypatch)
    assert "LRD001" in found
    # every instance is new, so each level's two calls doubled the work below it: 2273 traced
    # calls before the kept trace of a level could return its fresh lists, 112 after
    assert calls <= 300


def test_a_chain_of_callable_transforms_in_the_right_order_is_not_reported() -> None:
    source = _transform_chain(6).replace(
        "scheduler.step()\n        optimizer.step()", "optimizer.step()\n        scheduler.step()")
    assert "optimizer.step()\n        scheduler.step()" in source
    assert "LRD001" not in codes(source)


def test_a_chain_deeper_than_the_trace_goes_is_not_traced_once_per_path(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # below MAX_CALL_DEPTH every call is cut short, so no level's trace was kept and each
    # level's two calls doubled the work again (33,239 traced calls for 20 levels); a call cut
    # short by the depth alone is kept for calls made at that same depth, which cut alike
    calls, found = _traced_calls(_transform_chain(20), monkeypatch)
    assert "LRD001" in found
    assert calls <= 6000


def test_a_kept_trace_that_was_cut_short_still_says_so() -> None:
    from lrdoctor.check.engine import check_source

    result = check_source(_transform_chain(20), "train.py")
    assert [d.code for d in result.diagnostics] == ["LRD001"]
    assert any("only partly analysed" in note for note in result.notes)


def test_results_nesting_the_results_below_are_kept_at_every_level(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # each level returns a list holding its two calls' lists: past MAX_COPY_DEPTH nested
    # levels the result was not kept (copied whole for each call, it doubled per level), so
    # each level's second call was traced again: 3,083 traced calls and 6 s for 12 levels,
    # 9,112 and 20 s for 14 (cut short by the statement limit); the levels below the copied
    # ones are now shared by the calls a kept trace stands for
    calls, found = _traced_calls(_transform_chain(12), monkeypatch)
    assert "LRD001" in found
    assert calls <= 200


def test_a_value_nested_deeper_than_the_copied_levels_is_given_back_whole() -> None:
    from lrdoctor.check import inert
    from lrdoctor.check.values import Const, DictVal, TupleVal

    def nested(depth: int) -> object:
        return Const(depth) if depth == 0 else \
            DictVal({"level": Const(depth), "below": TupleVal([nested(depth - 1)])})

    def plain(value: object) -> object:
        if isinstance(value, TupleVal):
            return [plain(v) for v in value.items]
        if isinstance(value, DictVal):
            return {k: plain(v) for k, v in value.items.items()}
        assert isinstance(value, Const)
        return value.value

    built = nested(6)
    rec = inert.Recording({}, 0, lowest=1000)
    form = inert.settle(inert.plain_form(built, rec), rec)
    assert form is not None and form[0] == "copy"
    first, second = inert.give_back(form, {}), inert.give_back(form, {})
    assert plain(first) == plain(second) == plain(built)  # every level, the deepest too
    assert first is not second and first.items["below"] is not second.items["below"]
    # what one caller does to the levels copied for it reaches neither the kept form nor the
    # caller of the first trace
    first.items["level"] = Const(-1)
    first.items["below"].items.append(Const(-2))
    assert plain(inert.give_back(form, {})) == plain(built)
    assert plain(second) == plain(built)
