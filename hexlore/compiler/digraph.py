"""Graph algorithms the compiler's analyses share: components, shortest cycles, a capped search.

Why a module of its own: the cycle check (:mod:`.cycles`) used to enumerate every path of
a component, which is exponential in the number of triggers (a 2.6 KB ladder of triggers
took minutes). Everything here is linear in the size of the graph, except
:func:`elementary_cycles`, whose work is counted against a :class:`Budget` the caller owns,
so that a cap is reached, and reported, instead of a hang.

Nodes are strings; a graph is given as an ordered node list and a successor function, so the
callers keep their own order (declaration order), and results come out in that order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

Successors = Callable[[str], Iterable[str]]


@dataclass
class Budget:
    """Steps of search an analysis may still take; shared by every search of one check."""

    left: int
    exhausted: bool = False

    def spend(self, steps: int = 1) -> bool:
        """Take ``steps``; False (and ``exhausted`` set) once there are none left."""
        self.left -= steps
        if self.left < 0:
            self.exhausted = True
        return not self.exhausted


def condensation(nodes: list[str], succ: Successors) -> list[list[str]]:
    """Every strongly connected component, sources first (a component comes before every
    component it has a step to), each in ``nodes`` order.

    Kosaraju's algorithm, iteratively: a long chain must not exhaust Python's stack.
    """
    rank = {n: i for i, n in enumerate(nodes)}
    out_edges = {n: [m for m in succ(n) if m in rank] for n in nodes}
    finished: list[str] = []
    seen: set[str] = set()
    for root in nodes:
        if root in seen:
            continue
        seen.add(root)
        todo = [(root, iter(out_edges[root]))]
        while todo:
            node, children = todo[-1]
            child = next(children, None)
            if child is None:
                todo.pop()
                finished.append(node)
            elif child not in seen:
                seen.add(child)
                todo.append((child, iter(out_edges[child])))
    back: dict[str, list[str]] = {n: [] for n in nodes}
    for n in nodes:
        for m in out_edges[n]:
            back[m].append(n)
    owner: set[str] = set()
    comps: list[list[str]] = []
    for root in reversed(finished):
        if root in owner:
            continue
        owner.add(root)
        comp, todo_back = [], [root]
        while todo_back:
            node = todo_back.pop()
            comp.append(node)
            for prev in back[node]:
                if prev not in owner:
                    owner.add(prev)
                    todo_back.append(prev)
        comps.append(sorted(comp, key=rank.__getitem__))
    return comps


def components(nodes: list[str], succ: Successors) -> list[list[str]]:
    """Strongly connected components that contain a cycle, each in ``nodes`` order, ordered
    by their first node."""
    rank = {n: i for i, n in enumerate(nodes)}
    cyclic = [c for c in condensation(nodes, succ) if len(c) > 1 or c[0] in set(succ(c[0]))]
    return sorted(cyclic, key=lambda c: rank[c[0]])


def path_back(start: str, goal: str, members: set[str], succ: Successors,
              allowed: Callable[[str], bool] = lambda n: True) -> list[str] | None:
    """The shortest path ``start`` … ``goal`` inside ``members`` (breadth first, successors in
    their order, only through nodes ``allowed``); None when there is none."""
    if start == goal:
        return [start]
    parents: dict[str, str] = {start: start}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for nxt in succ(node):
                if nxt in parents or nxt not in members or (nxt != goal and not allowed(nxt)):
                    continue
                parents[nxt] = node
                if nxt == goal:
                    path = [goal]
                    while path[-1] != start:
                        path.append(parents[path[-1]])
                    return list(reversed(path))
                following.append(nxt)
        frontier = following
    return None


def cycle_through(node: str, members: set[str], succ: Successors,
                  allowed: Callable[[str], bool] = lambda n: True) -> list[str] | None:
    """A shortest cycle through ``node`` inside ``members``, starting at ``node``."""
    best: list[str] | None = None
    for first in succ(node):
        if first == node:
            return [node]
        if first in members and allowed(first):
            back = path_back(first, node, members, succ, allowed)
            if back is not None and (best is None or len(back) < len(best)):
                best = back
    return None if best is None else [node] + best[:-1]


#: node visits the search for a shortest cycle of one component may make
SHORTEST_VISITS = 200_000


def shortest_cycle(comp: list[str], succ: Successors) -> list[str]:
    """A shortest cycle of a component, rooted at its earliest node (the order of ``comp``).

    One breadth-first search per node, each through later nodes only, so a cycle is found
    from its earliest node; the searches stop at a self-loop, at a cycle of two, or after
    about :data:`SHORTEST_VISITS` visits (the best cycle so far is still a cycle of the
    component, only perhaps not the shortest: nothing is lost by stopping).
    """
    members = set(comp)
    rank = {n: i for i, n in enumerate(comp)}
    best: list[str] | None = None
    budget = Budget(SHORTEST_VISITS)
    for start in comp:
        if best is not None and (len(best) <= 2 or not budget.spend(len(comp))):
            break
        floor = rank[start]  # read at once, within this turn of the loop
        found = cycle_through(start, members, succ, lambda n: rank[n] > floor)
        if found is not None and (best is None or len(found) < len(best)):
            best = found
    return best if best is not None else comp[:1]


def rooted(cycle: list[str], rank: Callable[[str], int]) -> list[str]:
    """The cycle turned to start at its earliest node."""
    i = min(range(len(cycle)), key=lambda k: rank(cycle[k]))
    return cycle[i:] + cycle[:i]


def elementary_cycles(comp: list[str], succ: Successors, budget: Budget) -> Iterator[list[str]]:
    """The elementary cycles of a component, each rooted at its earliest node, until the
    budget runs out (one step per path extended; ``budget.exhausted`` then tells)."""
    members = set(comp)
    rank = {n: i for i, n in enumerate(comp)}
    for start in comp:
        stack = [(start, [start], {start})]
        while stack:
            node, path, on_path = stack.pop()
            for nxt in reversed(list(succ(node))):
                if nxt not in members or rank[nxt] < rank[start]:
                    continue
                if not budget.spend(len(path)):
                    return
                if nxt == start:
                    yield path
                elif nxt not in on_path:
                    stack.append((nxt, path + [nxt], on_path | {nxt}))


def has_cycle(nodes: list[str], succ: Successors) -> list[str] | None:
    """One cycle among ``nodes`` under ``succ`` (a shortest one of the first component that
    has one), or None when the graph is acyclic."""
    comps = components(nodes, succ)
    return shortest_cycle(comps[0], succ) if comps else None
