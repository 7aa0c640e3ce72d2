"""The NoC between the PEs and the crossbars at the die edges (ISCA'25: a mesh, crossbars on each
side of the die leading to the SRAMs and the memory controllers).

A PE reaches memory along its grid row to the crossbar at the nearer side (west for the left half
of the columns, east for the right half): from the crossbar, link 0 enters the PE next to the edge,
link 1 the next PE inward, and so on. Links are full duplex: reads (data towards the PE) and writes
(data towards memory) use separate directions of `noc.link_gbps` each, first come first served. So
the PEs of one half-row share the link into their crossbar, and contend there.

A broadcast read travels as one copy up to where its receivers' routes part: each link on the
union of their routes carries it once.
"""
from __future__ import annotations

from .link import Link


class Noc:
    def __init__(self, cfg):
        self.cfg = cfg
        cols = cfg.grid.cols
        self.routes: list[tuple[tuple[int, str, int], ...]] = []
        for i in range(cfg.num_pes):
            r, c = divmod(i, cols)
            side, dist = ("w", c) if c + 1 <= cols - c else ("e", cols - 1 - c)
            self.routes.append(tuple((r, side, p) for p in range(dist + 1)))
        self.bpc = cfg.gbps_to_bpc(cfg.noc.link_gbps)

    def hops(self, pe: int) -> int:
        """Links from the edge crossbar to PE `pe`."""
        return len(self.routes[pe])

    def new_launch(self) -> None:
        self.links: dict[tuple, Link] = {}
        self.crossed: dict[tuple, list[Link]] = {}      # (PEs, write) -> links_of, worked out once

    def links_of(self, pes, write: bool) -> list[Link]:
        """The links a transfer between memory and the PEs `pes` crosses, each once."""
        key = (tuple(pes), write)
        links = self.crossed.get(key)
        if links is None:
            links = self.crossed[key] = self._links_of(pes, write)
        return links

    def _links_of(self, pes, write: bool) -> list[Link]:
        seen = {}
        for pe in pes:
            for hop in self.routes[pe]:
                key = hop + (write,)
                if key not in seen:
                    link = self.links.get(key)
                    if link is None:
                        r, side, p = hop
                        link = self.links[key] = Link(f"noc.r{r}{side}{p}.{'out' if write else 'in'}", self.bpc)
                    seen[key] = link
        return list(seen.values())
