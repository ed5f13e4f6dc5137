// Who owns a session: this process registers as an owner (a key in the owners bucket, whose TTL is
// the lease, renewed every third of it) and holds a session by creating the session's key in the
// leases bucket with its owner id (create-if-absent). A key naming an owner that is gone is taken
// over with a revision-checked update, so of two processes racing for it exactly one wins. An
// owner is gone when its key ran out (killed, partitioned, paused past the lease), or at once when
// nothing answers on its ping subject (its connection closed: the process died), so a killed
// owner's sessions move without waiting for the lease. An owner that finds its key gone, or cannot renew
// it for a whole lease, has lost every session: `onLost` fails their logs, and it registers anew.
// Fencing does not rest on clocks: the appends of a stale owner are refused by JetStream (writer.ts).
// `abandoned` lists the leases of owners that are gone, for the store's `orphans` (the hub's sweeper).
import { AgentError } from '../core/errors.js'
import type { Nats } from './connection.js'
import type { Subscription } from '@nats-io/transport-node'
import { isConflict, isNoResponders, unavailable } from './errors.js'
import { keyOf, type Names } from './names.js'

/** How long a ping of an owner may take before it is taken as alive (a busy process answers late). */
const PING_MS = 1000

export class Lease {
  private owner: string | null = null
  private revision = 0
  private registering: Promise<string> | null = null
  private renewedAt = 0
  private timer: ReturnType<typeof setInterval> | null = null
  private readonly held = new Map<string, number>()
  private ping: Subscription | null = null
  private closed = false

  constructor(
    private readonly nats: () => Promise<Nats>,
    private readonly n: Names,
    private readonly leaseMs: number,
    private readonly onLost: (error: AgentError) => void,
  ) {}

  /** This process's owner id, registered on first use. */
  private id(): Promise<string> {
    if (this.owner) return Promise.resolve(this.owner)
    this.registering ??= (async () => {
      const nats = await this.nats()
      const owner = `${process.pid}-${crypto.randomUUID().slice(0, 12)}`
      this.ping = nats.nc.subscribe(this.n.owner(owner), { callback: (_error, msg) => void msg.respond('') })
      this.revision = await nats.owners.create(owner, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }))
      this.renewedAt = Date.now()
      this.owner = owner
      this.timer = setInterval(() => void this.renew(), Math.max(50, Math.floor(this.leaseMs / 3)))
      this.timer.unref?.()
      return owner
    })().finally(() => (this.registering = null))
    return this.registering
  }

  private async renew() {
    const owner = this.owner
    if (!owner || this.closed) return
    try {
      const nats = await this.nats()
      this.revision = await nats.owners.update(owner, JSON.stringify({ pid: process.pid, renewed: new Date().toISOString() }), this.revision)
      this.renewedAt = Date.now()
    } catch (error) {
      if (this.owner !== owner) return
      if (isConflict(error)) this.lost(`its owner key ran out (renewals stopped for more than ${this.leaseMs} ms)`)
      else if (Date.now() - this.renewedAt > this.leaseMs) this.lost(`it could not be renewed for ${this.leaseMs} ms (${(error as Error)?.message})`)
    }
  }

  private lost(why: string) {
    this.owner = null
    this.ping?.unsubscribe()
    this.ping = null
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.held.clear()
    this.onLost(new AgentError('LOG_UNAVAILABLE', `This process lost its lease on the sessions it held: ${why}. Another process may own them now; every reply it carried ends here; reopen the session.`))
  }

  /** Takes the session's lease; false when a live owner (another process) holds it. */
  async lock(session_id: string): Promise<boolean> {
    const key = keyOf(session_id)
    // Held here already (by an open or a delete in this process): the store reserves a session before locking, this is the guard behind it.
    if (this.held.has(key)) return false
    try {
      const nats = await this.nats()
      const owner = await this.id()
      // Read first: when another process owns the session (every routed command asks), that is one round trip and the ping.
      const entry = await nats.leases.get(key)
      if (entry && entry.operation === 'PUT' && entry.string() !== owner && await this.alive(nats, entry.string())) return false
      try {
        // Free, released, or its holder is gone: take it (by revision), if nobody did first.
        this.held.set(key, entry ? await nats.leases.update(key, owner, entry.revision) : await nats.leases.create(key, owner))
        return true
      } catch (error) {
        if (isConflict(error) || /exists/i.test((error as Error)?.message ?? '')) return false
        throw error
      }
    } catch (error) {
      throw unavailable(error, `taking the lease of session ${session_id}`)
    }
  }

  /**
   * The owner runs: its key has not run out and it answers its ping (both asked at once). Nothing
   * answering means its process died (or lost the server, and then its appends are fenced anyway);
   * a ping not answered in time (a paused or busy process) leaves it to the key.
   */
  private async alive(nats: Nats, owner: string): Promise<boolean> {
    const [key, answers] = await Promise.all([
      nats.owners.get(owner),
      nats.nc.request(this.n.owner(owner), '', { timeout: PING_MS }).then(() => true, (error: unknown) => !isNoResponders(error)),
    ])
    return !!key && key.operation === 'PUT' && answers
  }

  /**
   * The sessions whose lease names an owner that is gone (each owner asked once): the leases a
   * process left when it died. Cheap: one listing of the leases bucket, which holds only the
   * sessions held now (a lease is deleted when its session is closed).
   */
  async abandoned(): Promise<{ key: string; revision: number }[]> {
    const nats = await this.nats()
    const keys: string[] = []
    for await (const key of await nats.leases.keys()) keys.push(key)
    const owners = new Map<string, Promise<boolean>>()
    const found = await Promise.all(keys.map(async (key) => {
      const entry = await nats.leases.get(key)
      if (!entry || entry.operation !== 'PUT' || entry.string() === this.owner) return null
      const owner = entry.string()
      if (!owners.has(owner)) owners.set(owner, this.alive(nats, owner))
      return (await owners.get(owner)) ? null : { key, revision: entry.revision }
    }))
    return found.filter((x) => x !== null)
  }

  /** Deletes an abandoned lease (of a session left idle or paused), unless it was taken meanwhile. */
  async clear(key: string, revision: number): Promise<void> {
    const nats = await this.nats()
    await nats.leases.delete(key, { previousSeq: revision }).catch(() => undefined)
  }

  async unlock(session_id: string): Promise<void> {
    const key = keyOf(session_id)
    const revision = this.held.get(key)
    if (revision === undefined) return
    this.held.delete(key)
    const nats = await this.nats()
    await nats.leases.delete(key, { previousSeq: revision }).catch(() => undefined)
  }

  async close(): Promise<void> {
    this.closed = true
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    const owner = this.owner
    this.owner = null
    this.ping?.unsubscribe()
    this.ping = null
    if (owner) await (await this.nats()).owners.delete(owner).catch(() => undefined)
  }
}
