"""Old name of `mixer.policies` (deprecated, removed in 0.3): import `make_mixer` from `mixer`."""

import warnings

from mixer.policies import POLICIES, make_mixer

__all__ = ["POLICIES", "make_mixer"]

warnings.warn(
    "mixer.factory is deprecated (removed in 0.3): import from mixer or mixer.policies",
    DeprecationWarning,
    stacklevel=2,
)
