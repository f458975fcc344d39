"""harmwatch's Textual workbench. Import ``workbench.tui.app.create_app`` to build it.

Nothing outside this package imports it at module level: the CLI must start
without loading textual (an import contract and a test hold it so).
"""
