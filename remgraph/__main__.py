"""`python -m remgraph` runs the CLI."""

from remgraph.cli import main

main()
