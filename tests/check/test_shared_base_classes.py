"""A base class inherited by many files of one project (a trainer base, a pipeline base): its
entry points are traced with each subclass's instance. A trace that found nothing for one
subclass is skipped for the next only when that subclass's instance resolves everything the
trace read the same way; a subclass whose override or setting the base reads is traced anew."""

from __future__ import annotations

import textwrap
from pathlib import Path

from lrdoctor.check.project import ProjectLoader
from lrdoctor.check.runner import check_files

BASE = """
    class BaseTrainer:
        def __init__(self, model, loader, epochs):
            self.model = model
            self.loader = loader
            self.epochs = epochs

        def fit(self):
            for epoch in range(self.epochs):
                self.train_epoch(epoch)

        def train_epoch(self, epoch):
            raise NotImplementedError
"""

# a trainer whose epoch does nothing lrdoctor follows: the inherited fit() finds nothing
QUIET = """
    import torch

    from .base import BaseTrainer


    class {name}(BaseTrainer):
        def train_epoch(self, epoch):
            print("epoch", epoch)

        def restore(self, path):
            self.model.load_state_dict(torch.load(path, weights_only=True))
"""

# OneCycleLR built for every batch, stepped once per epoch: only the inherited fit() puts
# train_epoch inside the epoch loop
ONECYCLE_PER_EPOCH = """
    import torch
    from torch.optim.lr_scheduler import OneCycleLR

    from .base import BaseTrainer


    class OneCycleTrainer(BaseTrainer):
        def __init__(self, model, loader, epochs):
            super().__init__(model, loader, epochs)
            self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
            self.scheduler = OneCycleLR(self.optimizer, max_lr=0.1,
                                        total_steps=epochs * len(loader))

        def train_epoch(self, epoch):
            for x in self.loader:
                self.optimizer.zero_grad()
                self.model(x).sum().backward()
                self.optimizer.step()
            self.scheduler.step()
"""


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text))


def project(root: Path, trainers: dict[str, str]) -> list[str]:
    (root / "pyproject.toml").write_text("[project]\nname = 'trainers'\n")
    write(root / "trainers/__init__.py", "")
    write(root / "trainers/base.py", BASE)
    for name, text in trainers.items():
        write(root / f"trainers/{name}.py", text)
    return [str(root / f"trainers/{name}.py") for name in sorted(trainers)]


def found(paths: list[str]) -> list[tuple[str, str, int]]:
    report = check_files(paths, frozenset({"LRD001", "LRD002", "LRD003"}), jobs=1)
    assert report.errors == []
    return [(d.code, Path(d.path).name, d.line) for d in report.diagnostics]


def test_onecycle_subclass_checked_after_quiet_subclasses_of_the_same_base_is_lrd003(
        tmp_path: Path) -> None:
    paths = project(tmp_path, {
        "a_quiet": QUIET.format(name="QuietTrainer"),
        "b_quiet": QUIET.format(name="OtherQuietTrainer"),
        "c_onecycle": ONECYCLE_PER_EPOCH,
    })
    assert found(paths) == [("LRD003", "c_onecycle.py", 20)]
    # the same finding as when the subclass is checked alone
    assert found(paths[2:]) == [("LRD003", "c_onecycle.py", 20)]


def test_quiet_subclasses_share_the_inherited_trace_and_still_report_nothing(
        tmp_path: Path) -> None:
    paths = project(tmp_path, {f"quiet_{i}": QUIET.format(name=f"QuietTrainer{i}")
                               for i in range(4)})
    assert found(paths) == []


def test_the_inherited_trace_is_kept_once_per_method_for_the_files_of_a_run(
        tmp_path: Path) -> None:
    from lrdoctor.check.engine import check_file

    paths = project(tmp_path, {f"quiet_{i}": QUIET.format(name=f"QuietTrainer{i}")
                               for i in range(3)})
    loader = ProjectLoader()
    for path in paths:
        assert check_file(path, frozenset({"LRD003"}), loader).diagnostics == []
    # fit() read train_epoch, which each subclass overrides: one kept trace per subclass
    # (at most four), none skipped wrongly; the base's own train_epoch is never an entry
    kept = {key[0].name: known for key, known in loader.inert.items() if key[2] == "entry"}
    assert set(kept) == {"fit"}
    assert len(kept["fit"]) == 3
    assert all("b.train_epoch" in k.reads for k in kept["fit"])


def test_a_helper_given_a_quiet_trainer_first_still_judges_a_onecycle_trainer_given_next(
        tmp_path: Path) -> None:
    # fit() of a project module is called by two test functions: the first gives it a
    # trainer whose epoch does nothing lrdoctor follows (its trace is kept as inert), the
    # second a trainer that steps a OneCycleLR once per epoch
    write(tmp_path / "pyproject.toml", "[project]\nname = 'loops'\n")
    write(tmp_path / "loops.py", """
        def fit(trainer, epochs):
            for epoch in range(epochs):
                trainer.train_epoch(epoch)
    """)
    write(tmp_path / "test_loops.py", """
        import torch
        from torch.optim.lr_scheduler import OneCycleLR

        from loops import fit


        class QuietTrainer:
            def train_epoch(self, epoch):
                print("epoch", epoch)


        class OneCycleTrainer:
            def __init__(self, model, loader, epochs):
                self.model, self.loader = model, loader
                self.optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
                self.scheduler = OneCycleLR(self.optimizer, max_lr=0.1,
                                            total_steps=epochs * len(loader))

            def train_epoch(self, epoch):
                for x in self.loader:
                    self.optimizer.zero_grad()
                    self.model(x).sum().backward()
                    self.optimizer.step()
                self.scheduler.step()


        def test_quiet():
            fit(QuietTrainer(), 3)


        def test_onecycle():
            loader = torch.utils.data.DataLoader(list(range(64)), batch_size=8)
            fit(OneCycleTrainer(torch.nn.Linear(8, 2), loader, 3), 3)
    """)
    assert found([str(tmp_path / "test_loops.py")]) == [("LRD003", "test_loops.py", 25)]
