// The benchmarks' models: one that streams as fast as the agent takes it, one that streams until
// stopped; and the agent of a tree of sub-agents whose leaves stream until stopped (treeRoot).
import { agentTool, callTool, say, type AgentOptions, type ChatModel, type Tool } from '../../lib/index.js'
import { fastModel as turnsModel } from '../helpers.js'

/**
 * Streams `deltas` text deltas per reply with no timer (the model is never the bottleneck), giving
 * the event loop a turn every 10 deltas as a network stream does (chunks arrive as I/O).
 */
export const fastModel = (deltas: number): ChatModel => ({
  name: 'bench',
  async *stream() {
    for (let i = 0; i < deltas; i++) {
      if (i % 10 === 9) await new Promise((resolve) => setImmediate(resolve))
      yield { type: 'text', delta: `word${i} ` }
    }
    yield { type: 'usage', input_tokens: 10, output_tokens: deltas }
  },
})

/** Streams one delta every `ms` until stopped. */
export const endlessModel = (everyMs: number): ChatModel => ({
  name: 'bench-endless',
  async *stream(_request, { signal }) {
    for (let i = 0; !signal.aborted; i++) {
      await new Promise((resolve) => setTimeout(resolve, everyMs))
      yield { type: 'text', delta: `w${i} ` }
    }
  },
})

const level = (depth: number): Tool => agentTool({
  name: `level${depth}`, description: 'Delegates', concurrencySafe: true,
  agent: () => (depth === 3 ? { name: 'Leaf', model: endlessModel(2) } : delegating(`Level${depth}`, depth + 1)),
})

const delegating = (name: string, depth: number): AgentOptions => ({
  name, tools: [level(depth)],
  model: turnsModel([[...callTool('c0', `level${depth}`, { task: 't' }), ...callTool('c1', `level${depth}`, { task: 't' })], say('ok')]),
})

/** The tree's root (a hub's `agent`): 1 root, 2 + 4 sub-agents that call two sub-agents each at once, 8 leaves that stream until stopped. */
export const treeRoot = (): AgentOptions => delegating('Root', 1)
