"""``python -m logicmem.bench``: the bench CLI without the main ``logicmem`` entry point."""

from logicmem.bench.cli import main

raise SystemExit(main())
