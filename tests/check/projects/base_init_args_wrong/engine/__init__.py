from engine.runners import ImageRunner

__all__ = ["ImageRunner"]
