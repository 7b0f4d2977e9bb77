"""The one-line summary of a soak seed (:class:`Summary`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Summary:
    """The figures of one seed (see :meth:`line`)."""

    seed: int
    duels: int = 0
    posts: int = 0
    owls: int = 0
    notices: int = 0
    restarts: int = 0
    kills: int = 0
    restores: int = 0
    outages: int = 0
    violations: list[str] = field(default_factory=list)
    extra: dict[str, object] = field(default_factory=dict)

    def line(self) -> str:
        """``seed=N duels=.. posts=.. owls=.. notices=.. restarts=.. kills=.. restores=..
        outages=.. violations=..`` and the extra figures."""
        extra = " ".join(f"{k}={v}" for k, v in self.extra.items())
        return (f"seed={self.seed} duels={self.duels} posts={self.posts} owls={self.owls} "
                f"notices={self.notices} restarts={self.restarts} kills={self.kills} "
                f"restores={self.restores} outages={self.outages} "
                f"violations={len(self.violations)}" + (f" {extra}" if extra else ""))  # fmt: skip
