"""Write the service's OpenAPI schema, generated from the code (``docs/openapi.json``).

    python -m logicmem.service.openapi docs/openapi.json

``tests/service/test_openapi.py`` fails when the checked-in file differs from the code.
"""

from __future__ import annotations

import json
import sys
from typing import Any


def schema() -> dict[str, Any]:
    from logicmem.service.app import create_app

    return create_app().openapi()


def render() -> str:
    return json.dumps(schema(), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = render()
    if args:
        with open(args[0], "w", encoding="utf-8") as out:
            out.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
