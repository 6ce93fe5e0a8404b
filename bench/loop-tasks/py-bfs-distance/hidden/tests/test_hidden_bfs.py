from graphkit import distance


def test_shortest_of_two_routes():
    graph = {"s": ["a", "x"], "a": ["b"], "b": ["t"], "x": ["t"], "t": ["s"]}
    assert distance(graph, "s", "t") == 2
    assert distance(graph, "t", "b") == 3
    assert distance(graph, "b", "q") == -1
