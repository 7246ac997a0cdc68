"""``python -m archmem`` runs the command line."""

from archmem.cli import main

main()
