// Trees of agents for the sub-agent specs: scripted leads and children, and the checks every log of
// a tree must pass on its own (strict replay, the invariant checker, AgentScope's schemas).
import * as assert from 'uvu/assert'
import { checkLog, replay, type Agent } from '../../lib/index.js'
import { checkInvariants } from './fixtures.js'
import { eventProblems } from './wireSchemas.js'

/** `root` and every agent under it, depth first. */
export const treeOf = (root: Agent): Agent[] => [root, ...root.children().flatMap(treeOf)]

/** Every log of the tree passes strict replay, the invariant checker and the wire schemas; settled agents keep REFERENCE.md's invariants. */
export const checkTree = (root: Agent): void => {
  for (const agent of treeOf(root)) {
    const log = JSON.parse(JSON.stringify(agent.log))
    assert.equal(replay(log, undefined, { strict: true }), agent.state, `strict replay of ${agent.name}'s log`)
    assert.equal(checkLog(log).violations, [], `${agent.name}'s log keeps the invariants`)
    for (const event of agent.log) assert.equal(eventProblems(event as never), [], `${agent.name}'s ${event.type} matches the schemas`)
    if (agent.state.status !== 'running') checkInvariants(agent)
  }
}

/** The first event of `type` in `agent`'s log. */
export const firstOf = (agent: Agent, type: string) => agent.log.find((e) => e.type === type)
