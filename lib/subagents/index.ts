// Sub-agents: `agentTool` makes a tool that runs an agent in its own session; the tree helpers read
// a tree of agents in this process (what it waits for, who owns a call, its usage summed).
export { DEFAULT_MAX_CONCURRENT_SUBAGENTS } from './limit.js'
export { agentTool, DEFAULT_MAX_DEPTH, subagentStoppedReminder, type AgentToolOptions, type SubagentOptions } from './agentTool.js'
export { treeWaitingFor, treeUsage, treeRunning, replyTreeUsage } from './tree.js'
export { descendantEvents$ } from './descendants.js'
