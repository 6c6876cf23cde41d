"""Subcommands of the ``goldtable`` command line, one module per group of commands."""
