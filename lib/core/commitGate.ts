// Holding back what a consumer may see only once it is durable, on a log that commits after
// `append` returns (a database): a reply's REPLY_END and its pauses. Events pass straight through
// until such a sync point arrives; from then on they queue behind `flush()` and are released, in
// order, once every event before them is committed. A failed flush releases nothing more.
export const SYNC_POINTS: ReadonlySet<string> = new Set(['REPLY_END', 'REQUIRE_USER_CONFIRM', 'REQUIRE_EXTERNAL_EXECUTION'])

export class CommitGate<E extends { type: string }> {
  private readonly held: E[] = []
  private draining = false
  private failed = false

  constructor(
    private readonly flush: () => Promise<void>,
    private readonly release: (event: E) => void,
    private readonly fail: (error: unknown) => void,
  ) {}

  /** Events are waiting for a commit. */
  get holding(): boolean {
    return this.held.length > 0
  }

  pass(event: E): void {
    if (this.failed) return
    if (this.held.length === 0 && !SYNC_POINTS.has(event.type)) return this.release(event)
    this.held.push(event)
    if (!this.draining) void this.drain()
  }

  private async drain() {
    this.draining = true
    while (this.held.length > 0 && !this.failed) {
      if (!this.held.some((e) => SYNC_POINTS.has(e.type))) {
        for (const event of this.held.splice(0)) this.release(event)
        break
      }
      // Every event held now was appended before this flush starts, so the flush covers them.
      const count = this.held.length
      try {
        await this.flush()
      } catch (error) {
        this.failed = true
        this.held.length = 0
        this.fail(error)
        break
      }
      for (const event of this.held.splice(0, count)) this.release(event)
    }
    this.draining = false
  }
}
