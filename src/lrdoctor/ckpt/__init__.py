"""``lrdoctor ckpt``: audit saved checkpoints for what a resume would get wrong.

- :mod:`lrdoctor.ckpt.loading`: reads a file with ``weights_only=True`` (never runs it)
- :mod:`lrdoctor.ckpt.audit`: recognises its parts and judges them
- :mod:`lrdoctor.ckpt.command`: the command line and its text/JSON output
"""

# Codes `lrdoctor ckpt` reports (the catalog's pages name it as a finder of these).
CKPT_CODES = frozenset({"LRD007", "LRD008"})
