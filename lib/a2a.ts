// agentlog/a2a: a remote A2A 1.0 agent as an agent tool (a2aAgent), through @a2a-js/sdk's client
// (an optional peer dependency). Serving agents over A2A is createServer({ a2a }) in the main entry.
export { a2aAgent, remoteContextOf, type A2aAgentOptions } from './a2a/agent.js'
export { REMOTE_APPROVAL, REMOTE_INPUT } from './a2a/model.js'
