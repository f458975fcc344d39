"""harmwatch's analyst tools: the typer CLI now, the Textual TUI later.

Front ends only: every decision is made by ``engine``. This package reads the
settings at its entry points, calls the core and renders what it returns, so
the CLI, the TUI and the API can never disagree about a classification.
"""
