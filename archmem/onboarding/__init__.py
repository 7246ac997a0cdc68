"""Day one on a repository: connecting an existing model to the code it describes.

``suggest`` proposes where each element's code is (names, manifests, history),
``table`` records accepted globs in archmem.toml's ``[paths]`` table.
"""
