"""Git adapters beyond the streamed history: commands archmem runs (merge-file) and what
git says between two revisions. ``archmem.repo`` and ``archmem.history`` move into this
package when they are next changed."""
