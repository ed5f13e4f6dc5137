// A real @a2a-js/sdk server (its DefaultRequestHandler, InMemoryTaskStore and Express handlers) on
// 127.0.0.1 with an executor the spec writes as a script: text chunks as artifact updates, a final
// status message, an INPUT_REQUIRED question, and a cancel that is honoured or ignored.
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import { AgentCard, Task, TaskArtifactUpdateEvent, TaskStatusUpdateEvent } from '@a2a-js/sdk'
import { AgentEvent, DefaultRequestHandler, InMemoryTaskStore, type AgentExecutor, type ExecutionEventBus, type RequestContext } from '@a2a-js/sdk/server'
import { agentCardHandler, jsonRpcHandler, UserBuilder } from '@a2a-js/sdk/server/express'

export type Step = { text: string } | { delay: number } | { ask: string } | { final: string } | { fail: string }

export interface SdkServer {
  url: string
  store: InMemoryTaskStore
  /** The messages each execute() received: their text, context and task. */
  received: { text: string; contextId: string; taskId: string; data: unknown[] }[]
  /** The task ids CancelTask was called for. */
  cancels: string[]
  close(): Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * `script(turn)` gives the steps of the turn-th execute() (0 for the task, 1 after the first answer, ...).
 * `honourCancel`: cancelTask stops the run and publishes CANCELED; otherwise it is ignored and the run goes on.
 */
export const startSdkServer = async (script: (turn: number, text: string) => Step[], options: { honourCancel?: boolean; name?: string } = {}): Promise<SdkServer> => {
  const { honourCancel = true } = options
  const received: SdkServer['received'] = []
  const cancels: string[] = []
  const stopped = new Set<string>()
  const turns = new Map<string, number>()
  const contexts = new Map<string, string>()
  let url = ''
  const executor: AgentExecutor = {
    async execute(context: RequestContext, bus: ExecutionEventBus) {
      const { taskId, contextId } = context
      const message = context.userMessage
      const text = message.parts.map((p) => (p.content?.$case === 'text' ? p.content.value : '')).join('')
      const data = message.parts.flatMap((p) => (p.content?.$case === 'data' ? [p.content.value] : []))
      received.push({ text, contextId, taskId, data })
      contexts.set(taskId, contextId)
      const turn = turns.get(taskId) ?? 0
      turns.set(taskId, turn + 1)
      bus.publish(AgentEvent.task(context.task ?? Task.fromJSON({ id: taskId, contextId, status: { state: 'TASK_STATE_SUBMITTED' }, history: [] })))
      const status = (state: string, words?: string) =>
        bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId, status: { state, timestamp: new Date().toISOString(), ...(words === undefined ? {} : { message: { messageId: `s-${Math.random()}`, role: 'ROLE_AGENT', parts: [{ text: words }] } }) } })))
      status('TASK_STATE_WORKING')
      let chunks = 0
      for (const step of script(turn, text)) {
        if (stopped.has(taskId)) return
        if ('delay' in step) await sleep(step.delay)
        else if ('text' in step)
          bus.publish(AgentEvent.artifactUpdate(TaskArtifactUpdateEvent.fromJSON({ taskId, contextId, artifact: { artifactId: `a-${turn}`, parts: [{ text: step.text }] }, append: chunks++ > 0 })))
        else if ('ask' in step) return status('TASK_STATE_INPUT_REQUIRED', step.ask)
        else if ('fail' in step) return status('TASK_STATE_FAILED', step.fail)
        else return status('TASK_STATE_COMPLETED', step.final)
      }
      if (!stopped.has(taskId)) status('TASK_STATE_COMPLETED')
    },
    async cancelTask(taskId: string, bus: ExecutionEventBus) {
      cancels.push(taskId)
      if (!honourCancel) return
      stopped.add(taskId)
      bus.publish(AgentEvent.statusUpdate(TaskStatusUpdateEvent.fromJSON({ taskId, contextId: contexts.get(taskId) ?? '', status: { state: 'TASK_STATE_CANCELED' } })))
    },
  }
  const store = new InMemoryTaskStore()
  const card = () => AgentCard.fromJSON({
    name: options.name ?? 'Counter Agent', description: 'Counts and asks.', version: '1.0.0',
    supportedInterfaces: [{ url: `${url}/a2a`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' }],
    capabilities: { streaming: true, pushNotifications: false }, defaultInputModes: ['text/plain'], defaultOutputModes: ['text/plain'], skills: [],
  })
  const handler = new DefaultRequestHandler(card(), store, executor)
  const express = (await import('express' as string)).default as (() => { use: (...args: unknown[]) => void; listen: (port: number, host: string, done: () => void) => Server })
  const app = express()
  app.use('/.well-known/agent-card.json', agentCardHandler({ agentCardProvider: async () => card() }))
  app.use('/a2a', jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }))
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s))
  })
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url, store, received, cancels,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections?.()
      server.close(() => resolve())
    }),
  }
}
