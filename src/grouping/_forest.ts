/**
 * Union-find over asset indexes, shared by the criteria and the default rules.
 *
 * @module
 */

/** Union-find over asset indexes, by size with path halving. */
export class Forest {
  readonly #parent: Int32Array;
  readonly #size: Int32Array;

  /** @param n How many assets. */
  constructor(n: number) {
    this.#parent = new Int32Array(n);
    this.#size = new Int32Array(n).fill(1);
    for (let i = 0; i < n; i++) this.#parent[i] = i;
  }

  /** The representative of `i`'s set. */
  find(i: number): number {
    const parent = this.#parent;
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  }

  /** Joins the sets of `a` and `b`. */
  union(a: number, b: number): void {
    let ra = this.find(a);
    let rb = this.find(b);
    if (ra === rb) return;
    if (this.#size[ra] < this.#size[rb]) [ra, rb] = [rb, ra];
    this.#parent[rb] = ra;
    this.#size[ra] += this.#size[rb];
  }

  /** Whether the asset was joined with at least one other. */
  joined(i: number): boolean {
    return this.#size[this.find(i)] > 1;
  }

  /** The representative of `i`'s set, or -1 when `i` was joined with no other. */
  joinedRoot(i: number): number {
    const root = this.find(i);
    return this.#size[root] > 1 ? root : -1;
  }
}
