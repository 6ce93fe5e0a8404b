from .bfs import distance
