from .classifier import ClassifierTrainer

__all__ = ["ClassifierTrainer"]
