"""One screen per file; ``base`` holds what every workbench screen shares."""
