from .classify import *
