from .classify import *  # noqa: F403 - the star re-export is the shape under test
