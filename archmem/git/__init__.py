"""The git adapter: everything archmem asks git, in one package. ``repository`` (the
working tree's files, plain folders too), ``history`` (the first-parent history in one
streamed ``git log``), ``blame`` (a file's lines and the commits that last changed them),
``revisions`` (what changed between two revisions), ``head`` (HEAD read from files),
``merge_file`` and ``config`` (for the merge driver), ``commands`` (the demo's
back-dated commits). What git says comes back as the values of ``types``; nothing here
imports the domain."""
