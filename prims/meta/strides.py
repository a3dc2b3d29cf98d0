"""Moved to ``primkit.prims.layout`` (the public layout module). This name stays only until the
decomposition modules other work holds open import from there (to be removed with them)."""
from primkit.prims import layout as _layout

globals().update({k: v for k, v in vars(_layout).items() if not k.startswith("__")})
