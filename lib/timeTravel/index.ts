// Time travel over a log (a LogStore or an array of events; read a file with readLogFile) or an
// agent's tree: `stateAt(log, seq)` is the state after event `seq`; `fork(source, seq, options)`
// starts a new agent there, in a new session (an agent with its sub-agents, as they were then);
// forkPlan.ts plans the fork of a tree of sessions for both the in-memory tree and a hub's store.
export { stateAt, type LogSource } from './stateAt.js'
export { fork } from './fork.js'
export { FORK_EVENT_NAME, type ForkOptions } from './forkLog.js'
