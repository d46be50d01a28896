"""Static engine: sources (.py, .ipynb) -> a model of the training loop -> rules -> findings."""
