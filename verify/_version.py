"""The version of the package, in a module of its own: ``verify/__init__.py`` re-exports it, and a module deep
in the package (the frame file format records it) imports it from here, never from the package root."""

__version__ = "0.1.0"
