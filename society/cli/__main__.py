"""`python -m society.cli`: the `society` command."""

from society.cli.main import main

main()
