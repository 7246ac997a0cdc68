"""``python -m archmem`` runs the command line (``archmem.entry``)."""

from archmem.entry import main

if __name__ == "__main__":
    main()
