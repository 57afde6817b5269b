// Small integer ids for the few names a column repeats (sources, media), so a row holds a number.

/** Names numbered in order of first appearance. */
export class NameTable {
  private readonly ids = new Map<string, number>();
  private readonly names: string[] = [];
  /** The last name looked up and its id: consecutive rows mostly repeat it. */
  private lastName: string | null = null;
  private lastId = 0;

  /** The id of `name`, numbering it if new. */
  id(name: string): number {
    if (name === this.lastName) return this.lastId;
    let id = this.ids.get(name);
    if (id === undefined) {
      id = this.ids.size;
      this.ids.set(name, id);
      this.names.push(name);
    }
    this.lastName = name;
    this.lastId = id;
    return id;
  }

  /** The name numbered `id`. */
  name(id: number): string {
    return this.names[id] as string;
  }

  /** The id of a name already numbered, else undefined. */
  find(name: string): number | undefined {
    return this.ids.get(name);
  }
}
