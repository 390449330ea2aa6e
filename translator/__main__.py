"""``python -m translator`` (checkout) / ``python -m transgrad.translator`` (installed)."""

from .cli import main

raise SystemExit(main())
