from collections import deque


def distance(graph, start, goal):
    """Fewest edges from start to goal in a directed graph (dict of lists), or -1."""
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        node, steps = queue.popleft()
        if node == goal:
            return steps
        for nxt in graph.get(node, []):
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, steps + 2))
    return -1
