// remoteAgent's side of talking to a running agent (issue 30): steer, queue, unqueue and the Stop
// route (now or `when: 'step'`, keeping the queue or not), each one request to the server; each
// resolves to what the local agent's method does, once the followed state shows it.
import type { AgentInput } from '../agent/agentOptions.js'
import type { InterruptOptions, InterruptResult, QueueResult, SteerResult } from '../agent/talk.js'
import type { Transport } from './transport.js'

interface Answer { seq?: unknown }

export class RemoteTalk {
  constructor(private readonly transport: Transport, private readonly reach: (seq: number) => Promise<void>) {}

  /** Asks the server to interrupt; resolves with the seq its log had reached once the reply ended, and what it handed back. */
  async interruptAt(options: InterruptOptions = {}): Promise<{ seq: number } & InterruptResult> {
    const answer = (await this.transport.call('POST', '/interrupt', options)) as Answer & Partial<InterruptResult>
    return { seq: seqOf(answer), queue: answer.queue ?? [] }
  }

  async interrupt(options: InterruptOptions = {}): Promise<InterruptResult> {
    const { seq, queue } = await this.interruptAt(options)
    await this.reach(seq)
    return { queue }
  }

  async steer(input: AgentInput | string): Promise<SteerResult> {
    const { id, reply_id } = await this.send<SteerResult>({ steer: input })
    return { id, reply_id }
  }

  async queue(input: AgentInput | string): Promise<QueueResult> {
    const { id, position } = await this.send<QueueResult>({ queue: input })
    return { id, position }
  }

  async unqueue(id: string): Promise<void> {
    await this.send({ unqueue: id })
  }

  private async send<T>(body: unknown): Promise<T> {
    const answer = (await this.transport.call('POST', '/input', body)) as Answer & T
    await this.reach(seqOf(answer))
    return answer
  }
}

const seqOf = (answer: Answer): number => (typeof answer.seq === 'number' ? answer.seq : 0)
