"""Stores: one interface (``base.Store``), one module per backend, one registry."""

from logicmem.store.base import STORES, Store

__all__ = ["STORES", "Store"]
