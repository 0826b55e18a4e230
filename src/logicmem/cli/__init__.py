"""The ``logicmem`` command."""
