"""`python -m remgraph` runs the CLI."""

from remgraph.entry import main

main()
