"""The HTTP service (``logicmem serve``), its API keys, tenants and background jobs."""
