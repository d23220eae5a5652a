"""(placeholder: implemented on its own branch)."""

__all__: list[str] = []
