"""CI reports from ``conformance``, ``drift`` and ``check``: their findings as one list
(``findings``), and one module per format (``sarif``, ``codequality``)."""
