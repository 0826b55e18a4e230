"""Stores: the core interface (``base.Store``), one module per backend, one registry
(``STORES``), and store URLs naming a backend (``url``). Routes keep their own objects in
repositories (``REPOSITORIES``) that each backend implements beside the core."""

from logicmem.store.base import STORES, Store

__all__ = ["STORES", "Store"]
