// A map the hot path reads synchronously. Writes through this process patch it at once; reload()
// replaces it from the database so that changes made by other processes (CLI, other instances) heal.
// A key written locally while a reload was running keeps its local value: the reload's snapshot may
// have been read before that write committed.
export class LiveMap<V> {
  private map = new Map<string, V>();
  private readonly writtenAt = new Map<string, number>();
  private seq = 0;

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V | undefined): void {
    this.writtenAt.set(key, ++this.seq);
    if (value === undefined) this.map.delete(key);
    else this.map.set(key, value);
  }

  async reload(load: () => Promise<Map<string, V>>): Promise<void> {
    const started = this.seq;
    const fresh = await load();
    const next = new Map<string, V>();
    for (const [k, v] of fresh) if (!this.newerThan(k, started)) next.set(k, v);
    for (const [k, v] of this.map) if (this.newerThan(k, started)) next.set(k, v);
    this.map = next;
    for (const [k, s] of this.writtenAt) if (s <= started) this.writtenAt.delete(k);
  }

  private newerThan(key: string, seq: number): boolean {
    return (this.writtenAt.get(key) ?? -1) > seq;
  }
}
