// P `agentlog serve` processes on one store, each on an ephemeral port; one can be SIGKILLed and
// started again (on a new port). Remembers when each was last killed (failover is measured from it),
// and the CPU time the fleet used (each process read from /proc just before it is killed or stopped).
import { serveProcess, type ServeProcess } from '../../spec/helpers/serveProcess.js'
import { bundle } from './bundle.js'
import { processCpuMs } from './cpu.js'

let bundled: ReturnType<typeof bundle> | null = null

export interface Member { process: ServeProcess; url: string | null; killedAt: number }

export class Fleet {
  readonly members: Member[] = []
  /** CPU ms of the processes that ended (killed or stopped). */
  private retiredCpuMs = 0

  constructor(private readonly storeArgs: string[]) {}

  private files: { cli: string; agent: string } | null = null

  async start(count: number): Promise<void> {
    this.files = await (bundled ??= bundle())
    for (let i = 0; i < count; i++) this.members.push({ process: this.spawn(), url: null, killedAt: 0 })
    await Promise.all(this.members.map(async (m) => (m.url = await m.process.url)))
  }

  private spawn(): ServeProcess {
    return serveProcess(['--agent', this.files!.agent, ...this.storeArgs], {}, ['--max-old-space-size=512', this.files!.cli])
  }

  /** The indexes of the members that serve now. */
  live(): number[] {
    return this.members.flatMap((m, i) => (m.url ? [i] : []))
  }

  /** A live member other than `not` (or any live one). */
  other(not: number, salt = 0): number {
    const live = this.live()
    const others = live.filter((i) => i !== not)
    const pool = others.length ? others : live
    return pool[salt % pool.length]
  }

  /** SIGKILLs member `i` and starts it again after `downMs`. */
  async kill(i: number, downMs = 500): Promise<void> {
    const m = this.members[i]
    m.url = null
    m.killedAt = Date.now()
    this.retiredCpuMs += processCpuMs(m.process.child.pid)
    m.process.child.kill('SIGKILL')
    await m.process.exited
    await new Promise((r) => setTimeout(r, downMs))
    m.process = this.spawn()
    m.url = await m.process.url
  }

  async stop(): Promise<void> {
    this.retiredCpuMs = this.cpuMs()
    await Promise.all(this.members.map((m) => m.process.stop()))
    this.members.length = 0
  }

  /** CPU ms (user + system) of every serve process this fleet ran, so far. */
  cpuMs(): number {
    return this.retiredCpuMs + this.members.reduce((sum, m) => sum + processCpuMs(m.process.child.pid), 0)
  }
}
