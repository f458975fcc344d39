"""One module per command or command group; each exposes ``register(app)``.

Keeping the registration in the module that defines the command lets new
groups (track, benchmark, validate, serve, tui, db) be added without touching
each other's code: ``workbench.cli`` only lists the modules.
"""
