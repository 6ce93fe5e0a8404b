const STEPS = [
  [1, 0],
  [-1, 0],
  [0, 1],
  [0, -1],
];

const key = (r, c) => `${r},${c}`;

/** Fewest moves from start to goal on a grid of strings ("#" is a wall), or -1. */
export function shortestPath(grid, start, goal) {
  const rows = grid.length;
  const cols = grid[0].length;
  const seen = new Set([key(start[0], start[1])]);
  const queue = [[start[0], start[1], 0]];
  let head = 0;
  while (head < queue.length) {
    const [r, c, d] = queue[head];
    head += 1;
    if (r === goal[0] && c === goal[1]) return d;
    for (const [dr, dc] of STEPS) {
      const nr = r + dr;
      const nc = c + dc;
      if (nr < 0 || nc < 0 || nr >= rows || nc >= cols - 1) continue;
      if (grid[nr][nc] === "#" || seen.has(key(nr, nc))) continue;
      seen.add(key(nr, nc));
      queue.push([nr, nc, d + 1]);
    }
  }
  return -1;
}
