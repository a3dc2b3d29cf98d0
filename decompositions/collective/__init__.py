"""The collective family's decompositions, one module per ATen namespace: torch's functional collectives
(``functional``), c10d's process-group ops (``c10d``) and FSDP2's copies (``fsdp``)."""
from primkit.decompositions.collective import c10d, fsdp, functional  # noqa: F401  (each registers on import)
