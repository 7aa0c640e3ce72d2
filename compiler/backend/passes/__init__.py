"""Backend passes, one per file: each a frozen dataclass with a `name` and `run(module)`."""
