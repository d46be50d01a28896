from tests.watch.conftest import run_script  # noqa: F401  (the same in-process runner)
