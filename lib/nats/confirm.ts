// What this process can prove about the sessions it holds, before it does anything another owner
// might do too (apply a routed command, start a tool or a model call). A renewal of the owner key
// sent less than two thirds of a lease ago proves that no process can have taken a held session by
// its key running out; a revision-checked update of a session's lease key proves nobody took it
// by the ping (needed after a disconnect, when this process did not answer pings). When the owner
// key ran out (a pause past the lease, a server away longer than it) the key is made again under
// the same id and every held session proven one by one: only the sessions another process took
// are lost. A server that cannot be reached fails nothing by itself: `confirm` waits for it.
import { sleep } from '../core/abort.js'
import { AgentError } from '../core/errors.js'
import type { Nats } from './connection.js'
import { isConflict, unavailable } from './errors.js'
import { idOf, keyOf } from './names.js'

/** How long `confirm` waits for the server before it gives the session up. */
const CONFIRM_FOR_MS = 15_000

export abstract class Ownership {
  protected owner: string | null = null
  protected revision = 0
  /** performance.now() when the last successful renewal (or registration) of the owner key was sent. */
  protected provenAt = -Infinity
  protected readonly held = new Map<string, number>()
  /** Held sessions another process may have taken while this one did not answer pings: proven before the next side effect. */
  private readonly suspect = new Set<string>()
  private renewing: Promise<void> | null = null
  protected closed = false

  constructor(
    protected readonly nats: () => Promise<Nats>,
    protected readonly leaseMs: number,
    private readonly onLost: (error: AgentError, session_id?: string) => void,
  ) {}

  protected abstract id(): Promise<string>

  protected record(): string {
    return JSON.stringify({ pid: process.pid, renewed: new Date().toISOString() })
  }

  /**
   * Null when this process surely still owns the session (no round trip); otherwise a promise that
   * resolves once that is proven again, or fails the session's log and rejects when another
   * process may own it now.
   */
  confirm(session_id: string): Promise<void> | null {
    const key = keyOf(session_id)
    if (this.held.has(key) && !this.suspect.has(key) && this.owner && performance.now() - this.provenAt < (this.leaseMs * 2) / 3) return null
    return this.prove(session_id, key)
  }

  private async prove(session_id: string, key: string): Promise<void> {
    const until = performance.now() + CONFIRM_FOR_MS
    for (;;) {
      if (!this.held.has(key) || this.closed) throw this.lostError(session_id, 'its lease is no longer held here')
      try {
        if (performance.now() - this.provenAt >= (this.leaseMs * 2) / 3) await this.renew()
        if (this.suspect.has(key)) await this.bump(key)
        if (!this.held.has(key)) throw this.lostError(session_id, 'another process took its lease')
        if (performance.now() - this.provenAt < (this.leaseMs * 2) / 3) return
      } catch (error) {
        if (error instanceof AgentError && error.code === 'LOG_CONFLICT') throw error
        if (performance.now() > until) {
          const failure = unavailable(error, `proving this process still owns session ${session_id}`)
          this.drop(key, failure)
          throw failure
        }
      }
      await sleep(200)
    }
  }

  /** Renews the owner key now (one renewal at a time); a key that ran out is made again and every held session proven. */
  protected renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = null))
    return this.renewing
  }

  private async renewOnce(): Promise<void> {
    const owner = this.owner
    if (!owner || this.closed) return
    const nats = await this.nats()
    const sentAt = performance.now()
    try {
      this.revision = await nats.owners.update(owner, this.record(), this.revision)
      this.provenAt = sentAt
      return
    } catch (error) {
      if (this.owner !== owner) throw error
      // The owners bucket deleted by an operator: made again, then the key is made again below.
      if (!isConflict(error) && (await nats.repair().catch(() => [])).length === 0) throw error
    }
    // The key ran out (renewals stopped for a whole lease) or its bucket was made again: any held session may have been taken.
    this.suspectAll()
    try {
      this.revision = await nats.owners.create(owner, this.record())
    } catch (error) {
      if (isConflict(error) || /exists/i.test((error as Error)?.message ?? '')) return this.lostAll('its owner key was changed by another process')
      throw error
    }
    this.provenAt = sentAt
    await this.proveSuspects()
  }

  protected suspectAll(): void {
    for (const key of this.held.keys()) this.suspect.add(key)
  }

  /** Proves every suspect session (those taken are lost); errors are left for the next try. */
  protected async proveSuspects(): Promise<void> {
    await Promise.all([...this.suspect].map((key) => this.bump(key).catch(() => undefined)))
  }

  /** A revision-checked update of the session's lease: it succeeds only if nobody took it meanwhile, and from then on a taker's update fails. */
  private async bump(key: string): Promise<void> {
    const revision = this.held.get(key)
    const owner = this.owner
    if (revision === undefined || !owner) return
    const nats = await this.nats()
    try {
      const next = await nats.leases.update(key, owner, revision)
      if (this.held.get(key) === revision) this.held.set(key, next)
      this.suspect.delete(key)
    } catch (error) {
      if (!isConflict(error)) throw error
      this.drop(key, this.lostError(idOf(key), 'another process took its lease while this one could not answer (paused, or away from the server)'))
    }
  }

  private lostError(session: string, why: string): AgentError {
    return new AgentError('LOG_CONFLICT', `This process no longer owns session ${session}: ${why}. Nothing more of it is done here; reopen the session (its owner now answers its requests).`)
  }

  private drop(key: string, error: AgentError) {
    if (!this.held.delete(key)) return
    this.suspect.delete(key)
    this.onLost(error, idOf(key))
  }

  protected forget(key: string): void {
    this.held.delete(key)
    this.suspect.delete(key)
  }

  protected lostAll(why: string): void {
    this.owner = null
    this.held.clear()
    this.suspect.clear()
    this.onLost(new AgentError('LOG_UNAVAILABLE', `This process lost its lease on the sessions it held: ${why}. Another process may own them now; every reply it carried ends here; reopen the session.`))
  }
}
